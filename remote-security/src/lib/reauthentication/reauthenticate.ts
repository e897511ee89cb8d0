import { apiCallers, type ApiClient, type CallOptions } from 'shared-auth';

/**
 * POST /api/stepup/{sub}/reauthenticate with the account's password ("Confirm it's you"): lets this sign-in turn
 * on a first 2-step factor for 5 minutes. Resolves when the server accepted the password.
 */
export async function reauthenticate(
  client: ApiClient,
  sub: string,
  password: string,
  options: CallOptions = {},
): Promise<void> {
  await apiCallers.reauthenticate(client, { params: { sub }, body: { password } }, options);
}
