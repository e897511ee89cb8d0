import { createRoot } from 'react-dom/client';

// Opened directly, the remote's own page explains where it belongs.
const container = document.getElementById('root');
if (container) {
  createRoot(container).render(
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: 24 }}>
      <h1>remote-password {__APP_VERSION__}</h1>
      <p>This is the Password remote of the account portal. The portal shell loads it from remoteEntry.js.</p>
    </main>,
  );
}
