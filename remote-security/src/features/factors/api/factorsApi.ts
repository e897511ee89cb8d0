import {
  apiPaths,
  emailEnrollResponseSchema,
  factorDetailsResponseSchema,
  factorStatusResponseSchema,
  googleEnrollResponseSchema,
  INVALID_CODE_ERROR,
  isApiError,
  type ApiClient,
  type FactorDetailsResponse,
  type FactorStatusResponse,
  type GoogleEnrollResponse,
} from 'shared-auth';
import type { FactorKind } from '../model/enrolment.js';

const PATH_NAME: Record<FactorKind, 'googleauth' | 'email'> = { googleAuth: 'googleauth', email: 'email' };

export async function getDetails(
  client: ApiClient,
  factor: FactorKind,
  sub: string,
): Promise<FactorDetailsResponse> {
  const { data } = await client.get<unknown>(apiPaths.multifactor(PATH_NAME[factor], sub, 'details'));
  return factorDetailsResponseSchema.parse(data);
}

export async function enrollGoogle(client: ApiClient, sub: string): Promise<GoogleEnrollResponse> {
  const { data } = await client.post<unknown>(apiPaths.multifactor('googleauth', sub, 'enroll'), {});
  return googleEnrollResponseSchema.parse(data);
}

/** Sends the activation code to the account's email. */
export async function enrollEmail(client: ApiClient, sub: string): Promise<void> {
  const { data } = await client.post<unknown>(apiPaths.multifactor('email', sub, 'enroll'), {});
  emailEnrollResponseSchema.parse(data);
}

export type ActivateResult = { ok: true; status: FactorStatusResponse } | { ok: false };

/** `{ ok: false }` for the spec's wrong-code answer ('ERROR: invalid code'); any other failure throws. */
export async function activate(
  client: ApiClient,
  factor: FactorKind,
  sub: string,
  code: string,
): Promise<ActivateResult> {
  try {
    const { data } = await client.post<unknown>(apiPaths.multifactor(PATH_NAME[factor], sub, 'activate'), {
      code,
    });
    return { ok: true, status: factorStatusResponseSchema.parse(data) };
  } catch (error) {
    if (isApiError(error) && error.message === INVALID_CODE_ERROR) return { ok: false };
    throw error;
  }
}

export async function optIn(
  client: ApiClient,
  factor: FactorKind,
  sub: string,
): Promise<FactorStatusResponse> {
  const { data } = await client.put<unknown>(apiPaths.multifactor(PATH_NAME[factor], sub, 'opt-in'), {});
  return factorStatusResponseSchema.parse(data);
}

export async function optOut(
  client: ApiClient,
  factor: FactorKind,
  sub: string,
): Promise<FactorStatusResponse> {
  const { data } = await client.delete<unknown>(apiPaths.multifactor(PATH_NAME[factor], sub, 'opt-out'));
  return factorStatusResponseSchema.parse(data);
}

export async function reset(
  client: ApiClient,
  factor: FactorKind,
  sub: string,
): Promise<FactorStatusResponse> {
  const { data } = await client.delete<unknown>(apiPaths.multifactor(PATH_NAME[factor], sub, 'reset'), {
    data: { optOut: true },
  });
  return factorStatusResponseSchema.parse(data);
}
