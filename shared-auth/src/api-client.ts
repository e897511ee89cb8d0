import type { ApiRequester } from './contract/caller.js';
import { ApiError, CLIENT_ERROR_CODES, errorResponseSchema } from './contract/errors.js';

export { ApiError, isApiError } from './contract/errors.js';

/**
 * The client every spec call goes through (`apiCallers.*(client, …)`): one request of a declared call, answered
 * with its status and its parsed body, or rejected with an ApiError.
 */
export type ApiClient = ApiRequester;

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
  /**
   * Renews the tokens silently with the identity provider's session (no visible page), resolving once
   * `getAccessToken` gives the new access token; rejects when it could not. Given, a refused token is renewed
   * first and the call sent once more; only a renewal that fails, or a second refusal, ends the session.
   */
  renewSession?: RenewSession;
}

/** A silent renewal of the sign-in (see ApiClientOptions.renewSession); shared by concurrent callers. */
export type RenewSession = (options?: { signal?: AbortSignal }) => Promise<void>;

/** A 401 whose challenge says the bearer token was refused (RFC 6750), not that none was sent. */
function isRefusedToken(response: Response): boolean {
  return (
    response.status === 401 && (response.headers.get('WWW-Authenticate') ?? '').includes('invalid_token')
  );
}

/**
 * The spec's answers are JSON text that holds JSON (section 7): this parses both layers. Answers that are
 * already objects pass through unchanged; text that is not JSON stays text.
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
function retryAfterOf(response: Response): number | undefined {
  const header = response.headers.get('Retry-After')?.trim();
  if (!header) return undefined;
  const seconds = /^\d+$/.test(header) ? Number(header) : (Date.parse(header) - Date.now()) / 1000;
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : undefined;
}

function refusalOf(response: Response, data: unknown): ApiError {
  const body = errorResponseSchema.safeParse(data);
  const message = body.success ? body.data.error : `The account service answered ${response.status}`;
  return new ApiError(
    message,
    response.status,
    body.success ? body.data.code : undefined,
    retryAfterOf(response),
    body.success ? body.data.proof : undefined,
  );
}

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error instanceof Error && error.name === 'AbortError');
}

const cancelled = () => new ApiError('The request was cancelled', 0, CLIENT_ERROR_CODES.aborted);

/** An answer as it came, parsed; and the token it was sent with. */
interface Answer {
  response: Response;
  parsed: unknown;
  token: string | undefined;
}

/**
 * The client of the spec's calls, on the browser's fetch (no HTTP library on the first page): the bearer token,
 * JSON in and out, both parses of the answer, and one ApiError for every refusal or failure. A refused token
 * (the grant ended: a password or 2-step change ends every grant of the account) is renewed silently once and
 * the call sent once more, so the holder of the provider session notices nothing; the call was refused before
 * anything ran, so sending it again does it once.
 */
export function createApiClient({
  baseUrl,
  getAccessToken,
  onSessionEnded,
  renewSession,
}: ApiClientOptions): ApiClient {
  async function send({ method, url, data, signal }: Parameters<ApiClient['request']>[0]): Promise<Answer> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (data !== undefined) headers['Content-Type'] = 'application/json';
    try {
      const token = await getAccessToken();
      if (token) headers.Authorization = `Bearer ${token}`;
      const response = await fetch(`${baseUrl}${url}`, {
        method,
        headers,
        ...(data === undefined ? {} : { body: JSON.stringify(data) }),
        ...(signal ? { signal } : {}),
      });
      return { response, parsed: parseJsonTwice(await response.text()), token };
    } catch (error) {
      if (isAbort(error, signal)) throw cancelled();
      throw new ApiError('The account service could not be reached', 0);
    }
  }

  function ended(answer: Answer): never {
    onSessionEnded?.();
    throw refusalOf(answer.response, answer.parsed);
  }

  return {
    async request(call) {
      const first = await send(call);
      if (first.response.ok) return { status: first.response.status, data: first.parsed };
      if (!isRefusedToken(first.response)) throw refusalOf(first.response, first.parsed);
      if (!renewSession) return ended(first);
      // Another call's renewal may already have replaced the token this one was sent with: no second renewal.
      const current = await Promise.resolve(getAccessToken()).catch(() => undefined);
      if (current === undefined || current === first.token) {
        try {
          await renewSession(call.signal ? { signal: call.signal } : {});
        } catch (error) {
          if (isAbort(error, call.signal)) throw cancelled();
          console.warn('The sign-in could not be renewed silently:', error);
          return ended(first);
        }
      }
      // Once only: a token refused again right after its renewal signs in again instead of renewing in a loop.
      const retry = await send(call);
      if (retry.response.ok) return { status: retry.response.status, data: retry.parsed };
      if (isRefusedToken(retry.response)) return ended(retry);
      throw refusalOf(retry.response, retry.parsed);
    },
  };
}
