import { render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { useOktaAuth } from '@okta/okta-react';
import { RequireAuth } from './RequireAuth.js';

jest.mock('@okta/okta-react', () => ({ useOktaAuth: jest.fn() }));
jest.mock('@okta/okta-auth-js/core', () => ({
  toRelativeUrl: (url: string, origin: string) => url.replace(origin, ''),
}));

function renderSecureRoute(signInWithRedirect: () => Promise<void>, isAuthenticated = false) {
  const oktaAuth = { setOriginalUri: jest.fn(), signInWithRedirect: jest.fn(signInWithRedirect) };
  jest.mocked(useOktaAuth).mockReturnValue({
    oktaAuth,
    authState: { isAuthenticated },
  } as unknown as ReturnType<typeof useOktaAuth>);
  render(
    <MemoryRouter initialEntries={['/profile']}>
      <Routes>
        <Route element={<RequireAuth />}>
          <Route path="/profile" element={<p>secure page</p>} />
        </Route>
      </Routes>
    </MemoryRouter>,
  );
  return oktaAuth;
}

describe('RequireAuth', () => {
  beforeEach(() => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });

  it('shows Loading while an unauthenticated visitor is sent to sign-in', async () => {
    const oktaAuth = renderSecureRoute(() => new Promise<void>(() => undefined));
    expect(await screen.findByRole('dialog', { name: 'Loading' })).toBeInTheDocument();
    expect(oktaAuth.setOriginalUri).toHaveBeenCalledWith('/');
    expect(oktaAuth.signInWithRedirect).toHaveBeenCalledTimes(1);
    expect(screen.queryByText('secure page')).not.toBeInTheDocument();
  });

  it('says why when sign-in cannot start (the identity provider is unreachable), instead of Loading forever', async () => {
    renderSecureRoute(() => Promise.reject(new TypeError('Failed to fetch')));
    expect(await screen.findByText('Error: Failed to fetch')).toBeInTheDocument();
    expect(
      screen.getByText('Signing in is not possible right now. Please try again in a few minutes.'),
    ).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Loading' })).not.toBeInTheDocument();
  });

  it('renders the secure page for a signed-in visitor', () => {
    const oktaAuth = renderSecureRoute(() => Promise.resolve(), true);
    expect(screen.getByText('secure page')).toBeInTheDocument();
    expect(oktaAuth.signInWithRedirect).not.toHaveBeenCalled();
  });
});
