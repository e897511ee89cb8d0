import { parseJsonTwice, settingsSchema, type Settings } from 'shared-auth';
import { takeEarlyResponse } from '../../../app/startup.js';

/** Raised when the settings arrived but a value is wrong; the message names the setting. */
export class InvalidSettingsError extends Error {
  override readonly name = 'InvalidSettingsError';
}

/**
 * GET /api/clientConfiguration/getSettings: JSON text holding the settings (spec section 7). No auth: this is
 * what tells the shell where to sign in, so it uses the request started at page load.
 */
export async function getSettings(
  request: () => Promise<Response> = () => takeEarlyResponse('settings'),
): Promise<Settings> {
  const response = await request();
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
