import { render, screen, within } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { useOktaAuth } from '@okta/okta-react';
import { PortalThemeProvider } from 'shared-ui';
import { useAuth } from 'shared-auth';
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

/** The signed-in portal with an identity provider whose sign-out does what `signOut` does. */
function renderPortal(signOut: () => Promise<boolean>) {
  const tokens = { idToken: { idToken: 'id', claims }, accessToken: { accessToken: 'at' } };
  const oktaAuth = {
    tokenManager: { getTokensSync: () => tokens, clear: jest.fn(), setTokens: jest.fn() },
    token: { renewTokens: jest.fn() },
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
            <Route path="/profile" element={<ProfileStandIn />} />
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
});
