/** Where the harness finds the account API: `<meta name="portal-api-base-url">` in the remote's index.html. */
export function apiBaseUrlOf(doc: Document, fallback = 'http://localhost:3000'): string {
  const meta = doc.querySelector<HTMLMetaElement>('meta[name="portal-api-base-url"]');
  return (meta?.content.trim() || fallback).replace(/\/+$/, '');
}
