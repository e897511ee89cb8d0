import { Alert } from 'shared-ui';

/** A failed return from the identity provider (spec section 8: 'Error: message'). */
export function LoginError({ error }: { error: Error }) {
  return (
    <main style={{ padding: 24 }}>
      <Alert type="error" showIcon title={`Error: ${error.message}`} />
    </main>
  );
}
