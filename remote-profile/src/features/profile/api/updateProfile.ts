import {
  apiPaths,
  profileUpdateResponseSchema,
  type ApiClient,
  type Profile,
  type ProfileUpdate,
} from 'shared-auth';

/** PUT /api/profile/{sub}/update with only the changed fields; answers the stored profile. */
export async function updateProfile(
  client: ApiClient,
  sub: string,
  changes: ProfileUpdate,
): Promise<Profile> {
  const { data } = await client.put<unknown>(apiPaths.profileUpdate(sub), changes);
  return profileUpdateResponseSchema.parse(data);
}
