import { createRoot } from 'react-dom/client';

// Opened directly, the remote's own page explains where it belongs.
const container = document.getElementById('root');
if (container) {
  createRoot(container).render(
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: 24 }}>
      <h1>remote-security {__APP_VERSION__}</h1>
      <p>
        This is the Security remote of the account portal (step-up verification and 2-step factors). The
        portal shell loads it from remoteEntry.js.
      </p>
    </main>,
  );
}
