import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { CodeAttempts } from '../../factors/code-attempts.js';
import { FactorLifecycle } from '../../factors/lifecycle.js';
import { NotMeLinkIssuer } from '../../factors/not-me-links.js';
import { recoveryCodeUse, type UseRecoveryCode } from '../../factors/recovery-code-use.js';
import { RecoveryCodes } from '../../factors/recovery-codes.js';
import { StepUpService } from '../../factors/step-up.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The step-up: challenges, code checks, grants (the password change, the sign-in, /api/stepup). */
    stepUp: StepUpService;
    /** The factors' set-up and changes (/api/multifactor). */
    factors: FactorLifecycle;
    /** Recovery codes: their state, a new set, a use (/api/recoverycodes; the step-up and sign-in use them too). */
    recoveryCodes: RecoveryCodes;
    /** One recovery code's use for a flow outside the signed-in API (the password reset): 'used' or 'wrong'. */
    useRecoveryCode: UseRecoveryCode;
  }
}

const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Factors: the portal's rules for 2-step factors (step-up and its grants, throttles, the last-factor rule, ending
 * the other sessions, notices) over the identity backend that holds them. Provides `app.stepUp` (the password
 * change, the sign-in step and /api/stepup use it), `app.factors` (/api/multifactor) and `app.recoveryCodes` with
 * `app.useRecoveryCode` (/api/recoverycodes, the password reset), sharing one set of code throttles; prunes expired grants and throttle events every 10 minutes. Depends on:
 * storage, identity, notifications (notices), activity (the changes' events), token-verification (the sessions a factor change ends).
 */
export default fp(
  async function factorsPlugin(app: FastifyInstance) {
    const { identity, storage, notifier, now } = app;
    const attempts = new CodeAttempts({ storage, notifier, now, log: app.log });
    // The identity plugin's key, or null where the identity provider's sign-in cannot accept them (Okta).
    const recoveryCodes = new RecoveryCodes({
      key: app.recoveryCodeKey,
      identity,
      storage,
      attempts,
      notifier,
      activity: app.activity,
      now,
    });
    app.decorate('recoveryCodes', recoveryCodes);
    app.decorate('useRecoveryCode', recoveryCodeUse(recoveryCodes, identity));
    const stepUp = new StepUpService({ identity, storage, attempts, recoveryCodes, now });
    app.decorate('stepUp', stepUp);
    const sessions = app.accountSessions;
    app.decorate(
      'factors',
      new FactorLifecycle({
        identity,
        storage,
        stepUp,
        attempts,
        sessions,
        notifier,
        activity: app.activity,
        now,
        // The method-added notices' "This wasn't me" link, where the portal can remove the method (embedded).
        notMeLinks:
          app.config.identityBackend === 'embedded'
            ? new NotMeLinkIssuer({ portalUrl: app.config.PUBLIC_URL, now })
            : undefined,
      }),
    );

    const prune = () =>
      stepUp.prune().catch((error: unknown) => app.log.warn({ err: error }, 'factors: could not prune'));
    await prune();
    const timer = setInterval(() => void prune(), PRUNE_INTERVAL_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  },
  {
    name: 'factors',
    dependencies: ['storage', 'identity', 'notifications', 'activity', 'token-verification'],
  },
);
