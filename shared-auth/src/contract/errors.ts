import { z } from 'zod';
import { reauthenticationProofSchema, type ReauthenticationProof } from './stepup.js';

/**
 * Every refusal of the API: its HTTP status and the stable machine `code` it carries beside the human `error`
 * text. Clients recognise a meaning by its code, never by its text; the text is what the user reads (the spec's
 * clients read `error`, so it stays).
 */
export const API_ERRORS = {
  // ---- Any call -------------------------------------------------------------------------------------------
  /** 400: the path, the body or its JSON is not what the call takes. */
  invalidRequest: { status: 400, code: 'invalid_request' },
  /** 401: no bearer token, a refused one, or its user no longer exists. */
  unauthorized: { status: 401, code: 'unauthorized' },
  /** 403, of another kind than those below. */
  forbidden: { status: 403, code: 'forbidden' },
  /** 403: the `{sub}` of the path is not the caller's own account. */
  forbiddenSub: { status: 403, code: 'forbidden_sub' },
  /** 404: no such path, or the account no longer exists. */
  notFound: { status: 404, code: 'not_found' },
  /** 409, of another kind than those below. */
  conflict: { status: 409, code: 'conflict' },
  /** 413 */
  bodyTooLarge: { status: 413, code: 'body_too_large' },
  /** 414: a path segment over the router's length limit. */
  pathTooLong: { status: 414, code: 'path_too_long' },
  /** 415: the body is not sent as application/json. */
  unsupportedMediaType: { status: 415, code: 'unsupported_media_type' },
  /** 429: any throttle (the flood guard, wrong codes, wrong passwords, email sends); Retry-After says when. */
  rateLimited: { status: 429, code: 'rate_limited' },
  /** 500: anything not foreseen (for the password change, the spec's generic text). */
  internalError: { status: 500, code: 'internal_error' },
  /** 502: a service the API depends on failed (the verification email could not be sent, Okta answered an error). */
  upstreamFailed: { status: 502, code: 'upstream_failed' },
  /** 503, of another kind than storage (Okta unreachable or rate-limited); Retry-After when known. */
  serviceUnavailable: { status: 503, code: 'service_unavailable' },
  /** 503: the database cannot take the request right now; Retry-After says when to try again. */
  storageUnavailable: { status: 503, code: 'storage_unavailable' },

  // ---- Signed-in account ----------------------------------------------------------------------------------
  /** 403: federated users' password and security belong to their home identity provider (spec section 6). */
  federatedUser: { status: 403, code: 'federated_user' },

  // ---- Step-up and factors --------------------------------------------------------------------------------
  /** 403: verify with a 2-step factor first (the step-up screens), then retry. */
  stepUpRequired: { status: 403, code: 'step_up_required' },
  /**
   * 403: turning on the first factor needs a recent sign-in or the password again ("Confirm it's you"); `proof`
   * says which (reauthenticationProofSchema).
   */
  reauthenticationRequired: { status: 403, code: 'reauthentication_required' },
  /** 400: a wrong (or used, or expired) verification code: the spec's 'ERROR: invalid code'. */
  invalidCode: { status: 400, code: 'invalid_code' },
  /** 409: the factor is not in a state that allows this (not set up, already set up, not turned on). */
  factorState: { status: 409, code: 'factor_state' },
  /** 409: turning off or removing the only active factor. */
  lastFactor: { status: 409, code: 'last_factor' },
  /** 409: "Confirm it's you" with the password, for an account that verifies with a factor instead. */
  hasActiveFactor: { status: 409, code: 'has_active_factor' },
  /** 409: recovery codes need a 2-step method turned on first. */
  noActiveFactor: { status: 409, code: 'no_active_factor' },
  /** 409 (Okta mode): the identity provider's sign-in cannot accept the portal's recovery codes. */
  recoveryCodesUnavailable: { status: 409, code: 'recovery_codes_unavailable' },
  /**
   * 400: the browser's passkey answer is refused (a wrong or used challenge, another origin, no user verification, an
   * unknown or another account's passkey, a signature counter that went backwards).
   */
  passkeyRefused: { status: 400, code: 'passkey_refused' },
  /** 409: this identity backend cannot hold passkeys for the portal, or cannot do this with them (rename in Okta mode). */
  passkeysUnavailable: { status: 409, code: 'passkeys_unavailable' },

  // ---- Activity -------------------------------------------------------------------------------------------
  /**
   * 501 (Okta mode): the account's security events are the org's (its System Log), which the portal does not read
   * yet. Not an empty list: the page must not say "no activity" when it simply cannot know.
   */
  activityUnavailable: { status: 501, code: 'activity_unavailable' },

  // ---- Devices (sessions) ---------------------------------------------------------------------------------
  /** 409: "Sign out" of the session that asks: the holder signs out of it with Log out. */
  currentSession: { status: 409, code: 'current_session' },
  /**
   * 501: the identity backend cannot end the account's sessions ("sign out everywhere" with a backend that lacks
   * it). Servers before Okta mode's own list (migration 020) answered it to the list and to signing out one or the
   * others too; the page still shows its text then, never an empty list.
   */
  sessionsUnavailable: { status: 501, code: 'sessions_unavailable' },

  // ---- Releases (issue 23) --------------------------------------------------------------------------------
  /** 401: no `Authorization: Deploy <key>`, or a key the server does not know (or revoked). */
  invalidDeployKey: { status: 401, code: 'invalid_deploy_key' },
  /** 403: the deploy key belongs to another remote. */
  forbiddenRemote: { status: 403, code: 'forbidden_remote' },
  /** 409: this version is published already, with other data. */
  versionExists: { status: 409, code: 'version_exists' },
  /** 409: no canary to clear and no previous stable to go back to. */
  nothingToRollBack: { status: 409, code: 'nothing_to_roll_back' },

  // ---- Passwords ------------------------------------------------------------------------------------------
  /** 400: the password entered (current password, or "Confirm it's you") is not the account's. */
  wrongPassword: { status: 400, code: 'wrong_password' },
  /** 400: the new password fails rules of the password policy; `error` lists them. */
  passwordPolicy: { status: 400, code: 'password_policy' },
  /** 409 (Okta mode): the account has no password in this directory. */
  noLocalPassword: { status: 409, code: 'no_local_password' },
  /** 409: another request changed the password meanwhile. */
  concurrentChange: { status: 409, code: 'concurrent_change' },
} as const satisfies Record<string, { status: number; code: string }>;

