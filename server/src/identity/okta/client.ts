import okta, { type Client, type OktaApiError } from '@okta/okta-sdk-nodejs';
import { API_ERRORS } from 'shared-auth/contract';
import type { OktaCredentials } from '../../config/okta.js';
import { HttpError, refusal } from '../../http/errors.js';

/**
 * One Okta org, through Okta's own Node SDK (`@okta/okta-sdk-nodejs`), with the portal's policies around it:
 *
 * - **Credentials**: an OAuth 2.0 service app that signs a `private_key_jwt` client assertion with its private key
 *   (`client_credentials` grant, only the scopes the portal needs), or, as a documented fallback, an API token
 *   (`SSWS`), which acts with every permission of the admin who created it.
 * - **No cache**: the SDK keeps GET answers in memory with no expiry unless `cacheMiddleware: null`, so a change
 *   made by another portal instance or in Okta's admin would not be seen.
 * - **Our rate-limit policy, not the SDK's**: the SDK's own retry (`maxRetries`) waits for any 429 and repeats
 *   any call, writes included, for as long as Okta's reset says. Here a 429 is retried only for calls that are
 *   safe to repeat, within a small budget; otherwise the caller gets 503 with Retry-After (see `call`).
 * - **Token refusals are seen**: SDK 8.1.0 ignores a refused token request (its `oauth.js` uses `./http` as the
 *   class while it is a module, so `Http.errorFilter` is undefined): it sends `Bearer undefined` and the caller
 *   sees Okta's 401 E0000011 instead of `invalid_client` / `invalid_scope`. The request executor below looks at
 *   the token endpoint's answer itself and fails with what Okta said, logged.
 */

/** The logger the wrapper reports to (the app's pino logger fits). */
export interface OktaLog {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface OktaOrgOptions {
  /** The org's URL (`https://{yourOktaDomain}`): the settings' Domain in Okta mode. */
  orgUrl: string;
  credentials: OktaCredentials;
  log?: OktaLog;
  /**
   * The 429 policy for calls safe to repeat: at most `maxAttempts` tries in all, and never more than `maxWaitMs`
   * of waiting in total (the portal's request is held meanwhile). Defaults: 3 tries, 3 seconds.
   */
  rateLimit?: { maxAttempts?: number; maxWaitMs?: number };
  /** How long one HTTP exchange with Okta may take (ms, default 10 000); then it fails as unreachable. */
  requestTimeoutMs?: number;
}

/**
 * Whether a call may be repeated after Okta answered 429. A 429 is answered before Okta acts, but only calls
 * whose repetition could not change the outcome even if the first try had been applied are waited for and
 * repeated: reads, and deletions (of a factor, of the sessions), which end in the same state however often they
 * run. Writes (a profile save, a password change, an enrolment, a code check, an email send) answer 503 at once:
 * the page says to try again, and nothing is held waiting for a write the user did not repeat themselves.
 */
export type CallSafety = 'repeatable' | 'once';

/** Response headers as the SDK hands them over (node-fetch's Headers). */
interface HeaderReader {
  get(name: string): string | null;
}

/**
 * The token endpoint did not give the service app a token: what Okta said about the portal's own credentials
 * (logged; the page only learns that Okta failed), or its rate limit (429, with its headers).
 */
export class OktaTokenRefusal extends Error {
  override readonly name = 'OktaTokenRefusal';
  constructor(
    readonly httpStatus: number,
    readonly error: string | undefined,
    readonly errorDescription: string | undefined,
    readonly headers: HeaderReader,
  ) {
    super(
      `Okta's token endpoint refused the service app's client_credentials request: HTTP ${httpStatus} ${error ?? '(no error code)'}${errorDescription ? `: ${errorDescription}` : ''}`,
    );
  }
}

/** Okta's answer to an API call that failed (the SDK's OktaApiError), with its error body's fields. */
export function isOktaApiError(error: unknown): error is OktaApiError {
  return (
    error instanceof Error &&
    error.name === 'OktaApiError' &&
    typeof (error as { status?: unknown }).status === 'number'
  );
}

/** The `errorSummary` of each of Okta's error causes (the part of its answer that is meant for people). */
export function causesOf(error: OktaApiError): string[] {
  return (error.errorCauses ?? [])
    .map((cause) => cause.errorSummary)
    .filter((summary): summary is string => typeof summary === 'string' && summary !== '');
}

const TOKEN_PATH = '/oauth2/v1/token';
const DEFAULT_MAX_ATTEMPTS = 3;
const DEFAULT_MAX_WAIT_MS = 3000;
/** The wait asked of the page when Okta's 429 has no usable X-Rate-Limit-Reset (Okta's windows are a minute). */
const FALLBACK_RETRY_AFTER_SECONDS = 60;

/** The SDK's request executor, without its retries, that surfaces the token endpoint's refusals. */
class PortalRequestExecutor extends okta.DefaultRequestExecutor {
  constructor(
    private readonly tokenUrl: string,
    requestTimeoutMs: number,
  ) {
    // maxRetries 0: the 429 reaches OktaOrg.call with its headers; requestTimeout bounds each exchange.
    super({ maxRetries: 0, requestTimeout: requestTimeoutMs });
  }

