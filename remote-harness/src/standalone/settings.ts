import { parseJsonTwice, settingsSchema, type Settings } from 'shared-auth';

/** Where the harness finds the account API: `<meta name="portal-api-base-url">` in the remote's index.html. */
export function apiBaseUrlOf(doc: Document, fallback = 'http://localhost:3000'): string {
  const meta = doc.querySelector<HTMLMetaElement>('meta[name="portal-api-base-url"]');
  return (meta?.content.trim() || fallback).replace(/\/+$/, '');
}

/** GET {api}/api/clientConfiguration/getSettings: JSON text holding the settings (spec section 7). */
export async function fetchSettings(apiBaseUrl: string, fetcher: typeof fetch = fetch): Promise<Settings> {
  const response = await fetcher(`${apiBaseUrl}/api/clientConfiguration/getSettings`, {
    headers: { Accept: 'application/json' },
  });
  if (!response.ok) throw new Error(`The settings call answered ${response.status}`);
  return settingsSchema.parse(parseJsonTwice(await response.text()));
}
