/**
 * Silent renewal of the signed-in session with the identity provider's session cookie (prompt=none in a hidden
 * iframe, okta-auth-js's getWithoutPrompt): what the page does when the account API refuses its access token or the
 * provider refuses its refresh token (a password or 2-step change ends every grant of the account, the caller's
 * too, and keeps only the caller's provider session). One renewal at a time, shared by every call that needs it,
 * bounded in time, and abandoned when every caller waiting for it has gone.
 */
import type { RenewSession } from '../api-client.js';

/** How long a silent renewal may take before the page falls back to a visible sign-in. */
export const SILENT_RENEW_TIMEOUT_MS = 10_000;

/** The silent renewal took longer than its bound (the provider did not answer the hidden iframe). */
export class SilentRenewTimeoutError extends Error {
  override readonly name = 'SilentRenewTimeoutError';
}

/** The caller stopped waiting (its AbortSignal fired); the renewal may go on for the others. */
function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The renewal was cancelled', 'AbortError');
}

/** Waits for `promise` unless `signal` fires first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The renewal's state: none running, or one that every caller joins (with how many still wait for it). */
type RenewalState =
  | { status: 'idle' }
  | { status: 'renewing'; done: Promise<void>; controller: AbortController; waiting: number };

export interface SharedRenewalOptions {
  timeoutMs?: number;
}

/**
 * One renewal for any number of concurrent callers: the first starts `renew`, the others join it, and the next
 * call after it settled starts a new one. `renew` gets a signal that fires at the time bound, or when every caller
 * has aborted; it must then leave the stored tokens alone.
 */
export function createSharedRenewal(
  renew: (signal: AbortSignal) => Promise<void>,
  { timeoutMs = SILENT_RENEW_TIMEOUT_MS }: SharedRenewalOptions = {},
): RenewSession {
  let state: RenewalState = { status: 'idle' };

  function start(): Extract<RenewalState, { status: 'renewing' }> {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new SilentRenewTimeoutError(`The silent sign-in took over ${timeoutMs} ms`)),
      timeoutMs,
    );
    const running = {
      status: 'renewing' as const,
      controller,
      waiting: 0,
      done: untilAborted(
        Promise.resolve().then(() => renew(controller.signal)),
        controller.signal,
      ).finally(() => {
        clearTimeout(timer);
        if (state === running) state = { status: 'idle' };
      }),
    };
    return running;
  }

  return async ({ signal } = {}) => {
    if (signal?.aborted) throw abortError(signal);
    const running = state.status === 'renewing' ? state : (state = start());
    running.waiting += 1;
    try {
      await untilAborted(running.done, signal);
    } finally {
      running.waiting -= 1;
      // Nobody waits any more (the page that asked is gone): stop the renewal instead of letting it finish unseen.
      if (running.waiting === 0 && signal?.aborted) running.controller.abort(abortError(signal));
    }
  };
}

/** A token set whose ID token names its user (okta-auth-js's Tokens). */
type TokenSet = { idToken?: { claims?: { sub?: unknown } } };

/** The provider's session now belongs to someone else (signed in as another user in another tab). */
export class SilentRenewUserChangedError extends Error {
  override readonly name = 'SilentRenewUserChangedError';
}

/** The parts of okta-auth-js's OktaAuth a silent renewal uses, by shape (tests pass fakes). */
export interface SilentRenewClient<T extends TokenSet> {
  token: {
    getWithoutPrompt(params: { timeout: number }): Promise<{ tokens: T }>;
    renewTokens(...args: never[]): Promise<T>;
  };
  tokenManager: { getTokensSync(): T; setTokens(tokens: T): void };
}

/**
 * New tokens from the provider's session cookie, without a visible page (prompt=none, response_mode
 * okta_post_message), stored in place of the old ones, a new refresh token included. A renewal abandoned or
 * timed out stores nothing, and so does one whose user is not the page's (the provider's session changed hands):
 * the page then signs in again instead of carrying on as someone else.
 */
export function silentRenewOf<T extends TokenSet>(
  client: Pick<SilentRenewClient<T>, 'token' | 'tokenManager'>,
  timeoutMs: number = SILENT_RENEW_TIMEOUT_MS,
): (signal: AbortSignal) => Promise<void> {
  return async (signal) => {
    const { tokens } = await untilAborted(client.token.getWithoutPrompt({ timeout: timeoutMs }), signal);
    if (signal.aborted) throw abortError(signal);
    const before = client.tokenManager.getTokensSync().idToken?.claims?.sub;
    const after = tokens.idToken?.claims?.sub;
    if (before !== undefined && after !== before) {
      throw new SilentRenewUserChangedError("The identity provider's session is another user's");
    }
    client.tokenManager.setTokens(tokens);
  };
}

/** The provider refused the refresh token (an okta-auth-js OAuthError): its grant has ended. */
export function isInvalidGrant(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { errorCode?: unknown }).errorCode === 'invalid_grant'
  );
}

const installed = new WeakMap<object, RenewSession>();

/**
 * The session renewal of the portal's OpenID client, installed once per client:
 * - returns the shared silent renewal, for the API client's refused-token path (PortalAuth.renewSession);
 * - makes the client's own refresh (token.renewTokens: its automatic renewal before expiry, and refreshUser)
 *   fall back to that silent renewal when the provider answers invalid_grant, so an ended grant renews with the
 *   session cookie instead of dropping the tokens. Only when the silent renewal fails too does the refresh
 *   error stand (the client then drops the token, and the page signs in again as before).
 */
export function installSilentRenewal<T extends TokenSet>(
  client: SilentRenewClient<T>,
  options: SharedRenewalOptions = {},
) {
  const known = installed.get(client);
  if (known) return known;
  const timeoutMs = options.timeoutMs ?? SILENT_RENEW_TIMEOUT_MS;
  const renewSession = createSharedRenewal(silentRenewOf(client, timeoutMs), { timeoutMs });
  const refresh = client.token.renewTokens.bind(client.token) as (...args: never[]) => Promise<T>;
  client.token.renewTokens = async (...args: never[]) => {
    try {
      return await refresh(...args);
    } catch (error) {
      if (!isInvalidGrant(error)) throw error;
      try {
        await renewSession();
      } catch {
        throw error;
      }
      return client.tokenManager.getTokensSync();
    }
  };
  installed.set(client, renewSession);
  return renewSession;
}
