/**
 * The sign-in pages' passkey endpoints, beside the steps' forms (routes.ts):
 * - `POST {mount}/interaction/:uid/passkey-options`: the options of navigator.credentials.get() for this
 *   interaction, JSON. The step decides which: on the password step any discoverable passkey (passwordless), on the
 *   verification-code step the account's usable passkeys. The challenge is the passkeys domain's (single use, 5
 *   minutes) bound to the interaction. Guarded like the forms: the per-address form-post limit (stored, so it holds
 *   across instances; a storage error refuses: fail closed), the Origin and the CSRF token. Every refusal is a 4xx
 *   (or 503) JSON `{ error }` with a text for the page, never a 500.
 * - `GET {mount}/interaction/script/:file`: the pages' scripts (passkey-assets.ts), cached for a year.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isStorageUnavailableError } from '../../db/errors.js';
import type { Directory } from '../../directory/directory.js';
import { HttpError } from '../../http/errors.js';
import { STORAGE_RETRY_AFTER_SECONDS } from '../../http/storage-unavailable.js';
import type { PasskeyService } from '../../passkeys/service.js';
import type { AddressLimiter } from '../../throttles/request-windows.js';
import type { ProviderHolder } from '../provider-holder.js';
import { CSRF_FIELD, isValidCsrfToken } from './csrf.js';
import { passkeyAssets, PASSKEY_ASSETS_SEGMENT } from './passkey-assets.js';
import type { PasskeyUi } from './passkey-pages.js';
import { interactionBinding } from './passkey-sign-in.js';
import { FORM_FROM_ANOTHER_SITE, FORM_NOT_VALID, SIGN_IN_UNAVAILABLE, tooManyFormPosts } from './pages.js';
import { progressOf } from './progress.js';
import type { SignInKeys } from './secrets.js';
import { PASSWORD_STEP, VERIFICATION_CODE_STEP } from './steps.js';

/** The last path segment of the options endpoint. */
export const PASSKEY_OPTIONS_SEGMENT = 'passkey-options';

export const SIGN_IN_EXPIRED = 'This sign-in page has expired or was opened in another browser.';
const SIGN_IN_COMPLETE = 'This sign-in request is already complete.';

const paramsSchema = z.object({ uid: z.string().min(1).max(64) });
const bodySchema = z.record(z.string(), z.string().max(4096)).default({});
const fileSchema = z.object({ file: z.string().min(1).max(64) });

export interface PasskeyRoutesOptions {
  /** `{mount}/interaction`. */
  base: string;
  publicOrigin: string;
  provider: ProviderHolder;
  keys: SignInKeys;
  directory: Directory;
  passkeys: PasskeyService;
  /** The sign-in form's per-address limit: these posts count with the forms'. */
  formPosts: AddressLimiter;
}

/** The page parts of an interaction's passkeys (undefined when passkeys or their scripts are not available). */
export async function passkeyUiFor(
  base: string,
  passkeys: PasskeyService,
  interactionUid: string,
): Promise<PasskeyUi | undefined> {
  if (!passkeys.available) return undefined;
  return passkeyPageUi(base, `${base}/${interactionUid}/${PASSKEY_OPTIONS_SEGMENT}`);
}

/**
 * The page parts of a passkey check whose options come from `optionsUrl` (the sign-in's, or a reset link's), the
 * scripts served below `base` (`{mount}/interaction`); undefined when the scripts cannot be read.
 */
export async function passkeyPageUi(base: string, optionsUrl: string): Promise<PasskeyUi | undefined> {
  let files;
  try {
    files = await passkeyAssets();
  } catch {
    // The scripts cannot be read (logged at start-up): the pages go on without passkeys rather than fail.
    return undefined;
  }
  const { library, page } = files;
  return {
    optionsUrl,
    scripts: [library, page].map((file) => `${base}/${PASSKEY_ASSETS_SEGMENT}/${file}`),
  };
}

