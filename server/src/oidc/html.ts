import { createHash } from 'node:crypto';

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

/** JSON that is safe inside a <script> element (no `</script>`, no line separators). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Anything with a readable and writable header, i.e. a Koa context or a Node response. */
export interface HeaderAccess {
  get(name: string): string;
  set(name: string, value: string): void;
}

/**
 * Edits the Content-Security-Policy that helmet put on the response (helmet runs first, on every request),
 * e.g. to allow one inline script by its hash instead of loosening script-src for every page.
 */
export function editCsp(headers: HeaderAccess, edit: (directives: Map<string, string[]>) => void): void {
  const header = headers.get('Content-Security-Policy');
  if (!header) return;
  const directives = new Map<string, string[]>();
  for (const part of header.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) directives.set(name, values);
  }
  edit(directives);
  headers.set(
    'Content-Security-Policy',
    [...directives].map(([name, values]) => [name, ...values].join(' ')).join(';'),
  );
}

/** Allows exactly this inline script on this response (CSP hash source) and returns it unchanged. */
export function allowInlineScript(headers: HeaderAccess, script: string): string {
  const digest = createHash('sha256').update(script).digest('base64');
  editCsp(headers, (directives) => {
    const current = directives.get('script-src') ?? directives.get('default-src') ?? ["'self'"];
    directives.set('script-src', [...current.filter((v) => v !== "'none'"), `'sha256-${digest}'`]);
  });
  return script;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:16px;line-height:1.5;color:#1f1f1f;background:#f5f5f5}
main{max-width:26rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.5rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input{display:block;width:100%;padding:.6rem .75rem;font:inherit;border:1px solid #8c8c8c;border-radius:4px}
input:focus,button:focus,a:focus{outline:3px solid #1677ff;outline-offset:2px}
button{display:block;width:100%;margin-top:1.5rem;padding:.7rem;font:inherit;font-weight:600;color:#fff;background:#1668dc;border:0;border-radius:4px;cursor:pointer}
button:hover{background:#0958d9}
[role=alert]{margin:0 0 1rem;padding:.75rem;border:1px solid #cf1322;border-radius:4px;background:#fff1f0;color:#a8071a}
.muted{color:#595959;font-size:.875rem}
@media (max-width:30rem){main{margin:0;border-radius:0;box-shadow:none;min-height:100vh;padding:1rem}}
`;

/** The provider's plain, accessible page frame: no client JS, readable at 320 px, `lang="en"`. */
export function page(title: string, body: string, head = ''): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
${head}
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}
