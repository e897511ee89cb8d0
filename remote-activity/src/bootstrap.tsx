import { startStandaloneHarness } from 'remote-harness/standalone';
import { mount } from './exposes/mount.js';

// Opened directly (`pnpm --filter remote-activity dev`, or this remote's origin after `pnpm start`), the remote runs
// alone: sign-in against the portal's identity provider, then the page through its own mount(), no shell.
// This is the `main` entry only: the shell loads remoteEntry.js and the page chunks, never this.
void startStandaloneHarness({ remote: 'remote-activity', mount }).catch((error: unknown) =>
  console.error('The standalone harness could not start:', error),
);
