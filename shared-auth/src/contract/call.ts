import { z } from 'zod';
import { API_ERRORS, type ApiErrorName } from './errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * One call of the API, declared once for the server (which registers its route from it) and the browser (which
 * derives its caller from it). The path is a Fastify route template: `/api/profile/:sub/isfederated`.
 */
export interface ApiCall {
  readonly method: HttpMethod;
  readonly path: string;
  /** The path's `:name` params; their names match the template (checked by the contract test). */
  readonly params?: z.ZodType<Record<string, string>, Record<string, string>>;
  readonly body?: z.ZodType;
  /** The query string's parameters (text in, as sent), when the call takes any. */
  readonly query?: z.ZodType<unknown, Record<string, string | undefined>>;
  /** The success answer, sent as JSON text that holds this JSON (spec section 7). */
  readonly response: z.ZodType;
  /** No bearer token: the settings load before anyone signs in. */
  readonly public?: boolean;
  /**
   * The spec says "an ok answer means saved / sent / verified" for this call: the browser takes any 2xx answer as
   * done, whatever its body (another server of the spec may answer with another body).
   */
  readonly okMeansDone?: boolean;
  /** The refusals particular to this call, beside those any call may answer (COMMON_ERRORS). */
  readonly errors: readonly ApiErrorName[];
}

/** Keeps the literal types of a declaration while checking it is one. */
export function defineCall<const C extends ApiCall>(call: C): C {
  return call;
}

/** Refusals any call may answer: a bad request, the flood guard, storage, the unforeseen. */
export const COMMON_ERRORS = [
  'invalidRequest',
  'bodyTooLarge',
  'unsupportedMediaType',
  'rateLimited',
  'storageUnavailable',
  'internalError',
] as const satisfies readonly ApiErrorName[];

/**
 * Refusals any signed-in call may answer: the token, the `{sub}`, and the identity backend behind every one of
 * them (the caller's account is read from it): in Okta mode Okta failing (502) or unreachable or rate-limited
 * (503, with Retry-After).
 */
export const SIGNED_IN_ERRORS = [
  'unauthorized',
  'forbiddenSub',
  'upstreamFailed',
  'serviceUnavailable',
] as const satisfies readonly ApiErrorName[];

/** Every refusal a call may answer, with its status and code. */
export function errorAnswersOf(call: ApiCall) {
  const names = [...COMMON_ERRORS, ...(call.public ? [] : SIGNED_IN_ERRORS), ...call.errors];
  return [...new Set(names)].map((name) => API_ERRORS[name]);
}

/** The `{sub}` of every per-account path: the caller's own user id (the server checks it is theirs). */
export const subParamsSchema = z.object({ sub: z.string().min(1).max(100) });
export type SubParams = z.infer<typeof subParamsSchema>;

/** The names of a template's `:name` params, in order. */
export function paramNamesOf(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1] ?? '');
}

/** The path of a call for these params, each percent-encoded: `/api/profile/00u1/isfederated`. */
export function pathOf(template: string, params: Record<string, string> = {}): string {
  return template.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${template}: no value for :${name}`);
    return encodeURIComponent(value);
  });
}