export async function passkeyRoutes(
  fastify: FastifyInstance,
  { base, publicOrigin, provider, keys, directory, passkeys, formPosts }: PasskeyRoutesOptions,
): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // Read once now, so a missing library shows in the start-up log (the pages then offer no passkeys).
  await passkeyAssets().catch((error: unknown) =>
    fastify.log.error(
      { err: error },
      'sign-in pages: the passkey scripts cannot be read; passkeys are off there',
    ),
  );

  const json = (reply: FastifyReply, statusCode: number, body: unknown) =>
    reply
      .code(statusCode)
      .header('Cache-Control', 'no-store')
      .type('application/json; charset=utf-8')
      .send(body);
  const refuse = (reply: FastifyReply, statusCode: number, error: string) =>
    json(reply, statusCode, { error });

  /** The per-address limit, counted before the body is read; a count that cannot be stored refuses. */
  async function limit(request: FastifyRequest, reply: FastifyReply) {
    let retryAfter: number;
    try {
      retryAfter = await formPosts.hit(request.ip);
    } catch (error) {
      if (!isStorageUnavailableError(error)) throw error;
      request.log.warn({ err: error }, 'passkey options refused: the per-address count cannot be stored');
      return refuse(
        reply.header('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS)),
        503,
        SIGN_IN_UNAVAILABLE,
      );
    }
    if (retryAfter > 0) {
      return refuse(
        reply.header('Retry-After', String(retryAfter)),
        429,
        tooManyFormPosts(retryAfter * 1000),
      );
    }
  }

  app.post(
    `${base}/:uid/${PASSKEY_OPTIONS_SEGMENT}`,
    { schema: { params: paramsSchema, body: bodySchema }, onRequest: limit },
    async (request, reply) => {
      try {
        return await options(request, reply);
      } catch (error) {
        if (!isStorageUnavailableError(error)) throw error;
        request.log.warn({ err: error }, 'passkey options refused: storage unavailable');
        return refuse(
          reply.header('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS)),
          503,
          SIGN_IN_UNAVAILABLE,
        );
      }
    },
  );

  async function options(
    request: FastifyRequest<{ Params: z.infer<typeof paramsSchema>; Body: z.infer<typeof bodySchema> }>,
    reply: FastifyReply,
  ) {
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== publicOrigin) return refuse(reply, 403, FORM_FROM_ANOTHER_SITE);
    const { uid } = request.params;
    if (!isValidCsrfToken(keys, uid, request.body[CSRF_FIELD])) return refuse(reply, 403, FORM_NOT_VALID);
    let interaction;
    try {
      interaction = await provider.current.interactionDetails(request.raw, reply.raw);
    } catch (error) {
      if (isStorageUnavailableError(error)) throw error;
      request.log.info({ err: error }, 'passkey options: sign-in interaction not found');
    }
    if (!interaction || interaction.uid !== uid) return refuse(reply, 400, SIGN_IN_EXPIRED);
    if (interaction.prompt.name !== 'login') return refuse(reply, 400, SIGN_IN_COMPLETE);
    const progress = progressOf(interaction);
    const step = progress?.step ?? PASSWORD_STEP;
    try {
      let user = null;
      if (step === VERIFICATION_CODE_STEP) {
        user = progress ? ((await directory.findById(progress.accountId)) ?? null) : null;
        if (!user) return refuse(reply, 400, SIGN_IN_EXPIRED);
      } else if (step !== PASSWORD_STEP) {
        return refuse(reply, 400, SIGN_IN_EXPIRED);
      }
      return json(reply, 200, await passkeys.authenticationOptions(user, interactionBinding(uid)));
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      if (error.headers) reply.headers(error.headers);
      return refuse(reply, error.statusCode, error.message);
    }
  }

  app.get(
    `${base}/${PASSKEY_ASSETS_SEGMENT}/:file`,
    { schema: { params: fileSchema } },
    async (request, reply) => {
      const source = (await passkeyAssets()).files.get(request.params.file);
      if (source === undefined) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
      return (
        reply
          // Named by version or content hash: a new script is a new name.
          .header('Cache-Control', 'public, max-age=31536000, immutable')
          .type('text/javascript; charset=utf-8')
          .send(source)
      );
    },
  );
}
