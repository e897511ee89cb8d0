/**
 * The "Forgot password" pages' routes (issue 20), under the provider's mount beside the sign-in pages, embedded
 * mode only: `{mount}/reset-password` (ask for a link), `/link?token=…` (the mailed link), `/verify` (its code
 * step), `/new-password`, and the page's scripts. The rules are the reset's (PasswordResetFlow, password/reset.ts).
 *
 * - The link's token leaves the address at once: the link's page sends `Referrer-Policy: no-referrer`, puts the
 *   token in its form's post and its script replaces the address (history); the request log redacts `token`
 *   (config/logger.ts). Its forms post the token, which only the mail's holder has: it is also their CSRF proof.
 * - Every refusal is a page (error-pages.ts). Per-address counts of requests and posts are kept in storage and,
 *   like the per-email count, fail closed: storage unavailable refuses with a 503 page.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppConfig } from '../../config/index.js';
import { isStorageUnavailableError } from '../../db/errors.js';
import { STORAGE_RETRY_AFTER_SECONDS } from '../../http/storage-unavailable.js';
import type { RequestWindows } from '../../storage/request-windows.js';
import { AddressLimiter } from '../../throttles/request-windows.js';
import { CSRF_FIELD } from './csrf.js';
import { readDevice } from './device-cookie.js';
import { pageErrorHandler, sendPage } from './error-pages.js';
import { PASSKEY_ACTION } from './passkey-pages.js';
import { passkeyPageUi } from './passkey-routes.js';
import { passkeyAnswerOf } from './passkey-sign-in.js';
import { FORM_FROM_ANOTHER_SITE } from './pages.js';
import { resetDoneCookie } from './reset-done-cookie.js';
import {
  RESET_PATH,
  type PasswordResetFlow,
  type ResetLinkStep,
  type ResetRequestContext,
} from './reset-flow.js';
import {
  checkEmailPage,
  linkExpiredPage,
  MISSING_EMAIL,
  newPasswordPage,
  RESET_TITLE,
  RESET_UNAVAILABLE,
  resetCodePage,
  resetProblemPage,
  resetRequestPage,
  tooManyRequestsFromNetwork,
  tooManyResetRequests,
  type ResetPaths,
} from './reset-pages.js';
import { passwordPolicyModule, RESET_PAGE_SCRIPT } from './reset-script.js';
import type { SignInKeys } from './secrets.js';
import { deviceKey } from './steps.js';

/** Reset requests per client address and hour (each may mail a link), on every instance together. */
export const RESET_REQUESTS_PER_ADDRESS_PER_HOUR = 20;
/** Openings of links and posts of their forms per client address and minute (the sign-in form's ceiling). */
export const RESET_POSTS_PER_ADDRESS_PER_MINUTE = 60;

export interface ResetRoutesOptions {
  config: AppConfig;
  resets: PasswordResetFlow;
  /** The sign-in pages' HMAC keys (the device cookie, the "password changed" cookie). */
  keys: SignInKeys;
  requestWindows: RequestWindows;
  /** The support link of the settings' FooterLinks, if they have one. */
  support: { label: string; href: string } | undefined;
  /** Whether passkeys are available (the code step then offers an account's passkey). */
  passkeys: boolean;
}

const requestSchema = z.object({ email: z.string().max(1024).default('') }).catchall(z.string().max(4096));
const tokenFormSchema = z.record(z.string(), z.string().max(4096)).default({});
const linkQuerySchema = z.object({ token: z.string().max(256).default('') });

