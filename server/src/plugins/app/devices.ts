import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { DeviceSessions } from '../../devices/sessions.js';
import { signOutProof } from '../../devices/sign-out-proof.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Devices (issue 22): the account's sign-in sessions, listed and signed out (/api/v1/users/:sub/sessions…). */
    devices: DeviceSessions;
  }
}

const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Devices (devices/): the account's sign-in sessions. Embedded mode: the embedded provider's, each described at
 * sign-in (the provider plugin hands `devices.signedIn` to the sign-in's save) and touched by the API's auth hook at
 * most once a minute; rows of expired sessions are deleted at start-up and every 10 minutes. Okta mode: the org's
 * sign-ins the API saw, recorded by the same hook, their rows deleted by the same job once not seen for 8 days; all
 * of the org's sessions end at once through the identity backend. Provides `app.devices`. Depends on: storage, identity,
 * notifications, activity, passkeys (the step-up a change needs, passkeys counted).
 */
export default fp(
  async function devicesPlugin(app: FastifyInstance) {
    const { identity } = app;
    const endAllSessionsAtOrg = identity.endAllSessions?.bind(identity);
    const devices = new DeviceSessions({
      kind: app.config.identityBackend === 'embedded' ? 'provider' : 'org',
      storage: app.storage,
      activity: app.activity,
      notifier: app.notifier,
      now: app.now,
      requireStepUp: signOutProof((actor) => app.passkeys.requireStepUp(actor), app.now),
      endAllSessionsAtOrg,
    });
    app.decorate('devices', devices);
    const prune = () =>
      devices
        .prune()
        .catch((error: unknown) => app.log.warn({ err: error }, 'devices: could not delete ended sessions'));
    await prune();
    const timer = setInterval(() => void prune(), PRUNE_INTERVAL_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  },
  { name: 'devices', dependencies: ['storage', 'identity', 'notifications', 'activity', 'passkeys'] },
);
