import type { FastifyInstance } from 'fastify';
import { API_ERRORS, releaseCalls } from 'shared-auth/contract';
import { refusal } from '../../../http/errors.js';
import { registerCall } from '../../../http/register-call.js';
import { clientNetworkOf } from '../../../throttles/client-network.js';
import { AddressLimiter } from '../../../throttles/request-windows.js';

/** Reports one client (an IPv4 address or an IPv6 /64) may send a minute, on every instance together. */
export const REMOTE_LOAD_REPORTS_PER_MINUTE = 30;
/** A report is four short fields; anything bigger is refused (413) before it is parsed. */
export const REMOTE_LOAD_REPORT_MAX_BYTES = 1024;

/**
 * POST /api/v1/remote-loads (issue 23): the shell reports how a remote's load went (anonymous pages too, so no
 * auth). Bounded per client in shared storage (throttles/request-windows.ts), counted before the body is read, and
 * by size; it only ever adds to the counts of a published version (releases/releases.ts), so a flood cannot grow
 * the database. Answers 204.
 */
export default async function remoteLoadRoutes(app: FastifyInstance) {
  const limiter = new AddressLimiter(
    app.storage.requestWindows,
    'remote-loads',
    REMOTE_LOAD_REPORTS_PER_MINUTE,
    app.now,
  );
  app.addHook('onRoute', (route) => {
    route.bodyLimit = REMOTE_LOAD_REPORT_MAX_BYTES;
  });
  app.addHook('onRequest', async (request) => {
    const retryAfter = await limiter.hit(clientNetworkOf(request.ip));
    if (retryAfter > 0) {
      throw refusal(API_ERRORS.rateLimited, 'Too many load reports from your network: try again later', {
        'Retry-After': String(retryAfter),
      });
    }
  });

  registerCall(app, releaseCalls.remoteLoadReport, async (request, reply) => {
    const outcome = await app.releases.report(request.body);
    if (outcome.rolledBack) {
      request.log.warn(
        { remote: request.body.remote, version: request.body.version },
        'canary rolled back automatically',
      );
    }
    await reply.code(204).send();
    return undefined;
  });
}
