import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { NotMeLinks } from '../../devices/not-me-links.js';
import { NotMeReport } from '../../devices/not-me.js';
import { RESET_PATH } from '../../oidc/interactions/reset-flow.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * "This wasn't me" (issue 22): `report`, the activity's call (POST /api/v1/users/:sub/activity/not-me);
     * `links`, the method-added notices' link (the /not-me page), undefined in Okta mode.
     */
    notMe: { report: NotMeReport; links: NotMeLinks | undefined };
  }
}

const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * "This wasn't me" (devices/not-me.ts, devices/not-me-links.ts): the in-page report, both modes, and the mailed
 * link, embedded mode, whose expired rows are deleted at start-up and every 10 minutes. Provides `app.notMe`.
 * Depends on: storage, identity, notifications, activity, factors (the recovery codes a removal may take).
 */
export default fp(
  async function notMePlugin(app: FastifyInstance) {
    const embedded = app.config.identityBackend === 'embedded';
    const { storage, identity, notifier, now } = app;
    const portalUrl = app.config.PUBLIC_URL;
    const report = new NotMeReport({
      embedded,
      storage,
      activity: app.activity,
      mail: notifier,
      portalUrl,
      now,
      endAllSessionsAtOrg: identity.endAllSessions?.bind(identity),
    });
    const links = embedded
      ? new NotMeLinks({
          storage,
          identity,
          recoveryCodes: app.recoveryCodes,
          activity: app.activity,
          mail: notifier,
          resetUrl: `${portalUrl}${app.config.oidcMountPath}${RESET_PATH}`,
          now,
        })
      : undefined;
    app.decorate('notMe', { report, links });
    if (!links) return;
    const prune = () =>
      storage.notMeLinks
        .prune(now())
        .catch((error: unknown) =>
          app.log.warn({ err: error }, 'not-me links: could not delete expired links'),
        );
    await prune();
    const timer = setInterval(() => void prune(), PRUNE_INTERVAL_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  },
  { name: 'not-me', dependencies: ['storage', 'identity', 'notifications', 'activity', 'factors'] },
);
