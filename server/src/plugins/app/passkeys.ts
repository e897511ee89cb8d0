import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { CodeAttempts } from '../../factors/code-attempts.js';
import { PasskeyService } from '../../passkeys/service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Passkeys: the list, registration, rename, removal and step-up (/api/passkeys, /api/stepup/:sub/passkey). */
    passkeys: PasskeyService;
  }
}

const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Passkeys (passkeys/): WebAuthn credentials as 2-step methods, for the relying party of PUBLIC_URL and
 * PASSKEY_RP_ID (config.passkeyRp). Available with the embedded backend; Okta mode answers them unavailable.
 * Provides `app.passkeys`; prunes expired challenges every 10 minutes. Depends on: storage, identity,
 * notifications, factors (the step-up, the set-up guard, the changes' session ending and notices).
 */
export default fp(
  async function passkeysPlugin(app: FastifyInstance) {
    const { storage, identity, notifier, now } = app;
    const passkeys = new PasskeyService({
      available: app.config.identityBackend === 'embedded',
      rp: app.config.passkeyRp,
      storage,
      identity,
      stepUp: app.stepUp,
      factors: app.factors,
      // The wrong-code throttle is stored: this instance counts in the same rows as the factors' codes.
      attempts: new CodeAttempts({ storage, notifier, now, log: app.log }),
      notifier,
      now,
    });
    app.decorate('passkeys', passkeys);
    const prune = () =>
      passkeys.prune().catch((error: unknown) => app.log.warn({ err: error }, 'passkeys: could not prune'));
    await prune();
    const timer = setInterval(() => void prune(), PRUNE_INTERVAL_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  },
  { name: 'passkeys', dependencies: ['storage', 'identity', 'notifications', 'factors'] },
);
