import { render, screen } from '@testing-library/react';
import { AuthProvider, useAuth } from '../auth-context.js';
import { useSignedInSession, type SessionSource } from './useSignedInSession.js';

function Page() {
  const { user, isFederated, flagBaseUrl } = useAuth();
  return (
    <section aria-label="Page">
      <h1>{user.name}</h1>
      <p>
        {user.email}, {user.country}, {isFederated ? 'federated' : 'local'}, flags at {flagBaseUrl}
      </p>
    </section>
  );
}

function Portal(source: SessionSource) {
  const session = useSignedInSession(source);
  if (!session) return <p>Loading</p>;
  return (
    <AuthProvider value={session}>
      <Page />
    </AuthProvider>
  );
}

const claims = {
  sub: '00u1',
  email: 'tess@example.org',
  given_name: 'Tess',
  family_name: 'Tester',
  country: 'de',
  iss: 'http://localhost:3000/oauth2/default',
};

describe('useSignedInSession', () => {
  it('gives the page the user from the ID-token claims, the flag and the API settings', () => {
    render(
      <Portal
        claims={claims}
        getAccessToken={() => 'token'}
        apiBaseUrl=""
        flagBaseUrl="/flags/4x3"
        isFederated={false}
      />,
    );
    expect(screen.getByRole('heading', { level: 1, name: 'Tess Tester' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Page' })).toHaveTextContent(
      'tess@example.org, DE, local, flags at /flags/4x3',
    );
  });

  it('names the user by the name claim when there is one', () => {
    render(
      <Portal
        claims={{ ...claims, name: 'Tess T.' }}
        getAccessToken={() => 'token'}
        apiBaseUrl=""
        flagBaseUrl=""
        isFederated
      />,
    );
    expect(screen.getByRole('heading', { level: 1, name: 'Tess T.' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Page' })).toHaveTextContent('federated');
  });
});