export async function resetRoutes(
  fastify: FastifyInstance,
  { config, resets, keys, requestWindows, support, passkeys }: ResetRoutesOptions,
): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const base = `${config.oidcMountPath}${RESET_PATH}`;
  const passkeyOptionsPath = `${base}/passkey-options`;
  const paths: ResetPaths = {
    request: base,
    verify: `${base}/verify`,
    newPassword: `${base}/new-password`,
    script: `${base}/page.js`,
    signIn: `${config.PUBLIC_URL}/`,
  };
  const publicOrigin = new URL(config.PUBLIC_URL).origin;
  const now = () => fastify.now();
  const requestsPerAddress = new AddressLimiter(
    requestWindows,
    'reset-request',
    RESET_REQUESTS_PER_ADDRESS_PER_HOUR,
    now,
    60 * 60 * 1000,
  );
  const postsPerAddress = new AddressLimiter(
    requestWindows,
    'reset-form',
    RESET_POSTS_PER_ADDRESS_PER_MINUTE,
    now,
  );

  // Every refusal and unexpected error of these routes is a page.
  fastify.setErrorHandler(
    pageErrorHandler({
      title: RESET_TITLE,
      unavailable: RESET_UNAVAILABLE,
      back: { href: base, label: 'Start again' },
    }),
  );

  /** The request form's pages: `same-origin`, so the browser names the portal as the Origin of its post. */
  const formPage = (reply: FastifyReply, statusCode: number, html: string) =>
    sendPage(reply.header('Referrer-Policy', 'same-origin'), statusCode, html);
  /** The link's pages hold the token: never sent on in a Referer. */
  const linkPage = (reply: FastifyReply, statusCode: number, html: string) =>
    sendPage(reply.header('Referrer-Policy', 'no-referrer'), statusCode, html);

  const unavailable = (reply: FastifyReply) =>
    sendPage(
      reply.header('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS)),
      503,
      resetProblemPage(paths, RESET_UNAVAILABLE, { href: base, label: 'Try again' }),
    );

  /** A per-address limit, counted before anything is read; storage unavailable refuses (fail closed). */
  const limitBy =
    (limiter: AddressLimiter) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
      let retryAfter: number;
      try {
        retryAfter = await limiter.hit(request.ip);
      } catch (error) {
        if (!isStorageUnavailableError(error)) throw error;
        request.log.warn({ err: error }, 'password reset refused: its per-address count cannot be stored');
        return unavailable(reply);
      }
      if (retryAfter === 0) return undefined;
      return sendPage(
        reply.header('Retry-After', String(retryAfter)).header('Referrer-Policy', 'no-referrer'),
        429,
        resetProblemPage(paths, tooManyRequestsFromNetwork(retryAfter * 1000)),
      );
    };

  /** A post from another site's page (its Origin is another's; `null` comes from the no-referrer link pages). */
  const fromAnotherSite = (request: FastifyRequest) => {
    const origin = request.headers.origin;
    return origin !== undefined && origin !== 'null' && origin !== publicOrigin;
  };

  const contextOf = (request: FastifyRequest): ResetRequestContext => {
    const device = readDevice(request.headers.cookie, keys);
    return {
      userAgent: request.headers['user-agent'],
      ip: request.ip,
      deviceThrottleKey: (userId) =>
        device?.accounts.includes(userId) ? deviceKey(device.id, userId) : undefined,
    };
  };

  async function answerStep(reply: FastifyReply, token: string, step: ResetLinkStep) {
    switch (step.kind) {
      case 'invalid':
        return linkPage(reply, 410, linkExpiredPage(paths));
      case 'code':
        if (step.retryAfterMs !== undefined)
          reply.header('Retry-After', String(Math.max(1, Math.ceil(step.retryAfterMs / 1000))));
        return linkPage(
          reply,
          step.statusCode,
          resetCodePage(paths, {
            token,
            recoveryCodes: step.recoveryCodes,
            authenticator: step.authenticator,
            passkeys:
              passkeys && step.passkeys
                ? await passkeyPageUi(`${config.oidcMountPath}/interaction`, passkeyOptionsPath)
                : undefined,
            lead: step.lead,
            support,
            error: step.error,
          }),
        );
      case 'password':
        return linkPage(
          reply,
          step.statusCode,
          newPasswordPage(paths, {
            token,
            email: step.email,
            emailOnly2Step: step.emailOnly2Step,
            errors: step.errors,
          }),
        );
      case 'done':
        // The portal's start begins a new sign-in, whose page then says the password has been changed.
        return reply
          .header('Cache-Control', 'no-store')
          .header('Referrer-Policy', 'no-referrer')
          .header(
            'Set-Cookie',
            resetDoneCookie(keys, now(), { path: config.oidcMountPath, secure: config.secureCookies }),
          )
          .redirect(paths.signIn, 303);
    }
  }

  app.get(base, async (_request, reply) => formPage(reply, 200, resetRequestPage(paths)));

  app.post(
    base,
    { schema: { body: requestSchema }, onRequest: limitBy(requestsPerAddress) },
    async (request, reply) => {
      if (fromAnotherSite(request))
        return formPage(reply, 403, resetProblemPage(paths, FORM_FROM_ANOTHER_SITE));
      const email = request.body.email.trim();
      if (email === '') return formPage(reply, 400, resetRequestPage(paths, { error: MISSING_EMAIL }));
      // The same work for every email before the answer (no account is looked up yet).
      const admitted = await resets.admitRequest(email);
      if (admitted.kind === 'throttled') {
        return formPage(
          reply.header('Retry-After', String(Math.max(1, Math.ceil(admitted.retryAfterMs / 1000)))),
          429,
          resetRequestPage(paths, { email, error: tooManyResetRequests(admitted.retryAfterMs) }),
        );
      }
      resets.sendLinkAfterAnswer(email);
      return formPage(reply, 200, checkEmailPage(paths, email));
    },
  );

  app.get(
    `${base}/link`,
    { schema: { querystring: linkQuerySchema }, onRequest: limitBy(postsPerAddress) },
    async (request, reply) => {
      const { token } = request.query;
      return answerStep(reply, token, await resets.open(token));
    },
  );

  app.post(
    `${base}/verify`,
    { schema: { body: tokenFormSchema }, onRequest: limitBy(postsPerAddress) },
    async (request, reply) => {
      if (fromAnotherSite(request))
        return linkPage(reply, 403, resetProblemPage(paths, FORM_FROM_ANOTHER_SITE));
      const token = request.body[CSRF_FIELD] ?? '';
      const step =
        request.body.action === PASSKEY_ACTION
          ? await resets.verifyPasskey(token, passkeyAnswerOf(request.body), contextOf(request))
          : await resets.verify(token, request.body.code ?? '', contextOf(request));
      return answerStep(reply, token, step);
    },
  );

  // The code step's passkey options (its page script asks, posting the token as the form's proof field): JSON.
  app.post(
    passkeyOptionsPath,
    { schema: { body: tokenFormSchema }, onRequest: limitBy(postsPerAddress) },
    async (request, reply) => {
      const json = (statusCode: number, body: unknown) =>
        reply
          .code(statusCode)
          .header('Cache-Control', 'no-store')
          .header('Referrer-Policy', 'no-referrer')
          .type('application/json; charset=utf-8')
          .send(body);
      if (fromAnotherSite(request)) return json(403, { error: FORM_FROM_ANOTHER_SITE });
      const answer = await resets.passkeyOptions(request.body[CSRF_FIELD] ?? '');
      if (answer.kind === 'options') return json(200, { options: answer.options });
      if (answer.retryAfterMs !== undefined)
        reply.header('Retry-After', String(Math.max(1, Math.ceil(answer.retryAfterMs / 1000))));
      return json(answer.statusCode, { error: answer.error });
    },
  );

  app.post(
    `${base}/new-password`,
    { schema: { body: tokenFormSchema }, onRequest: limitBy(postsPerAddress) },
    async (request, reply) => {
      if (fromAnotherSite(request))
        return linkPage(reply, 403, resetProblemPage(paths, FORM_FROM_ANOTHER_SITE));
      const token = request.body[CSRF_FIELD] ?? '';
      const fields = {
        newPassword: request.body.newPassword ?? '',
        confirmPassword: request.body.confirmPassword ?? '',
      };
      return answerStep(reply, token, await resets.setPassword(token, fields, contextOf(request)));
    },
  );

  const script = (reply: FastifyReply, source: string) =>
    reply.header('Cache-Control', 'no-cache').type('text/javascript; charset=utf-8').send(source);
  app.get(`${base}/page.js`, async (_request, reply) => script(reply, RESET_PAGE_SCRIPT));
  app.get(`${base}/password-policy.js`, async (_request, reply) =>
    script(reply, await passwordPolicyModule()),
  );
}
