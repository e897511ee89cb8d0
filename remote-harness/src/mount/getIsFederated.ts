import { apiPaths, isFederatedResponseSchema, type ApiClient } from 'shared-auth';

/** GET /api/profile/{sub}/isfederated */
export async function getIsFederated(client: ApiClient, sub: string): Promise<boolean> {
  const { data } = await client.get<unknown>(apiPaths.isFederated(sub));
  return isFederatedResponseSchema.parse(data).isFederated;
}
