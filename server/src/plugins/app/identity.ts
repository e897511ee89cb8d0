import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { SecretBox } from '../../crypto/secret-box.js';
import { loadTotpEncryptionKey } from '../../crypto/totp-encryption-key.js';
import { recoveryCodeKeyFrom } from '../../factors/recovery-codes.js';
import { EmailCodes } from '../../identity/embedded/email-codes.js';
import { EmbeddedIdentity } from '../../identity/embedded/identity.js';
import { OktaOrg } from '../../identity/okta/client.js';
import { OktaIdentity } from '../../identity/okta/identity.js';
import type { IdentityBackend } from '../../identity/types.js';
import { totpKeyRecords } from '../../storage/totp-key.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The recovery codes' HMAC key, derived from TOTP_ENCRYPTION_KEY by HKDF (kept out of the database like it);
     * null in Okta mode, whose sign-in cannot accept the portal's recovery codes.
     */
    recoveryCodeKey: Buffer | null;
  }
}

const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

async function embeddedIdentity(app: FastifyInstance): Promise<{ identity: EmbeddedIdentity; key: Buffer }> {
  const { config } = app;
  // Refuses (ConfigError naming TOTP_ENCRYPTION_KEY) a key that cannot open the secrets already sealed.
  const loaded = await loadTotpEncryptionKey(
    config.TOTP_ENCRYPTION_KEY,
    config.DATA_DIR,
    totpKeyRecords(app.storage.sql),
  );
  if (loaded.replacedUnusedKey) {
    app.log.warn('TOTP_ENCRYPTION_KEY changed while no authenticator secret was sealed: the new key is kept');
  }
  if (loaded.source === 'generated') {
    app.log[config.developmentDefault ? 'info' : 'warn'](
      { file: loaded.file },
      'TOTP_ENCRYPTION_KEY is not set: generated a key for authenticator secrets and saved it in DATA_DIR (back it up with the database; set TOTP_ENCRYPTION_KEY in production)',
    );
  } else if (loaded.source === 'file') {
    app.log.info({ file: loaded.file }, 'authenticator secrets: using the key saved in DATA_DIR');
  }
  const identity = new EmbeddedIdentity({
    storage: app.storage,
    box: new SecretBox(loaded.key),
    emailCodes: new EmailCodes({ key: loaded.key, mailer: app.mailer, now: app.now, log: app.log }),
    now: app.now,
    log: app.log,
  });
  // Expired email codes, at start-up and every 10 minutes.
  const prune = () =>
    identity
      .pruneCodes()
      .catch((error: unknown) => app.log.warn({ err: error }, 'email codes: could not prune'));
  await prune();
  const timer = setInterval(() => void prune(), PRUNE_INTERVAL_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
  return { identity, key: loaded.key };
}

function oktaIdentity(app: FastifyInstance): OktaIdentity {
  const { config } = app;
  if (!config.okta) throw new Error('the okta identity backend was chosen without its settings');
  const org = new OktaOrg({
    orgUrl: config.settings.Domain,
    credentials: config.okta.credentials,
    log: app.log,
  });
  app.log.info(
    { org: org.orgUrl, credentials: config.okta.credentials.kind },
    "identity backend: the Okta org's Management API",
  );
  const { credentials } = config.okta;
  return new OktaIdentity(org, {
    federatedAttribute: config.okta.federatedAttribute,
    now: app.now,
    // The System Log needs okta.logs.read; a service app that does not ask for it is not asked to read it.
    readsSystemLog: credentials.kind === 'api-token' || credentials.scopes.includes('okta.logs.read'),
    log: app.log,
  });
}

/**
 * Identity: the backend that holds the accounts' profile, password and 2-step factors (IDENTITY_BACKEND,
 * src/identity). Provides `app.identity`. Embedded: the portal's directory and factor tables, the authenticator
 * secrets sealed with TOTP_ENCRYPTION_KEY (loaded and checked here), email codes mailed through `app.mailer` and
 * pruned every 10 minutes; `app.recoveryCodeKey`, the recovery codes' HMAC key derived from the same key (null in
 * Okta mode). Okta: the org's Management API with the service app's credentials (OKTA_*). Depends
 * on: storage, mail.
 */
export default fp(
  async function identityPlugin(app: FastifyInstance) {
    if (app.config.identityBackend === 'embedded') {
      const { identity, key } = await embeddedIdentity(app);
      app.decorate('identity', identity satisfies IdentityBackend);
      app.decorate('recoveryCodeKey', recoveryCodeKeyFrom(key));
    } else {
      app.decorate('identity', oktaIdentity(app) satisfies IdentityBackend);
      app.decorate('recoveryCodeKey', null);
    }
  },
  { name: 'identity', dependencies: ['storage', 'mail'] },
);
