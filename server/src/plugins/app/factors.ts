import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { FactorService } from '../../factors/service.js';

declare module 'fastify' {
  interface FastifyInstance {
    factors: FactorService;
  }
}

const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Factors: the portal's rules for 2-step factors (step-up and its grants, throttles, the last-factor rule, ending
 * the other sessions, notices) over the identity backend that holds them. Provides `app.factors`, the service every
 * security route and the sign-in step use; prunes expired grants and throttle events every 10 minutes. Depends on:
 * storage, identity, notifications (notices), token-verification (the sessions a factor change ends).
 */
export default fp(
  async function factorsPlugin(app: FastifyInstance) {
    const service = new FactorService({
      identity: app.identity,
      storage: app.storage,
      sessions: app.accountSessions,
      notifier: app.notifier,
      now: app.now,
      log: app.log,
    });
    app.decorate('factors', service);

    const prune = () =>
      service.prune().catch((error: unknown) => app.log.warn({ err: error }, 'factors: could not prune'));
    await prune();
    const timer = setInterval(() => void prune(), PRUNE_INTERVAL_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  },
  { name: 'factors', dependencies: ['storage', 'identity', 'notifications', 'token-verification'] },
);