  override async fetch(request: Parameters<okta.DefaultRequestExecutor['fetch']>[0]) {
    const response = await super.fetch(request);
    if (request.url !== this.tokenUrl || (response.status >= 200 && response.status < 300)) return response;
    const body = (await response
      .clone()
      .json()
      .catch(() => undefined)) as { error?: unknown; error_description?: unknown } | undefined;
    // A DPoP-bound app answers `use_dpop_nonce` first: the SDK handles that one itself.
    if (body?.error === 'use_dpop_nonce') return response;
    throw new OktaTokenRefusal(
      response.status,
      typeof body?.error === 'string' ? body.error : undefined,
      typeof body?.error_description === 'string' ? body.error_description : undefined,
      response.headers,
    );
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An Okta org the portal calls: the SDK client, the 429 policy and the translation of failures. */
export class OktaOrg {
  readonly orgUrl: string;
  private readonly client: Client;
  private readonly log: OktaLog | undefined;
  private readonly maxAttempts: number;
  private readonly maxWaitMs: number;

  constructor(options: OktaOrgOptions) {
    const orgUrl = new URL(options.orgUrl).origin;
    this.orgUrl = orgUrl;
    this.log = options.log;
    this.maxAttempts = Math.max(1, options.rateLimit?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    this.maxWaitMs = Math.max(0, options.rateLimit?.maxWaitMs ?? DEFAULT_MAX_WAIT_MS);
    const requestExecutor = new PortalRequestExecutor(
      `${orgUrl}${TOKEN_PATH}`,
      options.requestTimeoutMs ?? 10_000,
    );
    const { credentials } = options;
    // Every field the SDK's config loader knows is given, empty when unused: the loader would otherwise fill the
    // gaps from OKTA_CLIENT_* environment variables and okta.yaml files, which are not the portal's settings.
    this.client = new okta.Client({
      orgUrl,
      ...(credentials.kind === 'service-app'
        ? {
            authorizationMode: 'PrivateKey',
            clientId: credentials.clientId,
            scopes: credentials.scopes,
            privateKey: credentials.privateJwk,
            keyId: credentials.keyId ?? '',
            token: '',
          }
        : { authorizationMode: 'SSWS', token: credentials.token, clientId: '', privateKey: '', keyId: '' }),
      requestExecutor,
      cacheMiddleware: null,
    });
  }

  /**
   * Runs one SDK call (`run` may make several requests, e.g. a collection read to its end) under the portal's
   * policies: a 429 is retried when `safety` is 'repeatable' and Okta's X-Rate-Limit-Reset is within the budget,
   * otherwise it becomes 503 with Retry-After; a refusal of the portal's own credentials, a network failure or
   * a timeout becomes 502 (logged with what Okta said). Okta's other answers (OktaApiError) are rethrown for the
   * operation to map; `unexpected` turns those it does not expect into 502.
   */
  async call<T>(operation: string, safety: CallSafety, run: (client: Client) => Promise<T>): Promise<T> {
    let waited = 0;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await run(this.client);
      } catch (error) {
        // Okta's rate limit, on the API or on the token endpoint (a new token request signs a new assertion).
        const limited =
          (isOktaApiError(error) && error.status === 429) ||
          (error instanceof OktaTokenRefusal && error.httpStatus === 429);
        if (!limited) throw this.translate(operation, error);
        const waitMs = resetWaitMs((error as { headers: HeaderReader }).headers);
        const backoff = waitMs === undefined ? undefined : Math.max(waitMs, 100 * 2 ** (attempt - 1));
        if (
          safety === 'repeatable' &&
          backoff !== undefined &&
          attempt < this.maxAttempts &&
          waited + backoff <= this.maxWaitMs
        ) {
          waited += backoff;
          await delay(backoff);
          continue;
        }
        const retryAfter =
          waitMs === undefined ? FALLBACK_RETRY_AFTER_SECONDS : Math.max(1, Math.ceil(waitMs / 1000));
        this.log?.warn(
          {
            operation,
            okta: isOktaApiError(error) ? summary(error) : { status: 429, endpoint: TOKEN_PATH },
            retryAfterSeconds: retryAfter,
            attempts: attempt,
          },
          "Okta's rate limit: answered 503",
        );
        throw refusal(
          API_ERRORS.serviceUnavailable,
          `The identity service is busy right now. Try again in ${retryAfter} ${retryAfter === 1 ? 'second' : 'seconds'}.`,
          { 'Retry-After': String(retryAfter) },
        );
      }
    }
  }

  /**
   * An answer of Okta that the operation does not expect: logged with Okta's error fields (its errorId finds
   * the request in Okta's System Log), answered 502 with a text that tells nothing of Okta's internals.
   */
  unexpected(operation: string, error: unknown): HttpError {
    if (error instanceof HttpError) return error;
    this.log?.error(
      { operation, okta: isOktaApiError(error) ? summary(error) : undefined, err: error },
      'Okta answered unexpectedly',
    );
    return upstreamFailed();
  }

  private translate(operation: string, error: unknown): unknown {
    if (error instanceof OktaTokenRefusal) {
      this.log?.error(
        { operation, status: error.httpStatus, error: error.error, description: error.errorDescription },
        `Okta refused the service app's token request (${error.error ?? error.httpStatus}): check OKTA_CLIENT_ID, the key (OKTA_PRIVATE_KEY, OKTA_KEY_ID) and the scopes granted to the app (OKTA_SCOPES)`,
      );
      return upstreamFailed();
    }
    if (isOktaApiError(error)) {
      if (error.status === 401) {
        // The SDK already fetched a new token and tried once more.
        this.log?.error(
          { operation, okta: summary(error) },
          "Okta refused the portal's credentials (401): the access token or OKTA_API_TOKEN is not accepted",
        );
        return upstreamFailed();
      }
      if (error.status === 403 && error.errorCode === 'E0000006') {
        this.log?.error(
          { operation, okta: summary(error), wwwAuthenticate: error.headers.get('www-authenticate') },
          'Okta refused the call for lack of permission: grant the service app the scope the call needs (okta.users.manage) and the admin role',
        );
        return upstreamFailed();
      }
      // For the operation to map (a wrong code, a policy refusal, a missing user, …).
      return error;
    }
    if (error instanceof HttpError) return error;
    // node-fetch's FetchError (connection refused, DNS, timeout), or an SDK failure before any answer.
    this.log?.error({ operation, err: error }, 'Okta could not be reached');
    return refusal(
      API_ERRORS.upstreamFailed,
      'The identity service could not be reached. Try again in a moment.',
    );
  }
}

function upstreamFailed(): HttpError {
  return refusal(
    API_ERRORS.upstreamFailed,
    'The identity service did not answer as expected. Try again in a moment.',
  );
}

/** Okta's error fields worth a log line (never a request body: it may hold a password). */
function summary(error: OktaApiError): object {
  return {
    status: error.status,
    errorCode: error.errorCode,
    errorSummary: error.errorSummary,
    errorCauses: causesOf(error),
    errorId: error.errorId,
  };
}

/**
 * How long until Okta's rate-limit window resets (ms), from X-Rate-Limit-Reset (epoch seconds) against the
 * answer's own Date header (the same clock; the local one when Date is missing). Undefined when the header is
 * missing or not one number (Okta once sent it twice, comma-joined).
 */
function resetWaitMs(headers: HeaderReader): number | undefined {
  const reset = headers.get('x-rate-limit-reset');
  if (reset === null || !/^\d+$/.test(reset.trim())) return undefined;
  const date = Date.parse(headers.get('date') ?? '');
  const now = Number.isNaN(date) ? Date.now() : date;
  return Math.max(0, Number(reset) * 1000 - now);
}
