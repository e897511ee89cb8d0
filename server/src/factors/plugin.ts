import fp from 'fastify-plugin';
import factorsPlugin from '../plugins/app/factors.js';
import passwordPlugin from '../plugins/app/password.js';

/* Transitional (issue 10): app.ts still imports this path; it registers plugins/app/* instead (see the report). Delete once app.ts is switched. */
export default fp(
  async (app) => {
    await app.register(factorsPlugin);
    await app.register(passwordPlugin);
  },
  { name: 'factors-and-password' },
);
