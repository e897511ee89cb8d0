import fp from 'fastify-plugin';
import authPlugin from './app/auth.js';
import providerPlugin from './app/provider.js';

/* Transitional (issue 10): app.ts still imports this path; it registers plugins/app/* instead (see the report). Delete once app.ts is switched. */
export default fp(
  async (app) => {
    await app.register(authPlugin);
    await app.register(providerPlugin);
  },
  { name: 'auth-and-provider' },
);
