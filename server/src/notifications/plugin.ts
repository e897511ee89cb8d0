import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Notifier } from './types.js';

declare module 'fastify' {
  interface FastifyInstance {
    notifier: Notifier;
  }
}

// PLACEHOLDER, being replaced by the outbox implementation (see notifications/types.ts).
export default fp(
  async function notificationsPlugin(app: FastifyInstance) {
    app.decorate('notifier', { queue: () => undefined } satisfies Notifier);
  },
  { name: 'notifications', dependencies: ['db', 'mail'] },
);
