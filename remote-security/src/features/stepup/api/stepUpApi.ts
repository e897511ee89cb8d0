import {
  apiPaths,
  challengeResponseSchema,
  sendChallengeResponseSchema,
  stepUpVerifyResponseSchema,
  type ApiClient,
  type ChallengeResponse,
} from 'shared-auth';

/** GET /api/stepup/{sub}/challenge */
export async function getChallenge(client: ApiClient, sub: string): Promise<ChallengeResponse> {
  const { data } = await client.get<unknown>(apiPaths.stepUpChallenge(sub));
  return challengeResponseSchema.parse(data);
}

/** POST /api/stepup/{sub}/email/challenge: sends a code to the account's email. */
export async function sendEmailChallenge(client: ApiClient, sub: string): Promise<void> {
  const { data } = await client.post<unknown>(apiPaths.stepUpSendChallenge(sub, 'email'), {});
  sendChallengeResponseSchema.parse(data);
}

/** POST /api/stepup/{sub}/{google-auth|email}/verify with the passCode; resolves when verified. */
export async function verifyStepUp(
  client: ApiClient,
  sub: string,
  factor: 'google-auth' | 'email',
  passCode: string,
): Promise<void> {
  const { data } = await client.post<unknown>(apiPaths.stepUpVerify(sub, factor), { passCode });
  stepUpVerifyResponseSchema.parse(data);
}
