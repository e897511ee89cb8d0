import { API_ERROR_CODES, isApiError, type ReauthenticationProof } from 'shared-auth';

/**
 * What a failed call means to a page, decided once for every remote:
 * - throttled: 429; the server's text says how long to wait (Retry-After), and the user may try again after it;
 * - step_up_required: 403; the page runs the step-up screens, then the call again;
 * - reauthentication_required: 403; "Confirm it's you" (the password, or a new sign-in: `proof`), then the call
 *   again;
 * - invalid_code: 400; the code entered was not accepted;
 * - refused: any other 4xx; the server's text is for the user;
 * - failed: a 5xx, no answer, or an answer the client could not read; the page's error view.
 */
export type CallFailure =
  | { kind: 'throttled'; message: string; retryAfterSeconds: number | undefined }
  | { kind: 'step_up_required'; message: string }
  | { kind: 'reauthentication_required'; message: string; proof: ReauthenticationProof }
  | { kind: 'invalid_code'; message: string }
  | { kind: 'refused'; status: number; message: string }
  | { kind: 'failed'; status: number; message: string };

/** The wait a 429 asked for, when the client read its Retry-After header (seconds). */
function retryAfterOf(error: object): number | undefined {
  const value = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : undefined;
}

/** How the refusal asks the user to prove it is them; a server (or shell) from before `proof`: the password. */
function proofOf(error: object): ReauthenticationProof {
  return (error as { proof?: unknown }).proof === 'sign-in' ? 'sign-in' : 'password';
}

/** "Try again in 45 seconds" / "in 2 minutes": the wait as the server's own texts say it. */
export function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}

function throttled(
  code: string | undefined,
  message: string,
  retryAfterSeconds: number | undefined,
): CallFailure {
  // The server's 429 (rate_limited) texts say how long to wait; a bare 429 (a proxy's, say), which carries the
  // client's own text and no code, gets the wait from Retry-After.
  const text =
    code === API_ERROR_CODES.rateLimited
      ? message
      : retryAfterSeconds
        ? `Too many attempts. Try again in ${describeWait(retryAfterSeconds)}.`
        : 'Too many attempts. Wait a moment and try again.';
  return { kind: 'throttled', message: text, retryAfterSeconds };
}

export function classifyFailure(error: unknown): CallFailure {
  if (!isApiError(error)) {
    // Not a refusal: an answer outside the contract, or a bug. The page's error view.
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'failed', status: 0, message };
  }
  const { status, code, message } = error;
  // A refusal's meaning is its code, never its text (the text is for the user).
  if (status === 429) return throttled(code, message, retryAfterOf(error));
  if (status === 403 && code === API_ERROR_CODES.stepUpRequired) return { kind: 'step_up_required', message };
  if (status === 403 && code === API_ERROR_CODES.reauthenticationRequired)
    return { kind: 'reauthentication_required', message, proof: proofOf(error) };
  if (status === 400 && code === API_ERROR_CODES.invalidCode) return { kind: 'invalid_code', message };
  if (status >= 400 && status < 500) return { kind: 'refused', status, message };
  return { kind: 'failed', status, message };
}

/** A refusal that asks for step-up verification first: the page shows the step-up screens, not an error. */
export function isStepUpRequired(error: unknown): boolean {
  return classifyFailure(error).kind === 'step_up_required';
}

/** A refusal that asks for the password again first ("Confirm it's you"). */
export function isReauthenticationRequired(error: unknown): boolean {
  return classifyFailure(error).kind === 'reauthentication_required';
}
