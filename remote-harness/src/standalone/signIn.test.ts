import { testSettings } from 'shared-auth/testing';
import { createHarnessAuth, ensureSignedIn, type HarnessAuth } from './signIn.js';

function fakeAuth(authenticated: boolean) {
  const tokens = { idToken: { idToken: 'id' }, accessToken: { accessToken: 'at' }, refreshToken: undefined };
  return {
    isAuthenticated: jest.fn(async () => authenticated),
    handleLoginRedirect: jest.fn(async () => undefined),
    signInWithRedirect: jest.fn(async () => undefined),
    start: jest.fn(async () => undefined),
    signOut: jest.fn(async () => true),
    tokenManager: { getTokensSync: () => tokens },
  } as unknown as HarnessAuth & Record<string, jest.Mock>;
}

const at = (href: string) => new URL(href) as unknown as Location;

describe('ensureSignedIn', () => {
  it('sends a visitor without tokens to sign in, remembering where they were', async () => {
    const auth = fakeAuth(false);
    await expect(ensureSignedIn(auth, at('http://localhost:3001/?x=1#top'))).resolves.toEqual({
      status: 'redirecting',
    });
    expect(auth.signInWithRedirect).toHaveBeenCalledWith({ originalUri: '/?x=1#top' });
    expect(auth.start).not.toHaveBeenCalled();
  });

  it('completes the return from the provider, then starts token renewal', async () => {
    const auth = fakeAuth(false);
    await expect(
      ensureSignedIn(auth, at('http://localhost:3001/login/callback?code=c&state=s')),
    ).resolves.toEqual({ status: 'signed-in' });
    expect(auth.handleLoginRedirect).toHaveBeenCalled();
    expect(auth.signInWithRedirect).not.toHaveBeenCalled();
    expect(auth.start).toHaveBeenCalled();
  });

  it('goes straight on when already signed in', async () => {
    const auth = fakeAuth(true);
    await expect(ensureSignedIn(auth, at('http://localhost:3001/'))).resolves.toEqual({
      status: 'signed-in',
    });
    expect(auth.handleLoginRedirect).not.toHaveBeenCalled();
  });
});

describe('createHarnessAuth', () => {
  it("signs in with the portal's client, coming back to the remote's own origin", () => {
    const { options } = createHarnessAuth(testSettings(), 'http://localhost:3003');
    expect(options).toMatchObject({
      issuer: 'http://localhost:3000/oauth2/default',
      clientId: 'account-portal',
      redirectUri: 'http://localhost:3003/login/callback',
      postLogoutRedirectUri: 'http://localhost:3003/',
      pkce: true,
    });
  });
});
