import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { CodeAttempts } from '../../factors/code-attempts.js';
import { PreferredMethods } from '../../factors/preferred-method.js';
import { OktaIdentity } from '../../identity/okta/identity.js';
import type { PasskeyBackend } from '../../passkeys/backend.js';
import { EmbeddedPasskeyBackend } from '../../passkeys/embedded-backend.js';
import { OktaPasskeyBackend } from '../../passkeys/okta-backend.js';
import { PasskeyService } from '../../passkeys/service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Passkeys: the list, registration, rename, removal and step-up (/api/passkeys, /api/stepup/:sub/passkey). */
    passkeys: PasskeyService;
    /** "Use by default" on a 2-step method (issue 22; /api/v1/users/:sub/multifactor/preferred). */
    preferredMethods: PreferredMethods;
  }
}

const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/** Where the passkeys live: the portal's storage (embedded), or the Okta org's webauthn factors. */
function backendOf(app: FastifyInstance): PasskeyBackend {
  const { storage, identity, notifier, now, config } = app;
  if (identity instanceof OktaIdentity) {
    return new OktaPasskeyBackend({
      factors: identity.webauthn,
      storage,
      rpId: config.oktaPasskeyRpId,
      publicUrl: config.PUBLIC_URL,
      now,
      log: app.log,
    });
  }
  return new EmbeddedPasskeyBackend({
    storage,
    rp: config.passkeyRp,
    now,
    onCloned: async (passkey, tx, userAgent) => {
      const user = await tx.users.findById(passkey.userId);
      if (user) {
        await notifier.queue(
          user,
          { type: 'passkey-cloned', name: passkey.name },
          { userAgent, at: now() },
          tx.outbox,
        );
      }
    },
  });
}

/**
 * Passkeys (passkeys/): WebAuthn credentials as 2-step methods. Embedded: kept in the portal's storage, for the
 * relying party of PUBLIC_URL and PASSKEY_RP_ID (config.passkeyRp). Okta mode: the org's webauthn factors, the
 * ceremony on the portal's pages when OKTA_PASSKEY_RP_ID is set, else Okta's hosted enrolment.
 * Provides `app.passkeys` and `app.preferredMethods` (the default 2-step method, which weighs the passkeys);
 * prunes expired challenges every 10 minutes. Depends on: storage, identity, notifications, factors (the step-up, the set-up guard, the changes' session ending and notices).
 */
export default fp(
  async function passkeysPlugin(app: FastifyInstance) {
    const { storage, identity, notifier, now } = app;
    const passkeys = new PasskeyService({
      backend: backendOf(app),
      storage,
      identity,
      stepUp: app.stepUp,
      factors: app.factors,
      // The wrong-code throttle is stored: this instance counts in the same rows as the factors' codes.
      attempts: new CodeAttempts({ storage, notifier, now, log: app.log }),
      now,
    });
    app.decorate('passkeys', passkeys);
    // Here, not with the factors: the methods it weighs and the step-up it needs include the passkeys Okta holds.
    app.decorate(
      'preferredMethods',
      new PreferredMethods({
        storage,
        requireStepUp: (actor) => passkeys.requireStepUp(actor),
        activeMethods: async (actor) =>
          (await passkeys.challenge(actor.user, actor.grantKey)).activeFactorsData,
        now,
      }),
    );
    const prune = () =>
      passkeys.prune().catch((error: unknown) => app.log.warn({ err: error }, 'passkeys: could not prune'));
    await prune();
    const timer = setInterval(() => void prune(), PRUNE_INTERVAL_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  },
  { name: 'passkeys', dependencies: ['storage', 'identity', 'notifications', 'factors'] },
);
