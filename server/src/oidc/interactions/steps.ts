/**
 * Sign-in is a sequence of steps, each a page with a form. A step's submit either shows its page again
 * (with an error), hands over to another step, or finishes the login. Today there is one step, "password".
 *
 * Adding 2-step verification later: write a step named e.g. "verification-code" (render + submit), add it to
 * `buildSteps`, and make `nextStepAfterPassword` return its name for users who have a second factor. The
 * routes then keep the verified account id in the interaction (server side) and show that step next; the
 * password step needs no change.
 */
import type { Directory, User } from '../../directory/directory.js';
import { MISSING_CREDENTIALS, signInPage, tooManyAttempts, WRONG_CREDENTIALS } from './pages.js';
import type { SignInThrottle } from './throttle.js';

export type StepOutcome =
  /** Show the step's page again, e.g. with an error. */
  | { kind: 'again'; statusCode: number; html: string }
  /** The account is identified; continue with another step before finishing. */
  | { kind: 'next'; step: string; accountId: string; amr: string[] }
  /** The login is complete. */
  | { kind: 'done'; accountId: string; amr: string[] };

export interface StepContext {
  /** Where this step's form posts to. */
  action: string;
  /** Set once an earlier step identified the account. */
  accountId?: string | undefined;
}

export interface SignInStep {
  name: string;
  render(context: StepContext): string;
  submit(context: StepContext, form: Record<string, string | undefined>): Promise<StepOutcome>;
}

/** Which step follows a correct password; undefined means the login is done. */
export type NextStepAfterPassword = (user: User) => string | undefined;

export const PASSWORD_STEP = 'password';

export function passwordStep(
  directory: Directory,
  throttle: SignInThrottle,
  nextStepAfterPassword: NextStepAfterPassword,
): SignInStep {
  return {
    name: PASSWORD_STEP,
    render: ({ action }) => signInPage({ action }),
    async submit({ action }, form) {
      const email = (form.email ?? '').trim();
      const password = form.password ?? '';
      if (email === '' || password === '') {
        return {
          kind: 'again',
          statusCode: 400,
          html: signInPage({ action, email, error: MISSING_CREDENTIALS }),
        };
      }
      const wait = throttle.retryAfter(email);
      if (wait > 0) {
        return {
          kind: 'again',
          statusCode: 429,
          html: signInPage({ action, email, error: tooManyAttempts(wait) }),
        };
      }
      const user = await directory.verifyPassword(email, password);
      if (!user) {
        throttle.recordFailure(email);
        return {
          kind: 'again',
          statusCode: 401,
          html: signInPage({ action, email, error: WRONG_CREDENTIALS }),
        };
      }
      throttle.recordSuccess(email);
      const next = nextStepAfterPassword(user);
      return next
        ? { kind: 'next', step: next, accountId: user.id, amr: ['pwd'] }
        : { kind: 'done', accountId: user.id, amr: ['pwd'] };
    },
  };
}

export function buildSteps(directory: Directory, throttle: SignInThrottle): Map<string, SignInStep> {
  // No second factor yet: every correct password finishes the login.
  const steps = [passwordStep(directory, throttle, () => undefined)];
  return new Map(steps.map((step) => [step.name, step]));
}
