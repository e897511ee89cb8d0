import { apiCallers, type ApiClient, type CallOptions, type PasswordChangeRequest } from 'shared-auth';

/**
 * PUT /api/password/{sub}/change with OldPassword and NewPassword. Any ok answer means changed (the server
 * answers `{ status: 'changed' }`; another server of the spec may answer otherwise).
 */
export async function changePassword(
  client: ApiClient,
  sub: string,
  body: PasswordChangeRequest,
  options: CallOptions = {},
): Promise<void> {
  await apiCallers.passwordChange(client, { params: { sub }, body }, options);
}
