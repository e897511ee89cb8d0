/**
 * The "This wasn't me" link's page (issue 22), on the portal's origin, embedded mode only:
 * - GET /not-me?token=… shows what the link will do and one button; it changes nothing, so a mail client's link
 *   preview (or a scanner) that fetches it fires nothing.
 * - POST /not-me (the form, `token` in its body) does it (devices/not-me-links.ts).
 * Against cross-site posts: the token, which only the mail's holder has, is the proof the post needs (no cookie
 * is read, so nothing rides on a SameSite cookie), a post whose Origin is another site's is refused, and the
 * server's CSP (form-action, frame-ancestors) applies to these pages as to every answer. The pages never send the
 * token on in a Referer (`Referrer-Policy: no-referrer`) and are never stored (`no-store`); the request log
 * redacts `token` (config/logger.ts). Requests per address are counted in storage, like the reset pages', and fail
 * closed. Every refusal is a page with its 4xx (error-pages.ts), never the API's JSON.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { NOT_ME_PATH } from '../../factors/not-me-links.js';
import { isStorageUnavailableError } from '../../db/errors.js';
import { STORAGE_RETRY_AFTER_SECONDS } from '../../http/storage-unavailable.js';
import { pageErrorHandler, sendPage } from '../../oidc/interactions/error-pages.js';
import { AddressLimiter } from '../../throttles/request-windows.js';
import {
  NOT_ME_FROM_ANOTHER_SITE,
  NOT_ME_GONE_HEADING,
  NOT_ME_GONE_TEXT,
  NOT_ME_TITLE,
  NOT_ME_UNAVAILABLE,
  notMeConfirmPage,
  notMeDonePage,
  notMeProblemPage,
  notMeTooManyRequests,
} from './pages.js';

/** Openings of links and posts of their form per client address and minute (the reset pages' ceiling). */
export const NOT_ME_REQUESTS_PER_ADDRESS_PER_MINUTE = 60;

const linkQuerySchema = z.object({ token: z.string().max(256).default('') });
const formSchema = z.record(z.string(), z.string().max(4096)).default({});

export default fp(
  async function notMePageRoutes(fastify: FastifyInstance) {
    const links = fastify.notMe.links;
    if (!links) return;
    // Its own scope, so the page error handler answers only these routes.
    await fastify.register(async (scope) => {
      const app = scope.withTypeProvider<ZodTypeProvider>();
      const { resetUrl } = links;
      const publicOrigin = new URL(scope.config.PUBLIC_URL).origin;
      const perAddress = new AddressLimiter(
        scope.storage.requestWindows,
        'not-me',
        NOT_ME_REQUESTS_PER_ADDRESS_PER_MINUTE,
        () => scope.now(),
      );

      scope.setErrorHandler(
        pageErrorHandler({
          title: NOT_ME_TITLE,
          unavailable: NOT_ME_UNAVAILABLE,
          back: { href: resetUrl, label: 'Reset your password' },
        }),
      );

      const answer = (reply: FastifyReply, statusCode: number, html: string) =>
        sendPage(reply.header('Referrer-Policy', 'no-referrer'), statusCode, html);
      const gone = (reply: FastifyReply) =>
        answer(reply, 410, notMeProblemPage(resetUrl, NOT_ME_GONE_HEADING, NOT_ME_GONE_TEXT));

      /** The per-address count, before anything is read; storage unavailable refuses (fail closed). */
      const limited = async (request: FastifyRequest, reply: FastifyReply) => {
        let retryAfter: number;
        try {
          retryAfter = await perAddress.hit(request.ip);
        } catch (error) {
          if (!isStorageUnavailableError(error)) throw error;
          request.log.warn({ err: error }, 'not-me link refused: its per-address count cannot be stored');
          return answer(
            reply.header('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS)),
            503,
            notMeProblemPage(resetUrl, NOT_ME_TITLE, NOT_ME_UNAVAILABLE),
          );
        }
        if (retryAfter === 0) return undefined;
        return answer(
          reply.header('Retry-After', String(retryAfter)),
          429,
          notMeProblemPage(resetUrl, NOT_ME_TITLE, notMeTooManyRequests(retryAfter)),
        );
      };

      app.get(
        NOT_ME_PATH,
        { schema: { querystring: linkQuerySchema }, onRequest: limited },
        async (request, reply) => {
          const { token } = request.query;
          const view = await links.open(token);
          if (view.kind === 'gone') return gone(reply);
          return answer(reply, 200, notMeConfirmPage(NOT_ME_PATH, token, view));
        },
      );

      app.post(NOT_ME_PATH, { schema: { body: formSchema }, onRequest: limited }, async (request, reply) => {
        // `null` comes from the no-referrer page itself.
        const origin = request.headers.origin;
        if (origin !== undefined && origin !== 'null' && origin !== publicOrigin) {
          return answer(reply, 403, notMeProblemPage(resetUrl, NOT_ME_TITLE, NOT_ME_FROM_ANOTHER_SITE));
        }
        const outcome = await links.confirm(request.body.token ?? '', {
          userAgent: request.headers['user-agent'],
          ip: request.ip,
        });
        if (outcome.kind === 'gone') return gone(reply);
        request.log.info('a "This wasn\'t me" link was used: method removed, every session signed out');
        return answer(reply, 200, notMeDonePage(resetUrl, outcome.removed));
      });
    });
  },
  { name: 'not-me-pages', dependencies: ['not-me'] },
);
