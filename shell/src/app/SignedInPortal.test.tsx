import { render, screen, within } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { useOktaAuth } from '@okta/okta-react';
import { PortalThemeProvider } from 'shared-ui';
import { useApiClient, useAuth } from 'shared-auth';
import { useState, type ReactNode } from 'react';
import { testSettings } from 'shared-auth/testing';
import { SignedInPortal } from './SignedInPortal.js';

jest.mock('@okta/okta-react', () => ({ useOktaAuth: jest.fn() }));
jest.mock('../features/remotes/api/remotesConfig.js', () => ({ preloadPageModule: jest.fn() }));

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });

const settings = testSettings();

const claims = { sub: '00u1', email: 'alice@example.org', given_name: 'Alice', family_name: 'Liddell' };

/** A page that reads the session, as the remotes do. */
function ProfileStandIn() {
  const { signInAgain } = useAuth();
  return (
    <>
      <h1>My Profile</h1>
      <button type="button" onClick={() => void signInAgain?.({ returnTo: '/security' })}>
        Sign in again
      </button>
    </>
  );
}

/** A page that makes an account API call, as the remotes do after a password change. */
function CallingStandIn() {
  const client = useApiClient();
  const [result, setResult] = useState('');
  return (
    <>
      <h1>My Profile</h1>
      <button
        type="button"
        onClick={() =>
          void client.request({ method: 'GET', url: '/api/profile/00u1' }).then(
            () => setResult('Loaded'),
            (error: unknown) => setResult(`Failed: ${(error as Error).message}`),
          )
        }
      >
        Load
      </button>
      <p>{result}</p>
    </>
  );
}

interface Tokens {
  idToken: { idToken: string; claims: typeof claims };
  accessToken: { accessToken: string };
  refreshToken?: { refreshToken: string };
}

/** The signed-in portal with an identity provider whose sign-out does what `signOut` does. */
function renderPortal(
  signOut: () => Promise<boolean>,
  {
    page = <ProfileStandIn />,
    silentSignIn = () => Promise.reject(new Error('login_required')),
  }: { page?: ReactNode; silentSignIn?: () => Promise<{ tokens: Tokens }> } = {},
) {
  let tokens: Tokens = { idToken: { idToken: 'id', claims }, accessToken: { accessToken: 'at' } };
  const oktaAuth = {
    tokenManager: {
      getTokensSync: () => tokens,
      clear: jest.fn(),
      setTokens: jest.fn((renewed: Tokens) => (tokens = renewed)),
    },
    token: { renewTokens: jest.fn(), getWithoutPrompt: jest.fn(silentSignIn) },
    signOut: jest.fn(signOut),
    signInWithRedirect: jest.fn(async () => undefined),
  };
  jest.mocked(useOktaAuth).mockReturnValue({
    oktaAuth,
    authState: { isAuthenticated: true, idToken: { claims } },
  } as unknown as ReturnType<typeof useOktaAuth>);
  render(
    <PortalThemeProvider>
      <MemoryRouter initialEntries={['/profile']}>
        <Routes>
          <Route element={<SignedInPortal settings={settings} />}>
            <Route path="/profile" element={page} />
          </Route>
        </Routes>
      </MemoryRouter>
    </PortalThemeProvider>,
  );
  return oktaAuth;
}

async function logout() {
  // No account API runs here: the federated check fails, which counts as not federated.
  await userEvent.click(await screen.findByRole('button', { name: 'User menu for Alice Liddell' }));
  await userEvent.click(within(await screen.findByRole('menu')).getByRole('menuitem', { name: /Logout/ }));
}

describe('SignedInPortal', () => {
  beforeEach(() => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    window.localStorage.setItem('stepUp', '{}');
  });

  it('shows the page in the layout, named after the signed-in user', async () => {
    renderPortal(async () => true);
    expect(await screen.findByRole('heading', { level: 1, name: 'My Profile' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'User menu for Alice Liddell' })).toBeInTheDocument();
  });

  it("gives the pages a new sign-in that makes the provider ask again (Confirm it's you in Okta mode)", async () => {
    const oktaAuth = renderPortal(async () => true);
    await userEvent.click(await screen.findByRole('button', { name: 'Sign in again' }));
    expect(oktaAuth.signInWithRedirect).toHaveBeenCalledWith({
      originalUri: '/security',
      prompt: 'login',
      maxAge: 0,
    });
  });

  it('Logout clears local storage and signs out of the identity provider with the tokens', async () => {
    const oktaAuth = renderPortal(async () => true);
    await logout();
    expect(window.localStorage.length).toBe(0);
    expect(oktaAuth.signOut).toHaveBeenCalledWith(expect.objectContaining({ idToken: expect.anything() }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('says so when Logout cannot reach the identity provider', async () => {
    renderPortal(() => Promise.reject(new TypeError('Failed to fetch')));
    await logout();
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Logout failed: the sign-in service could not be reached. Please try again.',
    );
  });

  describe('when a password or 2-step change has ended every grant of the account', () => {
    /** The account API: the page loaded with `at`, whose grant then ended; any other token is live. */
    function accountApi() {
      return jest.spyOn(window, 'fetch').mockImplementation(async (url, init) => {
        const authorization = new Headers(init?.headers).get('Authorization');
        if (authorization === 'Bearer at' && !String(url).endsWith('/isfederated')) {
          return new Response(
            JSON.stringify({ error: 'The sign-in session of this access token has ended' }),
            {
              status: 401,
              headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
            },
          );
        }
        return new Response(JSON.stringify(JSON.stringify({ isFederated: false })), { status: 200 });
      });
    }
    const renewed: Tokens = {
      idToken: { idToken: 'id-2', claims },
      accessToken: { accessToken: 'at-2' },
      refreshToken: { refreshToken: 'rt-2' },
    };

    it('renews silently with the session cookie and the call goes through: no sign-in, no dropped tokens', async () => {
      const fetch = accountApi();
      const oktaAuth = renderPortal(async () => true, {
        page: <CallingStandIn />,
        silentSignIn: async () => ({ tokens: renewed }),
      });
      await userEvent.click(await screen.findByRole('button', { name: 'Load' }));
      expect(await screen.findByText('Loaded')).toBeInTheDocument();
      expect(oktaAuth.token.getWithoutPrompt).toHaveBeenCalledTimes(1);
      expect(oktaAuth.tokenManager.setTokens).toHaveBeenCalledWith(renewed);
      expect(oktaAuth.tokenManager.clear).not.toHaveBeenCalled();
      expect(oktaAuth.signInWithRedirect).not.toHaveBeenCalled();
      const sent = fetch.mock.calls.map(([, init]) => new Headers(init?.headers).get('Authorization'));
      expect(sent.slice(-2)).toEqual(['Bearer at', 'Bearer at-2']);
    });

    it('falls back to the sign-in (drops the tokens) when the silent renewal fails', async () => {
      accountApi();
      jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      const oktaAuth = renderPortal(async () => true, { page: <CallingStandIn /> });
      await userEvent.click(await screen.findByRole('button', { name: 'Load' }));
      expect(await screen.findByText(/^Failed:/)).toBeInTheDocument();
      expect(oktaAuth.token.getWithoutPrompt).toHaveBeenCalledTimes(1);
      expect(oktaAuth.tokenManager.clear).toHaveBeenCalledTimes(1);
    });
  });
});
