import { act, render, screen } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import type { RemoteMountOptions } from 'shared-auth';
import { PortalThemeProvider } from 'shared-ui';
import { HarnessPage } from './HarnessPage.js';
import type { HarnessAuth } from './signIn.js';

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });

/** The signed-in user's claims in the ID token. */
const TESS = {
  sub: '00u1',
  email: 'tess@example.org',
  given_name: 'Tess',
  family_name: 'Tester',
  name: 'Tess Tester',
  country: 'DE',
};

function fakeAuth() {
  const listeners = new Set<(key: string) => void>();
  let claims: Record<string, unknown> = { ...TESS, iss: 'http://localhost:3000/oauth2/default' };
  const auth = {
    tokenManager: {
      getTokensSync: () => ({ idToken: { claims }, accessToken: { accessToken: 'at-1' } }),
      on: (_event: string, listener: (key: string) => void) => listeners.add(listener),
      off: (_event: string, listener: (key: string) => void) => listeners.delete(listener),
      clear: jest.fn(),
      setTokens: (tokens: { idToken: { claims: Record<string, unknown> } }) => {
        claims = tokens.idToken.claims;
        listeners.forEach((listener) => listener('idToken'));
      },
    },
    token: {
      renewTokens: jest.fn(async () => ({ idToken: { claims: { ...claims, name: 'Tess Renamed' } } })),
      // The provider's session cookie signs in again without a page (prompt=none in a hidden iframe).
      getWithoutPrompt: jest.fn(async () => ({
        tokens: { idToken: { claims: { ...claims, name: 'Tess Silent' } } },
      })),
    },
    signOut: jest.fn(async () => true),
    signInWithRedirect: jest.fn(async () => undefined),
  };
  return auth as unknown as HarnessAuth & {
    signOut: jest.Mock;
    signInWithRedirect: jest.Mock;
    token: { renewTokens: jest.Mock; getWithoutPrompt: jest.Mock };
    tokenManager: { clear: jest.Mock };
  };
}

/** The harness around a page that mounts nothing: for what the header does on its own. */
function renderWithEmptyPage(auth: HarnessAuth) {
  render(
    <PortalThemeProvider>
      <HarnessPage
        remote="remote-test"
        mount={() => () => undefined}
        auth={auth}
        apiBaseUrl=""
        flagBaseUrl=""
      />
    </PortalThemeProvider>,
  );
}

describe('HarnessPage', () => {
  it('shows who is signed in, mounts the page with their claims, and unmounts it when it goes', async () => {
    const unmount = jest.fn();
    const mount = jest.fn((element: HTMLElement, _options: RemoteMountOptions) => {
      element.textContent = 'the mounted page';
      return unmount;
    });
    const auth = fakeAuth();
    const view = render(
      <PortalThemeProvider>
        <HarnessPage
          remote="remote-test"
          mount={mount}
          auth={auth}
          apiBaseUrl="http://localhost:3000"
          flagBaseUrl="http://localhost:3000/flags/4x3"
        />
      </PortalThemeProvider>,
    );
    expect(screen.getByRole('banner')).toHaveTextContent('remote-test');
    expect(screen.getByRole('banner')).toHaveTextContent('Signed in as Tess Tester');
    expect(screen.queryByRole('navigation')).not.toBeInTheDocument();
    expect(screen.getByRole('main')).toHaveTextContent('the mounted page');

    expect(mount).toHaveBeenCalledTimes(1);
    const [element, options] = mount.mock.calls[0]!;
    expect(screen.getByRole('main')).toContainElement(element);
    // The user claims, without the token's own (iss).
    expect(options.user).toEqual(TESS);
    expect(options.apiBaseUrl).toBe('http://localhost:3000');
    expect(options.flagBaseUrl).toBe('http://localhost:3000/flags/4x3');
    expect(await options.getAccessToken()).toBe('at-1');

    // A profile save renews the ID token: the header follows, the page is not mounted again.
    await act(() => options.refreshUser!());
    expect(screen.getByRole('banner')).toHaveTextContent('Signed in as Tess Renamed');
    expect(mount).toHaveBeenCalledTimes(1);

    // "Confirm it's you" by a new sign-in: the provider asks again, and the harness comes back to this address.
    await options.signInAgain!({ returnTo: '/security' });
    expect(auth.signInWithRedirect).toHaveBeenCalledWith({
      originalUri: '/security',
      prompt: 'login',
      maxAge: 0,
    });

    view.unmount();
    expect(unmount).toHaveBeenCalledTimes(1);
  });

  it('signs out with Sign out', async () => {
    const auth = fakeAuth();
    renderWithEmptyPage(auth);
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(auth.signOut).toHaveBeenCalled();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('says so when Sign out cannot reach the identity provider, and lets the user try again', async () => {
    const auth = fakeAuth();
    auth.signOut.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    renderWithEmptyPage(auth);
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Logout failed: the sign-in service could not be reached. Please try again.',
    );
    await userEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(auth.signOut).toHaveBeenCalledTimes(2);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('renews silently when a password or 2-step change ended the grant, and signs in again only if that fails', async () => {
    const mount = jest.fn((_element: HTMLElement, _options: RemoteMountOptions) => () => undefined);
    const auth = fakeAuth();
    // The client's own refresh, before the harness puts the silent fallback around it.
    const refresh = auth.token.renewTokens;
    render(
      <PortalThemeProvider>
        <HarnessPage remote="remote-test" mount={mount} auth={auth} apiBaseUrl="" flagBaseUrl="" />
      </PortalThemeProvider>,
    );
    const [, options] = mount.mock.calls[0]!;

    // The API refused the token: the page's renewal signs in without a page, with the session cookie.
    await act(() => options.renewSession!({}));
    expect(auth.token.getWithoutPrompt).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('banner')).toHaveTextContent('Signed in as Tess Silent');

    // The refresh token was refused (invalid_grant): the profile save's renewal falls back to the same.
    refresh.mockRejectedValueOnce(
      Object.assign(new Error('grant request is invalid'), {
        name: 'OAuthError',
        errorCode: 'invalid_grant',
      }),
    );
    await act(() => options.refreshUser!());
    expect(auth.token.getWithoutPrompt).toHaveBeenCalledTimes(2);

    // The renewal failed too: the harness drops the tokens and signs in again, back to this address.
    options.onSessionEnded!();
    expect(auth.tokenManager.clear).toHaveBeenCalledTimes(1);
    expect(auth.signInWithRedirect).toHaveBeenCalledWith({ originalUri: '/' });
  });
});
