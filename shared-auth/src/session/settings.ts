import { apiPaths, settingsSchema, type Settings } from '../contract/index.js';
import { parseJsonTwice } from '../api-client.js';

/** The settings arrived but a value is wrong; the message names the setting, for whoever deploys the portal. */
export class InvalidSettingsError extends Error {
  override readonly name = 'InvalidSettingsError';
}

/** The settings call's answer: JSON text holding the settings (spec section 7), checked setting by setting. */
export async function readSettings(response: Response): Promise<Settings> {
  if (!response.ok) throw new Error(`The settings call answered ${response.status}`);
  const parsed = settingsSchema.safeParse(parseJsonTwice(await response.text()));
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'settings'}: ${issue.message}`,
    );
    throw new InvalidSettingsError(`Invalid setting ${problems.join('; ')}`);
  }
  return parsed.data;
}

export interface FetchSettingsOptions {
  signal?: AbortSignal;
  fetcher?: typeof fetch;
}

/** GET {api}/api/clientConfiguration/getSettings. No auth: the settings say where to sign in. */
export async function fetchSettings(
  apiBaseUrl: string,
  { signal, fetcher = fetch }: FetchSettingsOptions = {},
): Promise<Settings> {
  const response = await fetcher(`${apiBaseUrl}${apiPaths.settings()}`, {
    headers: { Accept: 'application/json' },
    ...(signal ? { signal } : {}),
  });
  return readSettings(response);
}

/** The flag images' base URL: the settings' own when absolute, otherwise next to the API. */
export function flagBaseUrlOf(settings: Pick<Settings, 'FlagBaseUrl'>, apiBaseUrl: string): string {
  return /^https?:\/\//.test(settings.FlagBaseUrl)
    ? settings.FlagBaseUrl
    : `${apiBaseUrl}${settings.FlagBaseUrl}`;
}
