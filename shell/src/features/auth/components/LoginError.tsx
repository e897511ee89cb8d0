import { Alert } from 'shared-ui';

/**
 * A sign-in that failed: it could not start, or the return from the identity provider failed (spec section 8:
 * 'Error: message'). The browser's reason alone ('Failed to fetch') tells a visitor little, hence the line below.
 */
export function LoginError({ error }: { error: Error }) {
  return (
    <main style={{ padding: 24 }}>
      <Alert
        type="error"
        showIcon
        title={`Error: ${error.message}`}
        description="Signing in is not possible right now. Please try again in a few minutes."
      />
    </main>
  );
}
