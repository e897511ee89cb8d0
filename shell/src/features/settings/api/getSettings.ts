import { apiPaths, createApiClient, settingsSchema, type Settings } from 'shared-auth';

/** Raised when the settings arrived but a value is wrong; the message names the setting. */
export class InvalidSettingsError extends Error {
  override readonly name = 'InvalidSettingsError';
}

const anonymousClient = createApiClient({ baseUrl: '', getAccessToken: () => undefined });

/** GET /api/clientConfiguration/getSettings: JSON text holding the settings (spec section 7). */
export async function getSettings(client = anonymousClient): Promise<Settings> {
  const { data } = await client.get<unknown>(apiPaths.settings());
  const parsed = settingsSchema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'settings'}: ${issue.message}`,
    );
    throw new InvalidSettingsError(`Invalid setting ${problems.join('; ')}`);
  }
  return parsed.data;
}
