import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ActivityLog } from '../../activity/log.js';
import { orgActivityPage, type OrgActivityAnswer } from '../../activity/pages.js';
import { ClientDescriber } from '../../clients/describe.js';
import { CountryDatabase } from '../../clients/country.js';
import { OktaIdentity } from '../../identity/okta/identity.js';

/** Okta mode's activity: the org's System Log, read for the caller (activity/pages.ts, orgActivityPage). */
export interface OrgActivity {
  page(
    userId: string,
    query: { before?: string | undefined; limit?: number | undefined },
  ): Promise<OrgActivityAnswer>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The account's security events (issue 22): written by the changes they record, read by /api/v1/users/…/activity. */
    activity: ActivityLog;
    /** Okta mode: the account's events from the org's System Log; undefined in embedded mode. */
    orgActivity: OrgActivity | undefined;
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
 * Activity (activity/): the account's security events. Embedded mode keeps them; Okta mode keeps none and reads the
 * org's System Log (`app.orgActivity`, Okta mode). Provides `app.activity`, which the factors, passkeys, password and sign-in domains write through in
 * their changes' transactions; deletes events older than 90 days at start-up and every 10 minutes. Depends on:
 * storage, identity (which mode).
 */
export default fp(
  async function activityPlugin(app: FastifyInstance) {
    const enabled = app.config.identityBackend === 'embedded';
    const { identity } = app;
    const orgLog = identity instanceof OktaIdentity ? identity.systemLog : undefined;
    // Both modes describe addresses: embedded its own events, Okta mode the System Log's.
    const describer = new ClientDescriber(enabled || orgLog ? countries(app) : undefined);
    const activity = new ActivityLog({ enabled, store: app.storage.activity, describer, now: app.now });
    app.decorate('activity', activity);
    app.decorate(
      'orgActivity',
      orgLog && {
        page: (userId, query) => orgActivityPage(orgLog, describer, userId, { ...query, now: app.now() }),
      },
    );
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
