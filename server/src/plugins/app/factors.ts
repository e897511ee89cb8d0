import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { loadTotpEncryptionKey } from '../../factors/encryption-key.js';
import { SecretBox } from '../../factors/secret-box.js';
import { FactorService } from '../../factors/service.js';

declare module 'fastify' {
  interface FastifyInstance {
    factors: FactorService;
  }
}

const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Factors: 2-step factors, email codes, step-up grants and their throttles. Provides `app.factors`, the service
 * every security route and the sign-in step use; prunes expired grants, codes and throttle events every 10
 * minutes. Depends on: storage, mail (email codes), notifications (notices), token-verification (the sessions
 * a factor change ends).
 */
export default fp(
  async function factorsPlugin(app: FastifyInstance) {
    const { config } = app;
    // Refuses (ConfigError naming TOTP_ENCRYPTION_KEY) a key that cannot open the secrets already sealed.
    const loaded = await loadTotpEncryptionKey(config.TOTP_ENCRYPTION_KEY, config.DATA_DIR, app.storage.sql);
    if (loaded.replacedUnusedKey) {
      app.log.warn(
        'TOTP_ENCRYPTION_KEY changed while no authenticator secret was sealed: the new key is kept',
      );
    }
    if (loaded.source === 'generated') {
      app.log[config.developmentDefault ? 'info' : 'warn'](
        { file: loaded.file },
        'TOTP_ENCRYPTION_KEY is not set: generated a key for authenticator secrets and saved it in DATA_DIR (back it up with the database; set TOTP_ENCRYPTION_KEY in production)',
      );
    } else if (loaded.source === 'file') {
      app.log.info({ file: loaded.file }, 'authenticator secrets: using the key saved in DATA_DIR');
    }
    const service = new FactorService({
      storage: app.storage,
      sessions: app.accountSessions,
      notifier: app.notifier,
      box: new SecretBox(loaded.key),
      key: loaded.key,
      mailer: app.mailer,
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
  { name: 'factors', dependencies: ['storage', 'mail', 'notifications', 'token-verification'] },
);
