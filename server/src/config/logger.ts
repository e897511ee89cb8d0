import type { FastifyServerOptions } from 'fastify';
import type { AppConfig } from './index.js';

// Query parameters that carry tokens or codes (e.g. /v1/logout?id_token_hint=...): logged as [redacted].
const SECRET_PARAMS =
  /^(id_token_hint|code|token|access_token|refresh_token|id_token|code_verifier|password|state|nonce)$/i;

export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  if (queryAt === -1) return url;
  const params = new URLSearchParams(url.slice(queryAt + 1));
  for (const key of [...params.keys()]) {
    if (SECRET_PARAMS.test(key)) params.set(key, '[redacted]');
  }
  return `${url.slice(0, queryAt)}?${params.toString()}`;
}

/** pino through Fastify. Tokens and passwords never reach the log: no headers, no bodies, redacted queries. */
export function loggerOptions(config: Pick<AppConfig, 'LOG_LEVEL'>): FastifyServerOptions['logger'] {
  return {
    level: config.LOG_LEVEL,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', '*.password'],
      censor: '[redacted]',
    },
    serializers: {
      req(request: { method: string; url: string; hostname?: string; ip?: string }) {
        return {
          method: request.method,
          url: redactUrl(request.url),
          host: request.hostname,
          remoteAddress: request.ip,
        };
      },
    },
  };
}
