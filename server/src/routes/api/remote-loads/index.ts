import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_ERRORS, releaseCalls } from 'shared-auth/contract';
import { InvalidTokenError } from '../../../auth/verifier.js';
import { refusal, unauthorized } from '../../../http/errors.js';
import { registerCall } from '../../../http/register-call.js';
import { clientNetworkOf } from '../../../throttles/client-network.js';
import { AddressLimiter } from '../../../throttles/request-windows.js';

/** Anonymous reports one client (an IPv4 address or an IPv6 /64) may send a minute, on every instance together. */
export const REMOTE_LOAD_REPORTS_PER_MINUTE = 30;
/**
 * Signed-in reports one holder may send a minute, on every instance together, wherever they come from. A page sends
 * at most one report per remote, version and outcome (the shell's reporter): a few per page load, 16 at the very
 * worst (four remotes, each failing, falling back and loading). 30 lets a holder reload a broken page twice a minute
 * and still be heard; their vote on a canary counts once anyway, so the bound only caps what one account can write.
 * Not counted per network: a whole office behind one address must not silence its holders' reports.
 */
export const HOLDER_LOAD_REPORTS_PER_MINUTE = 30;
/** A report is four short fields; anything bigger is refused (413) before it is parsed. */
export const REMOTE_LOAD_REPORT_MAX_BYTES = 1024;

/**
 * POST /api/v1/remote-loads (issue 23): the shell reports how a remote's load went. Anonymous pages report too (no
 * auth needed), limited per client network; a signed-in holder's page sends their bearer token, checked as every API
 * call's (app.resolveCaller: signature, claims, live session; a bad or expired one is 401), and limited per holder.
 * Both are counted in shared storage (throttles/request-windows.ts) before the body is read, and bounded by size.
 * Every report only adds to the counts of a published version, so a flood cannot grow the database; only a signed-in
 * holder in the canary's bucket votes on its automatic rollback (releases/releases.ts). Answers 204.
 */
export default async function remoteLoadRoutes(app: FastifyInstance) {
  const perNetwork = new AddressLimiter(
    app.storage.requestWindows,
    'remote-loads',
    REMOTE_LOAD_REPORTS_PER_MINUTE,
    app.now,
  );
  const perHolder = new AddressLimiter(
    app.storage.requestWindows,
    'remote-loads-holder',
    HOLDER_LOAD_REPORTS_PER_MINUTE,
    app.now,
  );
  app.addHook('onRoute', (route) => {
    route.bodyLimit = REMOTE_LOAD_REPORT_MAX_BYTES;
  });
  app.addHook('onRequest', async (request) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    const retryAfter = token
      ? await perHolder.hit(await holderOf(request, token))
      : await perNetwork.hit(clientNetworkOf(request.ip));
    if (retryAfter > 0) {
      const from = token ? 'your account' : 'your network';
      throw refusal(API_ERRORS.rateLimited, `Too many load reports from ${from}: try again later`, {
        'Retry-After': String(retryAfter),
      });
    }
  });

  /** The holder's user id, verified as on every API call; a token the API refuses is 401 here too. */
  async function holderOf(request: FastifyRequest, token: string): Promise<string> {
    try {
      request.caller = await app.resolveCaller(request, token);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw unauthorized(error.message, true);
      throw error;
    }
    return request.caller.user.id;
  }

  registerCall(app, releaseCalls.remoteLoadReport, async (request, reply) => {
    const outcome = await app.releases.report(request.body, request.caller?.user.id);
    if (outcome.rolledBack) {
      request.log.warn(
        { remote: request.body.remote, version: request.body.version, tally: outcome.tally },
        'canary rolled back automatically',
      );
    }
    await reply.code(204).send();
    return undefined;
  });
}
