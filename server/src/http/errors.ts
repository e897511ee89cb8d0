import { defaultErrorCodeOf, type ApiErrorAnswer, type ApiErrorCode } from 'shared-auth/contract';

/**
 * A refusal with a status, a message that is safe to show to the user, and the contract's machine code:
 * answered as `{ error: message, code }`. Without a code, the general code of the status (400 invalid_request,
 * 409 conflict, …).
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly code: ApiErrorCode;
  constructor(
    readonly statusCode: number,
    message: string,
    /** Extra response headers, e.g. WWW-Authenticate on a 401. */
    readonly headers: Record<string, string> = {},
    code?: ApiErrorCode,
    /** More fields of the answer's body beside `error` and `code` (a reauthentication_required's `proof`). */
    readonly details: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.code = code ?? defaultErrorCodeOf(statusCode);
  }
}

/** A refusal of the contract's list (API_ERRORS): its status and code, with this text. */
export function refusal(
  answer: ApiErrorAnswer,
  message: string,
  headers: Record<string, string> = {},
): HttpError {
  return new HttpError(answer.status, message, headers, answer.code);
}

/** RFC 6750 challenge: a bare `Bearer` when no token came, with error="invalid_token" when a bad one did. */
export function unauthorized(message: string, tokenWasSent: boolean): HttpError {
  const challenge = tokenWasSent
    ? `Bearer error="invalid_token", error_description="${message.replace(/["\\]/g, '')}"`
    : 'Bearer';
  return new HttpError(401, message, { 'WWW-Authenticate': challenge });
}