export type ApiErrorName = keyof typeof API_ERRORS;
export type ApiErrorAnswer = (typeof API_ERRORS)[ApiErrorName];
export type ApiErrorCode = ApiErrorAnswer['code'];

/** The codes by name: `API_ERROR_CODES.stepUpRequired === 'step_up_required'`. */
export const API_ERROR_CODES = Object.fromEntries(
  Object.entries(API_ERRORS).map(([name, answer]) => [name, answer.code]),
) as { readonly [N in ApiErrorName]: (typeof API_ERRORS)[N]['code'] };

/** Codes of the browser's own ApiErrors (status 0 or an unreadable answer): no server sends them. */
export const CLIENT_ERROR_CODES = {
  /** The request's signal ended it: the screen that asked went away. Nothing to show. */
  aborted: 'aborted',
  /** A success answer whose body is not the declared one. */
  invalidResponse: 'invalid_response',
} as const;

/** The code of a refusal that names no more precise one: the general code of its status. */
export function defaultErrorCodeOf(status: number): ApiErrorCode {
  switch (status) {
    case 400:
      return 'invalid_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 413:
      return 'body_too_large';
    case 414:
      return 'path_too_long';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limited';
    case 502:
      return 'upstream_failed';
    case 503:
      return 'service_unavailable';
    default:
      return status >= 400 && status < 500 ? 'invalid_request' : 'internal_error';
  }
}

/**
 * Every refusal of the API has this shape; the spec's clients read `error`. `code` stays any text here, so a
 * client keeps working with a server that adds codes it does not know yet (or sends none, as the spec's does).
 */
export const errorResponseSchema = z.object({
  error: z.string(),
  code: z.string().optional(),
  /** reauthentication_required only: how to prove it is the user. Any other value is ignored. */
  proof: reauthenticationProofSchema.optional().catch(undefined),
});
export type ErrorResponse = z.infer<typeof errorResponseSchema>;

/** A refusal or failure of an API call, carrying the server's `error` text when it sent one. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    message: string,
    /** HTTP status, or 0 when no answer arrived. */
    readonly status: number,
    /** The server's machine `code` (API_ERROR_CODES), when the refusal carries one. */
    readonly code?: string,
    /** The wait a 429 or 503 asked for (its Retry-After header, in seconds), when the browser could read it. */
    readonly retryAfterSeconds?: number,
    /** A reauthentication_required refusal's way to prove it is the user, when the server said. */
    readonly proof?: ReauthenticationProof,
  ) {
    super(message);
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof Error && value.name === 'ApiError' && 'status' in value;
}
