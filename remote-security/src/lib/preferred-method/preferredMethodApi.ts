/** The call of "Use by default" (issue 22): PUT /api/v1/users/{sub}/multifactor/preferred. */
import {
  apiCallers,
  type ApiClient,
  type CallOptions,
  type PreferredMethod,
  type PreferredMethodResponse,
} from 'shared-auth';

/** Makes `method` the holder's default 2-step method; the server answers the default now. */
export async function choosePreferredMethod(
  client: ApiClient,
  sub: string,
  method: PreferredMethod,
  options: CallOptions = {},
): Promise<PreferredMethodResponse> {
  return apiCallers.preferredMethod(client, { params: { sub }, body: { method } }, options);
}
