import {
  accessTokenGetterOf,
  createSignInAgain,
  createSignOut,
  renewUserClaims,
  SignOutError,
} from './oidc-client.js';

interface Tokens {
  idToken?: { idToken: string };
  accessToken?: { accessToken: string };
  refreshToken?: { refreshToken: string };
}

function fakeClient(signOut: (tokens: Tokens) => Promise<unknown> = async () => true) {
  let stored: Tokens = {
    idToken: { idToken: 'id' },
    accessToken: { accessToken: 'at' },
    refreshToken: { refreshToken: 'rt' },
  };
  return {
    tokenManager: {
      getTokensSync: () => stored,
      setTokens: jest.fn((tokens: Tokens) => (stored = tokens)),
    },
    token: { renewTokens: jest.fn<Promise<Tokens>, []>() },
    signOut: jest.fn(signOut),
    /** What window.localStorage.clear() does to the client's token storage. */
    forget: () => (stored = {}),
  };
}

describe('accessTokenGetterOf', () => {
  it("reads the client's current access token", () => {
    expect(accessTokenGetterOf(fakeClient())()).toBe('at');
  });
});

describe('createSignOut', () => {
  it('clears local storage, then signs out of the provider with the tokens it had', async () => {
    const client = fakeClient();
    window.localStorage.setItem('stepUp', '{}');
    await createSignOut(client)();
    expect(window.localStorage.length).toBe(0);
    expect(client.signOut).toHaveBeenCalledWith({
      idToken: { idToken: 'id' },
      accessToken: { accessToken: 'at' },
      refreshToken: { refreshToken: 'rt' },
    });
  });

  it('says so when the provider cannot be reached, and a second attempt still has the tokens', async () => {
    const client = fakeClient(() => Promise.reject(new TypeError('Failed to fetch')));
    const storage = { clear: jest.fn(() => client.forget()) };
    const signOut = createSignOut(client, storage);
    await expect(signOut()).rejects.toEqual(
      new SignOutError('Logout failed: the sign-in service could not be reached. Please try again.'),
    );
    expect(storage.clear).toHaveBeenCalledTimes(1);

    client.signOut.mockResolvedValueOnce(true);
    await signOut();
    expect(client.signOut).toHaveBeenLastCalledWith(expect.objectContaining({ idToken: { idToken: 'id' } }));
  });
});

describe('renewUserClaims', () => {
  it('stores the renewed tokens', async () => {
    const client = fakeClient();
    const tokens = { idToken: { idToken: 'new-id' }, accessToken: { accessToken: 'new-access' } };
    client.token.renewTokens.mockResolvedValue(tokens);
    await renewUserClaims(client);
    expect(client.tokenManager.setTokens).toHaveBeenCalledWith(tokens);
  });

  it('keeps the stored tokens (the user stays signed in) when the identity provider cannot be reached', async () => {
    const client = fakeClient();
    client.token.renewTokens.mockRejectedValue(new TypeError('Failed to fetch'));
    await expect(renewUserClaims(client)).rejects.toThrow('Failed to fetch');
    expect(client.tokenManager.setTokens).not.toHaveBeenCalled();
    expect(accessTokenGetterOf(client)()).toBe('at');
  });
});

describe('createSignInAgain', () => {
  it('asks the provider for the credentials again (prompt=login, max_age=0) and comes back to returnTo', async () => {
    const signInWithRedirect = jest.fn(() => Promise.resolve());
    await createSignInAgain({ signInWithRedirect })({ returnTo: '/security' });
    expect(signInWithRedirect).toHaveBeenCalledWith({ originalUri: '/security', prompt: 'login', maxAge: 0 });
  });

  it('rejects when the redirect cannot start (the provider unreachable)', async () => {
    const signInWithRedirect = jest.fn(() => Promise.reject(new Error('unreachable')));
    await expect(createSignInAgain({ signInWithRedirect })({ returnTo: '/security' })).rejects.toThrow(
      'unreachable',
    );
  });
});
