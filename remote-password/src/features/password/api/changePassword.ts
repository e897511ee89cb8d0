import {
  apiPaths,
  passwordChangeResponseSchema,
  type ApiClient,
  type PasswordChangeRequest,
} from 'shared-auth';

/** PUT /api/password/{sub}/change with OldPassword and NewPassword; answers `{ status: 'changed' }`. */
export async function changePassword(
  client: ApiClient,
  sub: string,
  body: PasswordChangeRequest,
): Promise<void> {
  const { data } = await client.put<unknown>(apiPaths.passwordChange(sub), body);
  passwordChangeResponseSchema.parse(data);
}
