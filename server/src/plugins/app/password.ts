import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { passwordThrottle } from '../../password/change-password.js';
import { passwordService, type PasswordService } from '../../password/service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The password change and "Confirm it's you", sharing one throttle of wrong passwords. */
    passwords: PasswordService;
  }
}

/**
 * Password. Provides `app.passwords`, built once: the routes call it. Depends on: storage (transactions, the
 * throttle's events), identity (where the password is checked and changed), factors (the step-up, its grants),
 * token-verification (the sessions a change ends), notifications.
 */
export default fp(
  async function passwordPlugin(app: FastifyInstance) {
    const now = () => app.now();
    app.decorate(
      'passwords',
      passwordService({
        identity: app.identity,
        storage: app.storage,
        throttle: passwordThrottle(app.storage.throttles.passwordChange, now),
        stepUp: app.stepUp,
        sessions: app.accountSessions,
        notifier: app.notifier,
        activity: app.activity,
        now,
      }),
    );
  },
  {
    name: 'password',
    dependencies: ['storage', 'identity', 'factors', 'token-verification', 'notifications', 'activity'],
  },
);
