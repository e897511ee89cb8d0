/** A refusal with a status and a message that is safe to show to the user (`{ error: message }`). */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly statusCode: number,
    message: string,
    /** Extra response headers, e.g. WWW-Authenticate on a 401. */
    readonly headers: Record<string, string> = {},
    /** A machine code the browser reacts to (API_ERROR_CODES of the contract), sent beside `error`. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** RFC 6750 challenge: a bare `Bearer` when no token came, with error="invalid_token" when a bad one did. */
export function unauthorized(message: string, tokenWasSent: boolean): HttpError {
  const challenge = tokenWasSent
    ? `Bearer error="invalid_token", error_description="${message.replace(/["\\]/g, '')}"`
    : 'Bearer';
  return new HttpError(401, message, { 'WWW-Authenticate': challenge });
}
