import { apiCallers, type ApiClient, type CallOptions, type Profile, type ProfileUpdate } from 'shared-auth';

/**
 * PUT /api/profile/{sub}/update with only the changed fields. Any ok answer means saved: resolves to the stored
 * profile when the answer carries it (so the page merges what the server kept), else to undefined (the page then
 * merges what it sent).
 */
export async function updateProfile(
  client: ApiClient,
  sub: string,
  changes: ProfileUpdate,
  options: CallOptions = {},
): Promise<Profile | undefined> {
  return apiCallers.profileUpdate(client, { params: { sub }, body: changes }, options);
}
