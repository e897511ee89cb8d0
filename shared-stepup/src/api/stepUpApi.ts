import {
  apiPaths,
  challengeResponseSchema,
  sendChallengeResponseSchema,
  stepUpVerifyResponseSchema,
  type ApiClient,
  type ChallengeResponse,
} from 'shared-auth';

/** Per-call options: a signal ends the request when the screen that asked for it goes away. */
export interface RequestOptions {
  signal?: AbortSignal;
}

/** GET /api/stepup/{sub}/challenge */
export async function getChallenge(
  client: ApiClient,
  sub: string,
  { signal }: RequestOptions = {},
): Promise<ChallengeResponse> {
  const { data } = await client.get<unknown>(apiPaths.stepUpChallenge(sub), { signal });
  return challengeResponseSchema.parse(data);
}

/** POST /api/stepup/{sub}/email/challenge: sends a code to the account's email. */
export async function sendEmailChallenge(
  client: ApiClient,
  sub: string,
  { signal }: RequestOptions = {},
): Promise<void> {
  const { data } = await client.post<unknown>(apiPaths.stepUpSendChallenge(sub, 'email'), {}, { signal });
  sendChallengeResponseSchema.parse(data);
}

/** POST /api/stepup/{sub}/{google-auth|email}/verify with the passCode; resolves when verified. */
export async function verifyStepUp(
  client: ApiClient,
  sub: string,
  factor: 'google-auth' | 'email',
  passCode: string,
  { signal }: RequestOptions = {},
): Promise<void> {
  const { data } = await client.post<unknown>(apiPaths.stepUpVerify(sub, factor), { passCode }, { signal });
  stepUpVerifyResponseSchema.parse(data);
}
