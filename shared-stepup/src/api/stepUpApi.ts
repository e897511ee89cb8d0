import {
  apiCallers,
  STEP_UP_PATH_SEGMENTS,
  type ApiClient,
  type CallOptions,
  type ChallengeResponse,
  type PasskeyAuthenticationBody,
  type PasskeyAuthenticationOptions,
  type StepUpPathSegment,
} from 'shared-auth';

/** Per-call options: a signal ends the request when the screen that asked for it goes away. */
export type RequestOptions = CallOptions;

/** GET /api/stepup/{sub}/challenge */
export async function getChallenge(
  client: ApiClient,
  sub: string,
  options: RequestOptions = {},
): Promise<ChallengeResponse> {
  return apiCallers.stepUpChallenge(client, { params: { sub } }, options);
}

/** POST /api/stepup/{sub}/email/challenge: sends a code to the account's email; any ok answer means sent. */
export async function sendEmailChallenge(
  client: ApiClient,
  sub: string,
  options: RequestOptions = {},
): Promise<void> {
  await apiCallers.stepUpSendChallenge(
    client,
    { params: { sub, factor: STEP_UP_PATH_SEGMENTS.email }, body: {} },
    options,
  );
}

/** POST /api/stepup/{sub}/{google-auth|email}/verify with the passCode; any ok answer means verified. */
export async function verifyStepUp(
  client: ApiClient,
  sub: string,
  factor: StepUpPathSegment,
  passCode: string,
  options: RequestOptions = {},
): Promise<void> {
  await apiCallers.stepUpVerify(client, { params: { sub, factor }, body: { passCode } }, options);
}

/**
 * POST /api/stepup/{sub}/recovery-code/verify with one of the holder's recovery codes (used up when accepted); any
 * ok answer means verified.
 */
export async function verifyRecoveryCode(
  client: ApiClient,
  sub: string,
  recoveryCode: string,
  options: RequestOptions = {},
): Promise<void> {
  await apiCallers.stepUpVerifyRecoveryCode(client, { params: { sub }, body: { recoveryCode } }, options);
}

/** POST /api/stepup/{sub}/passkey/options: the options of the browser's passkey check (single use, 5 minutes). */
export async function getPasskeyOptions(
  client: ApiClient,
  sub: string,
  options: RequestOptions = {},
): Promise<PasskeyAuthenticationOptions['options']> {
  return (await apiCallers.stepUpPasskeyOptions(client, { params: { sub }, body: {} }, options)).options;
}

/** POST /api/stepup/{sub}/passkey/verify with the browser's answer; any ok answer means verified. */
export async function verifyPasskey(
  client: ApiClient,
  sub: string,
  response: PasskeyAuthenticationBody['response'],
  options: RequestOptions = {},
): Promise<void> {
  await apiCallers.stepUpVerifyPasskey(client, { params: { sub }, body: { response } }, options);
}
