import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ActivityLog } from '../../activity/log.js';
import { ClientDescriber } from '../../clients/describe.js';
import { CountryDatabase } from '../../clients/country.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The account's security events (issue 22): written by the changes they record, read by /api/v1/users/…/activity. */
    activity: ActivityLog;
  }
}

const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/** The country database, read once at start; without it events are kept without a country (logged). */
function countries(app: FastifyInstance): CountryDatabase | undefined {
  try {
    const database = CountryDatabase.shared();
    app.log.debug({ builtAt: database.builtAt }, 'activity: country database loaded');
    return database;
  } catch (error) {
    app.log.warn(
      { err: error },
      'activity: the country database could not be read; events are kept without a country',
    );
    return undefined;
  }
}

/**
 * Activity (activity/): the account's security events, embedded mode only (Okta mode keeps none: the org's System
 * Log has them). Provides `app.activity`, which the factors, passkeys, password and sign-in domains write through in
 * their changes' transactions; deletes events older than 90 days at start-up and every 10 minutes. Depends on:
 * storage, identity (which mode).
 */
export default fp(
  async function activityPlugin(app: FastifyInstance) {
    const enabled = app.config.identityBackend === 'embedded';
    const activity = new ActivityLog({
      enabled,
      store: app.storage.activity,
      describer: new ClientDescriber(enabled ? countries(app) : undefined),
      now: app.now,
    });
    app.decorate('activity', activity);
    if (!enabled) return;
    const prune = () =>
      activity
        .prune()
        .catch((error: unknown) => app.log.warn({ err: error }, 'activity: could not delete old events'));
    await prune();
    const timer = setInterval(() => void prune(), PRUNE_INTERVAL_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  },
  { name: 'activity', dependencies: ['storage', 'identity'] },
);
