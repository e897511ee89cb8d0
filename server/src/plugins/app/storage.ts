import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import path from 'node:path';
import { watchSessionChanges } from '../../auth/session-change-writes.js';
import { sessionChanges } from '../../auth/session-changes.js';
import { openStorage } from './open-storage.js';

/**
 * Storage. Provides `app.storage` (every domain's store: storage/index.ts), `app.database` (the database
 * under it, for the readiness probe), closed with the app, `app.sessionChanges` (the committed writes of `storage`
 * that end sessions or change an account: auth/session-change-writes.ts) and `app.atRestSealing` (KEY_RING_ENCRYPTION_KEY,
 * loaded and checked here: keys/at-rest.ts). Depends on: `app.config` (DATA_DIR, DATABASE_URL,
 * KEY_RING_ENCRYPTION_KEY).
 */
export default fp(
  async function storagePlugin(app: FastifyInstance) {
    const opened = await openStorage(app.config, (message, error) => app.log.warn({ err: error }, message));
    app.decorate('database', opened.database);
    app.decorate('atRestSealing', opened.atRest.sealing);
    if (opened.atRest.source === 'generated') {
      app.log[app.config.developmentDefault ? 'info' : 'warn'](
        { file: opened.atRest.file },
        'KEY_RING_ENCRYPTION_KEY is not set: generated a key that seals the key ring and saved it in DATA_DIR (back it up with the database; set KEY_RING_ENCRYPTION_KEY in production)',
      );
    }
    const { keys, records } = opened.atRest.sealedNow;
    if (keys + records > 0) app.log.info({ keys, records }, 'key ring and provider records sealed at rest');
    // Writes that end sessions or change an account are reported once committed (the per-call check's cache):
    // SQLite's apps of one process over one file share the feed; PostgreSQL's instances hear it by NOTIFY.
    const changes = sessionChanges(app.config.DATABASE_URL ? undefined : path.resolve(app.config.DATA_DIR));
    app.decorate('sessionChanges', changes);
    app.decorate('storage', watchSessionChanges(opened.storage, changes));
    // Start-up may wait for another process's lock; serving may not (plugins/errors.ts answers 503).
    app.addHook('onReady', async () => opened.serving());
    app.addHook('onClose', async () => opened.close());
  },
  { name: 'storage' },
);
