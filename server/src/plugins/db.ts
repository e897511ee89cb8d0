import fp from 'fastify-plugin';
import storagePlugin from './app/storage.js';

/* Transitional (issue 10): app.ts still imports this path; it registers plugins/app/* instead (see the report). Delete once app.ts is switched. */
export default fp(async (app) => app.register(storagePlugin), { name: 'db' });
