// The silent renewal: shared by concurrent callers, bounded in time, abandoned by aborting callers, and the
// refresh-token fallback of the OpenID client (invalid_grant → renew with the session cookie).
import {
  createSharedRenewal,
  installSilentRenewal,
  silentRenewOf,
  SilentRenewTimeoutError,
  SilentRenewUserChangedError,
} from './renewal.js';

interface Tokens {
  idToken?: { claims: { sub: string } };
  accessToken?: { accessToken: string };
  refreshToken?: { refreshToken: string };
}

/** okta-auth-js's OAuthError as the token endpoint's invalid_grant answer makes it. */
function invalidGrant() {
  return Object.assign(new Error('grant request is invalid'), {
    name: 'OAuthError',
    errorCode: 'invalid_grant',
  });
}

/** An OpenID client whose refresh and silent sign-in do what the test says. */
function fakeClient({
  refresh = () => Promise.reject(invalidGrant()),
  silent = async () => ({
    tokens: { accessToken: { accessToken: 'at-2' }, refreshToken: { refreshToken: 'rt-2' } },
  }),
}: {
  refresh?: () => Promise<Tokens>;
  silent?: () => Promise<{ tokens: Tokens }>;
} = {}) {
  let stored: Tokens = { accessToken: { accessToken: 'at-1' }, refreshToken: { refreshToken: 'rt-1' } };
  return {
    token: {
      getWithoutPrompt: jest.fn((_params: { timeout: number }) => silent()),
      renewTokens: jest.fn((..._args: never[]) => refresh()),
    },
    tokenManager: {
      getTokensSync: () => stored,
      setTokens: jest.fn((tokens: Tokens) => (stored = tokens)),
    },
  };
}

describe('createSharedRenewal', () => {
  afterEach(() => jest.useRealTimers());

  it('runs one renewal for concurrent callers, and a new one once it has settled', async () => {
    let release!: () => void;
    const renew = jest.fn(() => new Promise<void>((done) => (release = done)));
    const renewSession = createSharedRenewal(renew);
    const waiting = [renewSession(), renewSession(), renewSession()];
    await Promise.resolve();
    release();
    await Promise.all(waiting);
    expect(renew).toHaveBeenCalledTimes(1);
    const next = renewSession();
    await Promise.resolve();
    release();
    await next;
    expect(renew).toHaveBeenCalledTimes(2);
  });

  it('gives every waiting caller the failure of the one renewal', async () => {
    const renew = jest.fn(() => Promise.reject(new Error('login_required')));
    const renewSession = createSharedRenewal(renew);
    const results = await Promise.allSettled([renewSession(), renewSession()]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(renew).toHaveBeenCalledTimes(1);
  });

  it('gives up at its time bound, and tells the renewal to stop', async () => {
    jest.useFakeTimers();
    const renew = jest.fn((_signal: AbortSignal) => new Promise<void>(() => undefined));
    const outcome = createSharedRenewal(renew, { timeoutMs: 3000 })().catch((error: unknown) => error);
    await jest.advanceTimersByTimeAsync(2999);
    expect(renew.mock.calls[0]?.[0].aborted).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await outcome).toBeInstanceOf(SilentRenewTimeoutError);
    expect(renew.mock.calls[0]?.[0].aborted).toBe(true);
  });

  it('stops the renewal only when every caller waiting for it has aborted', async () => {
    const renew = jest.fn((_signal: AbortSignal) => new Promise<void>(() => undefined));
    const renewSession = createSharedRenewal(renew);
    const first = new AbortController();
    const second = new AbortController();
    const waits = [first, second].map((controller) =>
      renewSession({ signal: controller.signal }).catch((error: unknown) => error),
    );
    first.abort();
    await waits[0];
    expect(renew.mock.calls[0]?.[0].aborted).toBe(false);
    second.abort();
    await waits[1];
    expect(renew.mock.calls[0]?.[0].aborted).toBe(true);
  });
});

describe('silentRenewOf', () => {
  it('signs in without a page (prompt=none) and stores the new tokens, the refresh token too', async () => {
    const client = fakeClient();
    await silentRenewOf(client, 5000)(new AbortController().signal);
    expect(client.token.getWithoutPrompt).toHaveBeenCalledWith({ timeout: 5000 });
    expect(client.tokenManager.getTokensSync()).toEqual({
      accessToken: { accessToken: 'at-2' },
      refreshToken: { refreshToken: 'rt-2' },
    });
  });

  it("stores nothing when the provider's session is now another user's: the page signs in again", async () => {
    const client = fakeClient({
      silent: async () => ({ tokens: { idToken: { claims: { sub: '00u-mallory' } } } }),
    });
    client.tokenManager.setTokens({ idToken: { claims: { sub: '00u-alice' } } });
    client.tokenManager.setTokens.mockClear();
    await expect(silentRenewOf(client)(new AbortController().signal)).rejects.toBeInstanceOf(
      SilentRenewUserChangedError,
    );
    expect(client.tokenManager.setTokens).not.toHaveBeenCalled();
  });

  it('stores nothing when the renewal was abandoned before the provider answered', async () => {
    let answer!: (value: { tokens: Tokens }) => void;
    const client = fakeClient({ silent: () => new Promise((done) => (answer = done)) });
    const controller = new AbortController();
    const renewal = silentRenewOf(client)(controller.signal).catch((error: unknown) => error);
    controller.abort();
    answer({ tokens: { accessToken: { accessToken: 'late' } } });
    await renewal;
    expect(client.tokenManager.setTokens).not.toHaveBeenCalled();
  });
});

describe('installSilentRenewal', () => {
  it('renews with the session cookie when the refresh token is refused (invalid_grant)', async () => {
    const client = fakeClient();
    installSilentRenewal(client);
    await expect(client.token.renewTokens()).resolves.toEqual({
      accessToken: { accessToken: 'at-2' },
      refreshToken: { refreshToken: 'rt-2' },
    });
    expect(client.token.getWithoutPrompt).toHaveBeenCalledTimes(1);
  });

  it('lets the refresh error stand when the silent renewal fails too (the page signs in again)', async () => {
    const client = fakeClient({ silent: () => Promise.reject(new Error('login_required')) });
    installSilentRenewal(client);
    await expect(client.token.renewTokens()).rejects.toMatchObject({ errorCode: 'invalid_grant' });
  });

  it('does not renew silently for other refresh failures (the provider unreachable)', async () => {
    const client = fakeClient({ refresh: () => Promise.reject(new TypeError('Failed to fetch')) });
    installSilentRenewal(client);
    await expect(client.token.renewTokens()).rejects.toThrow('Failed to fetch');
    expect(client.token.getWithoutPrompt).not.toHaveBeenCalled();
  });

  it('is installed once per client, and the API path and the refresh path share one renewal', async () => {
    let release!: (value: { tokens: Tokens }) => void;
    const client = fakeClient({ silent: () => new Promise((done) => (release = done)) });
    const renewSession = installSilentRenewal(client);
    expect(installSilentRenewal(client)).toBe(renewSession);
    const fromApi = renewSession();
    const fromRefresh = client.token.renewTokens();
    await new Promise((resolve) => setTimeout(resolve, 0));
    release({ tokens: { accessToken: { accessToken: 'at-3' } } });
    await fromApi;
    await expect(fromRefresh).resolves.toEqual({ accessToken: { accessToken: 'at-3' } });
    expect(client.token.getWithoutPrompt).toHaveBeenCalledTimes(1);
  });
});
