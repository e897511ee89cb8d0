import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { DeployKeys } from '../../releases/deploy-keys.js';
import { type LiveReleaseOrigins } from '../../releases/live-origins.js';
import { entryRuleOf, Releases } from '../../releases/releases.js';
import { liveOriginsOf, liveReleasesOf, resolveRemotes } from '../../releases/resolver.js';
import type { ResolvedRemotes } from 'shared-auth/contract';

declare module 'fastify' {
  interface FastifyInstance {
    /** Releases (issue 23): publish, canary, promote, rollback, status, and the load reports. */
    releases: Releases;
    /** The teams' deploy keys: `authorize` checks a release call's `Authorization: Deploy <key>`. */
    deployKeys: DeployKeys;
    /** The resolved remotes for a holder (`sub`) or an anonymous page (undefined): `GET /remotes.json`. */
    resolveRemotes(sub: string | undefined): Promise<ResolvedRemotes>;
  }
}

/** How often the CSP's release origins are read again, for another instance's changes. */
const ORIGINS_REFRESH_MS = 5_000;

/**
 * Releases (releases/): each remote's versions, canary and stable in the database, the resolution of
 * `/remotes.json`, the deploy keys and the automatic rollback (CANARY_MIN_LOADS, CANARY_MAX_FAILURE_RATE). Keeps
 * `releasedOrigins` (handed to the security headers by app.ts) current: at start-up, after each change here, on each
 * resolution and every 5 s. Provides `app.releases`, `app.deployKeys`, `app.resolveRemotes`. Depends on: storage.
 */
export default fp(
  async function releasesPlugin(
    app: FastifyInstance,
    { releasedOrigins }: { releasedOrigins: LiveReleaseOrigins },
  ) {
    const { storage, config } = app;
    const refreshOrigins = async () => {
      releasedOrigins.set(liveOriginsOf(await liveReleasesOf(storage.releases)));
    };
    const refreshQuietly = () => {
      refreshOrigins().catch((error: unknown) =>
        app.log.warn({ err: error }, 'releases: live origins not read'),
      );
    };
    const releases = new Releases({
      storage,
      now: app.now,
      threshold: { minLoads: config.CANARY_MIN_LOADS, maxFailureRate: config.CANARY_MAX_FAILURE_RATE },
      entryAllowed: entryRuleOf(config.PUBLIC_URL),
      onLiveChanged: refreshQuietly,
    });
    app.decorate('releases', releases);
    app.decorate('deployKeys', new DeployKeys(storage.deployKeys, app.now));
    app.decorate('resolveRemotes', async (sub: string | undefined) => {
      const live = await liveReleasesOf(storage.releases);
      // The page that asks next gets a CSP that allows what this answer names.
      releasedOrigins.set(liveOriginsOf(live));
      return resolveRemotes(live, config.currentRemotes(), sub);
    });

    await refreshOrigins();
    const timer = setInterval(refreshQuietly, ORIGINS_REFRESH_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  },
  { name: 'releases', dependencies: ['storage'] },
);
