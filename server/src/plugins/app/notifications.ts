import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Outbox } from '../../notifications/outbox.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Notices to the account holder: `queue()` (the Notifier interface) inside the change's transaction. */
    notifier: Outbox;
  }
}

/**
 * Notifications. Provides `app.notifier`. Depends on: storage (the outbox), mail (delivery).
 *
 * Notices to the account holder (password changed, factor turned on, off or removed, account locked), kept in
 * the `notifications` outbox and delivered through the mail transport (`app.mailer`): right after the change
 * commits, and by a sweep every 30 s that retries failures with backoff and prunes old rows.
 */
export default fp(
  async function notificationsPlugin(app: FastifyInstance) {
    const outbox = new Outbox({
      store: app.storage.outbox,
      mailer: app.mailer,
      now: app.now,
      log: app.log,
      portalUrl: app.config.PUBLIC_URL,
    });
    app.decorate('notifier', outbox);
    // Closed before the mail transport and the database (onClose runs in reverse order of registration).
    app.addHook('onClose', async () => outbox.close());
    app.addHook('onReady', async () => outbox.start());
  },
  { name: 'notifications', dependencies: ['storage', 'mail'] },
);
