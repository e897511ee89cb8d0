/** PostgreSQL's side of the stores' one SQL text: their `?` placeholders as `$1..$n`. */
/**
 * `?` placeholders to PostgreSQL's `$1..$n`, in order. A `?` inside a string literal ('…', E'…'), a quoted name
 * ("…"), a dollar-quoted string ($tag$…$tag$) or a comment is left alone.
 */
export function toPostgresPlaceholders(text: string): string {
  let out = '';
  let index = 0;
  let count = 0;
  while (index < text.length) {
    const char = text[index] as string;
    const next = text[index + 1];
    let end = index + 1;
    if (char === '?') {
      count += 1;
      out += `$${count}`;
      index = end;
      continue;
    }
    if (char === "'") {
      // E'…' strings take backslash escapes; '' is a quote inside any string.
      const escapes = /[eE]/.test(text[index - 1] ?? '') && !/[\w$]/.test(text[index - 2] ?? '');
      while (end < text.length) {
        const c = text[end];
        if (escapes && c === '\\') end += 2;
        else if (c === "'" && text[end + 1] === "'") end += 2;
        else if (c === "'") {
          end += 1;
          break;
        } else end += 1;
      }
    } else if (char === '"') {
      const close = text.indexOf('"', end);
      end = close === -1 ? text.length : close + 1;
    } else if (char === '-' && next === '-') {
      const close = text.indexOf('\n', end);
      end = close === -1 ? text.length : close + 1;
    } else if (char === '/' && next === '*') {
      const close = text.indexOf('*/', end + 1);
      end = close === -1 ? text.length : close + 2;
    } else if (char === '$') {
      const tag = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(text.slice(index))?.[0];
      if (tag && !/[\w$]/.test(text[index - 1] ?? '')) {
        const close = text.indexOf(tag, index + tag.length);
        end = close === -1 ? text.length : close + tag.length;
      }
    }
    out += text.slice(index, end);
    index = end;
  }
  return out;
}
