import type { SignInMethod } from 'shared-auth/contract';
import { SqlActivityEventStore } from '../../storage/activity-events.js';
import { withWritesAlongside } from '../adapter.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { InteractionResults } from 'oidc-provider';
import { z } from 'zod';
import { DEFAULT_SIGN_IN_POSTS_PER_MINUTE } from '../../config/env.js';
import type { AppConfig } from '../../config/index.js';
import { isStorageUnavailableError } from '../../db/errors.js';
import { STORAGE_RETRY_AFTER_SECONDS } from '../../http/storage-unavailable.js';
import type { Directory } from '../../directory/directory.js';
import type { StepUpService } from '../../factors/step-up.js';
import { INTERACTION_PATH } from '../provider.js';
import type { ProviderHolder } from '../provider-holder.js';
import { CSRF_FIELD, csrfToken, isValidCsrfToken } from './csrf.js';
import { deviceCookie, readDevice, trustAccount } from './device-cookie.js';
import { pageErrorHandler, refusalPage } from './error-pages.js';
import {
  FORM_FROM_ANOTHER_SITE,
  FORM_NOT_VALID,
  interactionErrorPage,
  SIGN_IN_UNAVAILABLE,
  signInPage,
  signInUnavailablePage,
  tooManyFormPosts,
} from './pages.js';
import { clearResetDoneCookie, hasResetDone, PASSWORD_CHANGED_NOTICE } from './reset-done-cookie.js';
import { progressOf, saveProgress, type Interaction } from './progress.js';
import { passkeyRoutes, passkeyUiFor } from './passkey-routes.js';
import { SignInKeys } from './secrets.js';
import { buildSteps, PASSWORD_STEP, RECOVERY_CODE_AMR } from './steps.js';
import { SIGN_IN_LIMIT } from '../../throttles/limits.js';
import type { RequestWindows } from '../../storage/request-windows.js';
import { AddressLimiter } from '../../throttles/request-windows.js';
import type { ThrottleEvents } from '../../storage/throttle-events.js';
import { Throttle } from '../../throttles/throttle.js';

const paramsSchema = z.object({ uid: z.string().min(1).max(64) });
const stepParamsSchema = paramsSchema.extend({ step: z.string().min(1).max(64) });
// Form fields of any step; repeated fields (arrays) are refused.
const formSchema = z.record(z.string(), z.string().max(4096)).default({});

/** How a sign-in was completed, for the account's activity, from its `amr` (RFC 8176, and the recovery code's). */
export function signInMethodOf(amr: readonly string[]): SignInMethod {
  if (amr.includes(RECOVERY_CODE_AMR)) return 'recovery-code';
  if (amr.includes('hwk')) return 'passkey';
  if (amr.includes('otp')) return 'password-and-code';
  return 'password';
}

export interface InteractionRoutesOptions {
  config: AppConfig;
  /** The current provider (built again when the keys change). */
  provider: ProviderHolder;
  /** The key ring's cookie keys now: the sign-in pages' HMAC keys derive from them. */
  cookieKeys: () => readonly string[];
  directory: Directory;
  /** 2-step factors: accounts with an active one get the verification-code step. */
  factors: StepUpService;
  /** Failed sign-ins' stored events (`Storage.throttles.signIn`). */
  signInEvents: ThrottleEvents;
  /** The per-address counts of form posts (`Storage.requestWindows`). */
  requestWindows: RequestWindows;
}

/** Sign-in form posts per client address and minute, on every instance together. */
export const FORM_POSTS_PER_MINUTE = DEFAULT_SIGN_IN_POSTS_PER_MINUTE;

