import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { defaultErrorCodeOf } from 'shared-auth/contract';
import type { AppConfig } from './config/index.js';
import { secureDataDir } from './config/data-dir.js';
import type { TrustProxy } from './config/env.js';
import { loggerOptions } from './config/logger.js';
import type { PasswordHashing } from './directory/directory.js';
import activityPlugin from './plugins/app/activity.js';
import authPlugin from './plugins/app/auth.js';
import directoryPlugin from './plugins/app/directory.js';
import factorsPlugin from './plugins/app/factors.js';
import passkeysPlugin from './plugins/app/passkeys.js';
import devicesPlugin from './plugins/app/devices.js';
import identityPlugin from './plugins/app/identity.js';
import mailPlugin from './plugins/app/mail.js';
import notificationsPlugin from './plugins/app/notifications.js';
import notMePlugin from './plugins/app/not-me.js';
import passwordPlugin from './plugins/app/password.js';
import providerPlugin from './plugins/app/provider.js';
import releasesPlugin from './plugins/app/releases.js';
import storagePlugin from './plugins/app/storage.js';
import errorsPlugin from './plugins/errors.js';
import externalPlugins, { securityHeadersOf } from './plugins/external.js';
import tokenVerificationPlugin, { type TokenVerificationOptions } from './plugins/token-verification.js';
import './plugins/types.js';
import apiRoutes from './routes/api/index.js';
import notMePageRoutes from './routes/not-me/index.js';
import webRoutes from './routes/web.js';
import { LiveReleaseOrigins } from './releases/live-origins.js';

export interface BuildOptions {
  /** Overrides the pino logger settings (tests pass false). */
  logger?: FastifyServerOptions['logger'];
  /** The clock of time-based limits (ms since the epoch), `app.now`; tests pass a fake one. */
  now?: () => number;
  /*
   * Tests only, never read from the environment: cheaper stand-ins for work production does in full. A test app
   * takes the key ring's RSA keys from a pool made once per run, and hashes passwords with a cheap argon2id cost.
   */
  /** Makes the key ring's new signing keys instead of generating RSA keys. */
  generateSigningKey?: TokenVerificationOptions['generateSigningKey'];
  /** argon2id's cost for the passwords the directory hashes (default: production's). */
  passwordHashing?: PasswordHashing;
}

/**
 * Fastify's trustProxy for TRUST_PROXY. A hop count is a function: Fastify 5.12 trusts nobody for a bare number
 * (it cannot check the peer), but with TRUST_PROXY=N the operator says N proxies stand in front.
 */
export function trustProxyOption(setting: TrustProxy): FastifyServerOptions['trustProxy'] {
  if (typeof setting === 'number') return (_address: string, hop: number) => hop < setting;
  return setting;
}

/** Builds the whole server without listening: tests use it with inject(), server.ts with listen(). */
export async function buildApp(config: AppConfig, options: BuildOptions = {}): Promise<FastifyInstance> {
  // The live releases' origins (issue 23) enter the CSP beside the remotes file's; the releases plugin keeps them.
  const releasedOrigins = new LiveReleaseOrigins();
  const securityHeaders = securityHeadersOf(config, releasedOrigins);
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config),
    // The API's bodies are a few fields; anything bigger is refused with 413.
    bodyLimit: 16 * 1024,
    // Whose X-Forwarded-* count (request.ip for the per-address limits and the log): TRUST_PROXY, else nobody's.
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    // A client has REQUEST_TIMEOUT_MS to send a whole request (a trickled body is cut with 408); Node checks
    // every second rather than every 30 s. Idle sockets close after twice that; keep-alive stays Fastify's 72 s.
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    connectionTimeout: 2 * config.REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: config.REQUEST_TIMEOUT_MS,
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(1000, config.REQUEST_TIMEOUT_MS),
    },
    // Fastify answers a path that does not decode (bad percent-encoding) or a path segment over its length limit
    // before routing, outside the error handler; keep the one error shape `{ error }` for those too.
    // No hook runs for them, so the security headers (the API's under /api) are set here.
    frameworkErrors: (error, request, reply) => {
      securityHeaders(request.url, reply.raw);
      const known: Record<string, [number, string]> = {
        FST_ERR_BAD_URL: [400, 'The request path is not valid (malformed percent-encoding)'],
        FST_ERR_MAX_PARAM_LENGTH: [414, 'The request path is too long'],
      };
      const [statusCode, message] = known[error.code] ?? [500, 'Internal error'];
      return (reply as unknown as FastifyReply)
        .code(statusCode)
        .send({ error: message, code: defaultErrorCodeOf(statusCode) });
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate('config', config);
  app.decorate('now', options.now ?? Date.now);

  // DATA_DIR holds the database, tokens and keys: 0700, files 0600, before anything is opened in it.
  secureDataDir(config.DATA_DIR, app.log);

  try {
    // 1. Third-party plugins: helmet, cors, rate-limit, formbody, middie.
    await app.register(externalPlugins, { config, releasedOrigins });
    await app.register(errorsPlugin);
    // 2. One plugin per domain (plugins/app): storage first, each naming what it depends on.
    await app.register(storagePlugin);
    await app.register(directoryPlugin, {
      ...(options.passwordHashing ? { passwordHashing: options.passwordHashing } : {}),
    });
    // Email (mailbox or SMTP), then the identity backend (embedded: it mails its own codes), the token checks and
    // the caller, notices to the account holder, 2-step factors, the password rules: the provider's sign-in step
    // uses them.
    await app.register(mailPlugin);
    await app.register(identityPlugin);
    await app.register(tokenVerificationPlugin, {
      ...(options.generateSigningKey ? { generateSigningKey: options.generateSigningKey } : {}),
    });
    await app.register(authPlugin);
    await app.register(notificationsPlugin);
    await app.register(activityPlugin);
    await app.register(factorsPlugin);
    await app.register(passkeysPlugin);
    await app.register(devicesPlugin);
    await app.register(notMePlugin);
    await app.register(passwordPlugin);
    await app.register(releasesPlugin, { releasedOrigins });
    // 3. Routes. The API and the not-me pages come before the provider: a scope holds the middleware (middie)
    // mounted before it was made, so the provider's (at /oauth2/default) is not in theirs and an API call pays
    // nothing for it. The shell's files come after it: their wildcard route is what the provider's GETs match.
    await app.register(apiRoutes, { prefix: '/api' });
    await app.register(notMePageRoutes);
    await app.register(providerPlugin);
    await app.register(webRoutes);

    await app.ready();
  } catch (error) {
    // A refused start-up (e.g. a ConfigError from a plugin) still closes what was opened, the database first.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}
