import axios, { AxiosError, type AxiosInstance } from 'axios';
import { ApiError, CLIENT_ERROR_CODES, errorResponseSchema } from './contract/errors.js';

export { ApiError, isApiError } from './contract/errors.js';

/** The client of the spec's calls; remotes type their api functions with it. */
export type ApiClient = AxiosInstance;

export type AccessTokenGetter = () => string | undefined | Promise<string | undefined>;

export interface ApiClientOptions {
  /** Origin (and optional path) of the account API; '' means the page's own origin. */
  baseUrl: string;
  getAccessToken: AccessTokenGetter;
  /**
   * Called when the API refuses the token that was sent (401 `invalid_token`): the sign-in session ended
   * elsewhere (signed out, revoked, or ended by a password or 2-step change in another browser). The portal then
   * drops its tokens, so the visitor signs in again instead of seeing every call fail.
   */
  onSessionEnded?: () => void;
}

/** A 401 whose challenge says the bearer token was refused (RFC 6750), not that none was sent. */
function isRefusedToken(error: AxiosError): boolean {
  const challenge = error.response?.headers['www-authenticate'];
  return (
    error.response?.status === 401 && typeof challenge === 'string' && challenge.includes('invalid_token')
  );
}

/**
 * The spec's answers are JSON text that holds JSON (section 7): axios parses the outer layer, this parses the
 * inner one. Answers that are already objects (error bodies) pass through unchanged.
 */
export function parseJsonTwice(data: unknown): unknown {
  let value = data;
  for (let layer = 0; layer < 2 && typeof value === 'string'; layer += 1) {
    const text = value.trim();
    if (text === '') return undefined;
    try {
      value = JSON.parse(text);
    } catch {
      return value;
    }
  }
  return value;
}

/** Retry-After in seconds (its date form too), when the answer has one the page may read. */
function retryAfterOf(error: AxiosError): number | undefined {
  const header: unknown = error.response?.headers['retry-after'];
  if (typeof header !== 'string' || header.trim() === '') return undefined;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header) : (Date.parse(header) - Date.now()) / 1000;
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : undefined;
}

function toApiError(error: unknown): ApiError {
  if (axios.isCancel(error)) return new ApiError('The request was cancelled', 0, CLIENT_ERROR_CODES.aborted);
  if (error instanceof AxiosError) {
    const status = error.response?.status ?? 0;
    const body = errorResponseSchema.safeParse(parseJsonTwice(error.response?.data));
    const message = body.success
      ? body.data.error
      : status === 0
        ? 'The account service could not be reached'
        : `The account service answered ${status}`;
    return new ApiError(message, status, body.success ? body.data.code : undefined, retryAfterOf(error));
  }
  return error instanceof Error ? new ApiError(error.message, 0) : new ApiError(String(error), 0);
}

/** The axios client every spec call goes through: bearer token, JSON headers and the second JSON parse. */
export function createApiClient({
  baseUrl,
  getAccessToken,
  onSessionEnded,
}: ApiClientOptions): AxiosInstance {
  const client = axios.create({
    baseURL: baseUrl,
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    // Take the raw text and do both parses here, so a body that is not JSON never throws inside axios.
    transformResponse: [(data: unknown) => parseJsonTwice(data)],
  });
  client.interceptors.request.use(async (config) => {
    const token = await getAccessToken();
    if (token) config.headers.set('Authorization', `Bearer ${token}`);
    return config;
  });
  client.interceptors.response.use(undefined, (error: unknown) => {
    if (onSessionEnded && error instanceof AxiosError && isRefusedToken(error)) onSessionEnded();
    return Promise.reject(toApiError(error));
  });
  return client;
}