/** The provider's interaction pages, mounted at `{mount}/interaction/:uid`. */
export async function interactionRoutes(
  fastify: FastifyInstance,
  {
    config,
    provider,
    cookieKeys,
    directory,
    factors,
    signInEvents,
    requestWindows,
  }: InteractionRoutesOptions,
): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const base = `${config.oidcMountPath}${INTERACTION_PATH}`;
  const keys = new SignInKeys(cookieKeys);
  const publicOrigin = new URL(config.PUBLIC_URL).origin;
  // The app's clock (`app.now`, buildApp's `now` option), like every other time-based limit.
  const now = () => fastify.now();
  // The passkeys domain (plugins/app/passkeys.ts, registered before the provider).
  const { passkeys } = fastify;
  const steps = buildSteps({
    directory,
    factors,
    passkeys,
    throttle: new Throttle(signInEvents, SIGN_IN_LIMIT, now),
    notifier: fastify.notifier,
    activity: fastify.activity,
    hashEmail: (email) => keys.sign('throttle-key', email),
    now,
    lockMs: SIGN_IN_LIMIT.windowMs,
  });
  const formPosts = new AddressLimiter(requestWindows, 'signin-form', config.SIGN_IN_POSTS_PER_MINUTE, now);
  // Passkeys' options (passwordless and the second step) and the pages' scripts.
  await passkeyRoutes(fastify, {
    base,
    publicOrigin,
    provider,
    keys,
    directory,
    passkeys,
    formPosts,
  });
  // The sign-in and 2-step pages answer every refusal and unexpected error as a page, never the API's JSON.
  fastify.setErrorHandler(
    pageErrorHandler({
      title: 'Sign-in problem',
      unavailable: SIGN_IN_UNAVAILABLE,
      back: { href: `${config.PUBLIC_URL}/`, label: 'Return to My Profile and sign in again' },
    }),
  );

  const html = (reply: FastifyReply, statusCode: number, body: string) =>
    reply
      .code(statusCode)
      .header('Cache-Control', 'no-store')
      // The server-wide no-referrer makes browsers post these forms with `Origin: null`; same-origin lets them
      // name the portal (the Origin check below) while the page's address still never leaves the portal.
      .header('Referrer-Policy', 'same-origin')
      .type('text/html; charset=utf-8')
      .send(body);

  async function load(
    request: FastifyRequest,
    reply: FastifyReply,
    uid: string,
  ): Promise<Interaction | undefined> {
    try {
      const interaction = await provider.current.interactionDetails(request.raw, reply.raw);
      if (interaction.uid === uid) return interaction;
    } catch (error) {
      request.log.info({ err: error }, 'sign-in interaction not found');
    }
    html(
      reply,
      400,
      interactionErrorPage(
        'This sign-in page has expired or was opened in another browser.',
        config.PUBLIC_URL,
      ),
    );
    return undefined;
  }

  async function finish(request: FastifyRequest, reply: FastifyReply, result: InteractionResults) {
    const returnTo = await provider.current.interactionResult(request.raw, reply.raw, result, {
      mergeWithLastSubmission: false,
    });
    return reply.header('Cache-Control', 'no-store').redirect(returnTo, 303);
  }

  // Consent is implicit for the first-party client (loadExistingGrant in provider.ts grants it). This is the
  // fallback should the provider still ask: grant exactly what it reports as missing.
  async function autoConsent(request: FastifyRequest, reply: FastifyReply, interaction: Interaction) {
    const { session, params, prompt, grantId } = interaction;
    const accountId = session?.accountId;
    const clientId = typeof params.client_id === 'string' ? params.client_id : undefined;
    if (!accountId || !clientId)
      return html(reply, 400, interactionErrorPage('Sign in first.', config.PUBLIC_URL));
    const grant =
      (grantId ? await provider.current.Grant.find(grantId) : undefined) ??
      new provider.current.Grant({ accountId, clientId });
    const details = prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
    if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, scopes.join(' '));
    }
    return finish(request, reply, { consent: { grantId: await grant.save() } });
  }

  app.get(`${base}/:uid`, { schema: { params: paramsSchema } }, async (request, reply) => {
    const interaction = await load(request, reply, request.params.uid);
    if (!interaction) return reply;
    if (interaction.prompt.name === 'consent') return autoConsent(request, reply, interaction);
    if (interaction.prompt.name !== 'login') {
      return html(
        reply,
        400,
        interactionErrorPage('This sign-in request cannot be completed.', config.PUBLIC_URL),
      );
    }
    const progress = progressOf(interaction);
    const step = steps.get(progress?.step ?? PASSWORD_STEP);
    if (!step) throw new Error(`Unknown sign-in step ${progress?.step}`);
    const context = {
      interactionUid: interaction.uid,
      action: `${base}/${interaction.uid}/${step.name}`,
      csrf: csrfToken(keys, interaction.uid),
      accountId: progress?.accountId,
      passkeys: await passkeyUiFor(base, passkeys, interaction.uid),
    };
    // Just after a password reset (reset-routes.ts): the sign-in page says so, once.
    if (step.name === PASSWORD_STEP && hasResetDone(request.headers.cookie, keys, now())) {
      reply.header(
        'Set-Cookie',
        clearResetDoneCookie({ path: config.oidcMountPath, secure: config.secureCookies }),
      );
      return html(reply, 200, signInPage({ ...context, notice: PASSWORD_CHANGED_NOTICE }));
    }
    return html(reply, 200, await step.render(context));
  });

  async function submit(
    request: FastifyRequest<{ Params: z.infer<typeof stepParamsSchema>; Body: z.infer<typeof formSchema> }>,
    reply: FastifyReply,
  ) {
    const interaction = await load(request, reply, request.params.uid);
    if (!interaction) return reply;
    if (interaction.prompt.name !== 'login') {
      return html(
        reply,
        400,
        interactionErrorPage('This sign-in request is already complete.', config.PUBLIC_URL),
      );
    }
    const progress = progressOf(interaction);
    const expected = progress?.step ?? PASSWORD_STEP;
    const step = steps.get(expected);
    if (!step || request.params.step !== expected) {
      return html(
        reply,
        400,
        interactionErrorPage('This sign-in step is not expected now.', config.PUBLIC_URL),
      );
    }
    const device = readDevice(request.headers.cookie, keys);
    const outcome = await step.submit(
      {
        interactionUid: interaction.uid,
        action: `${base}/${interaction.uid}/${step.name}`,
        csrf: csrfToken(keys, interaction.uid),
        accountId: progress?.accountId,
        passkeys: await passkeyUiFor(base, passkeys, interaction.uid),
        device,
        userAgent: request.headers['user-agent'],
        ip: request.ip,
      },
      request.body,
    );
    switch (outcome.kind) {
      case 'again':
        if (outcome.headers) reply.headers(outcome.headers);
        return html(reply, outcome.statusCode, outcome.html);
      case 'next':
        await saveProgress(interaction, {
          step: outcome.step,
          accountId: outcome.accountId,
          amr: [...(progress?.amr ?? []), ...outcome.amr],
        });
        return reply.redirect(`${base}/${interaction.uid}`, 303);
      case 'done': {
        request.log.info({ accountId: outcome.accountId }, 'signed in');
        const amr = [...new Set([...(progress?.amr ?? []), ...outcome.amr])];
        // This browser is now known to the account: its attempts count under their own throttle key.
        reply.header(
          'Set-Cookie',
          deviceCookie(trustAccount(device, outcome.accountId), keys, {
            path: config.oidcMountPath,
            secure: config.secureCookies,
          }),
        );
        const login = () =>
          finish(request, reply, {
            login: {
              accountId: outcome.accountId,
              amr,
              // A browser session: closing the browser ends the sign-in at the provider.
              remember: false,
            },
          });
        // The account's activity: the sign-in, written in the transaction that saves the interaction's result
        // (described before it, so no parsing runs under the write lock).
        const signedIn = fastify.activity.prepare(
          { userId: outcome.accountId, kind: 'signed-in', detail: signInMethodOf(amr) },
          { userAgent: request.headers['user-agent'], ip: request.ip },
        );
        if (!signedIn) return login();
        return withWritesAlongside(
          {
            interactionResult: async (tx) => {
              await new SqlActivityEventStore(tx).append(signedIn);
            },
          },
          login,
        );
      }
    }
  }

  /** The sign-in can't go on (storage unavailable): the same answer whatever was posted. */
  const unavailable = (reply: FastifyReply, uid: string) =>
    html(
      reply.header('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS)),
      503,
      signInUnavailablePage(`${base}/${uid}`),
    );

  /**
   * Per-address ceiling on top of the per-email throttle of failed passwords, counted in storage so it holds
   * across instances. Every post counts, before its body is read; the refusal is a 429 page with the wait.
   */
  async function limitFormPosts(request: FastifyRequest, reply: FastifyReply) {
    let retryAfter: number;
    try {
      retryAfter = await formPosts.hit(request.ip);
    } catch (error) {
      if (!isStorageUnavailableError(error)) throw error;
      request.log.warn({ err: error }, 'sign-in post refused: its per-address count cannot be stored');
      // The router's match, not yet validated: the page escapes it.
      return unavailable(reply, (request.params as { uid: string }).uid);
    }
    if (retryAfter > 0) {
      const uid = (request.params as { uid?: string }).uid ?? '';
      return html(
        reply.header('Retry-After', String(retryAfter)),
        429,
        refusalPage(
          {
            title: 'Sign-in problem',
            unavailable: SIGN_IN_UNAVAILABLE,
            back: { href: `${base}/${uid}`, label: 'Try again' },
          },
          tooManyFormPosts(retryAfter * 1000),
        ),
      );
    }
  }

  app.post(
    `${base}/:uid/:step`,
    { schema: { params: stepParamsSchema, body: formSchema }, onRequest: limitFormPosts },
    async (request, reply) => {
      // CSRF: a browser's Origin, when it sends one, must be the portal's; the token is checked in every case.
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== publicOrigin) {
        request.log.warn({ origin }, 'sign-in post from another origin refused');
        return html(reply, 403, interactionErrorPage(FORM_FROM_ANOTHER_SITE, config.PUBLIC_URL));
      }
      if (!isValidCsrfToken(keys, request.params.uid, request.body[CSRF_FIELD])) {
        request.log.warn('sign-in post without a valid CSRF token refused');
        return html(reply, 403, interactionErrorPage(FORM_NOT_VALID, config.PUBLIC_URL));
      }
      try {
        return await submit(request, reply);
      } catch (error) {
        if (!isStorageUnavailableError(error)) throw error;
        // Fail closed: an attempt that cannot be recorded is not checked, and the answer is the same whatever
        // was typed.
        request.log.warn({ err: error }, 'sign-in refused: the attempt cannot be recorded');
        reply.removeHeader('Set-Cookie');
        return unavailable(reply, request.params.uid);
      }
    },
  );
}
