import {
  apiCallers,
  API_ERROR_CODES,
  isApiError,
  type ApiClient,
  type CallOptions,
  type FactorDetailsResponse,
  type FactorName,
  type FactorStatusResponse,
  type GoogleEnrollResponse,
} from 'shared-auth';

const factorCalls = apiCallers.multifactor;

export async function getDetails(
  client: ApiClient,
  factor: FactorName,
  sub: string,
  options: CallOptions = {},
): Promise<FactorDetailsResponse> {
  return factorCalls[factor].details(client, { params: { sub } }, options);
}

export async function enrollGoogle(
  client: ApiClient,
  sub: string,
  options: CallOptions = {},
): Promise<GoogleEnrollResponse> {
  return factorCalls.googleAuth.enroll(client, { params: { sub }, body: {} }, options);
}

/** Sends the activation code to the account's email. */
export async function enrollEmail(client: ApiClient, sub: string, options: CallOptions = {}): Promise<void> {
  await factorCalls.email.enroll(client, { params: { sub }, body: {} }, options);
}

export type ActivateResult = { ok: true; status: FactorStatusResponse } | { ok: false };

/** A wrong code: the `invalid_code` refusal (its text is the spec's 'ERROR: invalid code'). */
function isWrongCode(error: unknown): boolean {
  return isApiError(error) && error.code === API_ERROR_CODES.invalidCode;
}

/** `{ ok: false }` for a wrong code; any other failure throws. */
export async function activate(
  client: ApiClient,
  factor: FactorName,
  sub: string,
  code: string,
  options: CallOptions = {},
): Promise<ActivateResult> {
  try {
    const status = await factorCalls[factor].activate(client, { params: { sub }, body: { code } }, options);
    return { ok: true, status };
  } catch (error) {
    if (isWrongCode(error)) return { ok: false };
    throw error;
  }
}

export async function optIn(
  client: ApiClient,
  factor: FactorName,
  sub: string,
  options: CallOptions = {},
): Promise<FactorStatusResponse> {
  return factorCalls[factor].optIn(client, { params: { sub }, body: {} }, options);
}

export async function optOut(
  client: ApiClient,
  factor: FactorName,
  sub: string,
  options: CallOptions = {},
): Promise<FactorStatusResponse> {
  return factorCalls[factor].optOut(client, { params: { sub } }, options);
}

export async function reset(
  client: ApiClient,
  factor: FactorName,
  sub: string,
  options: CallOptions = {},
): Promise<FactorStatusResponse> {
  return factorCalls[factor].reset(client, { params: { sub }, body: { optOut: true } }, options);
}
