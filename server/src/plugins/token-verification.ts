import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { SessionCache } from '../auth/session-cache.js';
import { orgSessions, providerSessions, type ProviderTokenAccount } from '../auth/sessions.js';
import { openNotificationChannel, type NotificationChannel } from '../db/postgres-notifications.js';
import { localVerifier, oktaVerifier, type TokenPolicy } from '../auth/verifier.js';
import { openProviderKeyRing, type ProviderKeyRingDeps } from '../oidc/provider-keys.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** PostgreSQL with SESSION_CACHE_MS > 0: the channel the instances tell each other their session changes on. */
    sessionNotifications: NotificationChannel | null;
  }
}

/** buildApp's options for this plugin: tests hand the key ring pre-generated keys (BuildOptions). */
export interface TokenVerificationOptions {
  generateSigningKey?: ProviderKeyRingDeps['generateSigningKey'];
}

/**
 * How access tokens are checked. Embedded mode: against the keys the key ring publishes (src/keys: shared by
 * every instance through the database, opened here; the provider plugin signs with its current key), and on
 * every call against the provider's store: the token's session and grant must still exist. Okta mode: against
 * the org's JWKS over HTTPS, and the caller's user is the identity backend's (its per-call read); a token issued
 * before the account's last password or 2-step change is refused (auth/token-not-before.ts).
 * What that per-call check reads of a live session is kept for SESSION_CACHE_MS (auth/session-cache.ts), dropped by
 * the writes that end sessions or change an account: this instance's (`app.sessionChanges`) and, on PostgreSQL,
 * the other instances' (NOTIFY on SESSION_CHANNEL, which this instance's writes are relayed to as well).
 */
export default fp(
  async function tokenVerificationPlugin(app: FastifyInstance, options: TokenVerificationOptions) {
    const { config } = app;
    // Tokens of the portal's own client (and of the clients an operator allowed), with the scope the API needs:
    // another application of the same authorization server gets tokens with the same audience.
    const policy: TokenPolicy = {
      clientIds: [config.settings.ClientId, ...config.API_CLIENT_IDS],
      requiredScope: config.API_REQUIRED_SCOPE,
    };
    if (config.embedded) {
      const ring = await openProviderKeyRing({
        config,
        database: app.database,
        sealing: app.atRestSealing,
        now: app.now,
        log: app.log,
        ...(options.generateSigningKey ? { generateSigningKey: options.generateSigningKey } : {}),
      });
      app.addHook('onClose', () => ring.close());
      // The provider's store ends a session's step-up grants with it, in the same transaction (storage/provider.ts);
      // its sign-outs and revocations reach the session cache (app.storage is watched: auth/session-change-writes.ts).
      const store = app.storage.provider;
      const cache = await sessionCacheOf<ProviderTokenAccount>(app);
      const sessions = providerSessions(app.storage, cache);
      app.decorate('keyRing', ring);
      app.decorate('signingKeys', { getter: () => ring.signing });
      app.decorate('oidcStore', store);
      app.decorate('accountSessions', sessions);
      app.decorate(
        'tokenVerifier',
        localVerifier(() => ring.signing.publicJwks, config.issuer, config.API_AUDIENCE, {
          ...policy,
          isAlive: (token) => sessions.isAlive(token),
        }),
      );
    } else {
      app.decorate('keyRing', null);
      app.decorate('signingKeys', null);
      app.decorate('oidcStore', null);
      // The account's "not before" (after a password or 2-step change) is in the portal's database.
      // Its refresh tokens are revoked at the org after a change, for every client whose tokens the API takes.
      const cache = await sessionCacheOf<boolean>(app);
      app.decorate(
        'accountSessions',
        orgSessions(app.identity, app.storage, app.now, policy.clientIds, cache),
      );
      app.decorate('tokenVerifier', oktaVerifier(config.issuer, config.API_AUDIENCE, policy));
    }
    app.decorateRequest('caller', null);
  },
  { name: 'token-verification', dependencies: ['storage', 'identity'] },
);

/** The PostgreSQL channel the instances of a deployment tell each other their session changes on. */
export const SESSION_CHANNEL = 'portal_session_changes';

/**
 * The per-call check's cache (none with SESSION_CACHE_MS=0), fed by this instance's committed writes and, on
 * PostgreSQL, by the other instances' through LISTEN/NOTIFY (this instance's are relayed to them too).
 */
async function sessionCacheOf<V>(app: FastifyInstance): Promise<SessionCache<V> | undefined> {
  const { config } = app;
  if (config.SESSION_CACHE_MS === 0) {
    app.decorate('sessionNotifications', null);
    return undefined;
  }
  const cache = new SessionCache<V>({ ttlMs: config.SESSION_CACHE_MS });
  const stopListening = app.sessionChanges.listen((tags) => cache.invalidate(tags));
  app.addHook('onClose', async () => stopListening());
  if (config.DATABASE_URL === undefined) {
    app.decorate('sessionNotifications', null);
    return cache;
  }
  const channel = await openNotificationChannel({
    url: config.DATABASE_URL,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    channel: SESSION_CHANNEL,
    onNotification: (payload) => cache.invalidate(payload.split(' ')),
    // Whatever was said while the connection was down is unknown: forget everything, then and once back.
    onLost: () => cache.clear(),
    onListening: () => cache.clear(),
    log: (message, error) => app.log.warn({ err: error }, message),
  });
  app.sessionChanges.relayTo((tags) => channel.notify(tags));
  app.decorate('sessionNotifications', channel);
  app.addHook('onClose', async () => {
    app.sessionChanges.relayTo(undefined);
    await channel.close();
  });
  return cache;
}
