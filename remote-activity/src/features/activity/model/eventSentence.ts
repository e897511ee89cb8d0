/**
 * One plain sentence per kind of event and its detail ("Signed in with your password and a code", "2-step method
 * added: Authenticator app"). The switch over the contract's ACTIVITY_EVENT_KINDS is exhaustive, and each detail
 * table covers its whole union, so a kind or a detail added to the contract fails the type check here until it
 * has its sentence. A detail this page does not know (a newer server) gets the kind's plain sentence.
 */
import type {
  ActivityEvent,
  ActivityEventKind,
  ActivityMethod,
  RECOVERY_CODE_USES,
  SessionSignOutScope,
  SignInFailure,
  SignInMethod,
} from 'shared-auth';

type RecoveryCodeUse = (typeof RECOVERY_CODE_USES)[number];

const SIGN_IN_SENTENCES: Record<SignInMethod, string> = {
  password: 'Signed in with your password',
  'password-and-code': 'Signed in with your password and a code',
  passkey: 'Signed in with a passkey',
  'recovery-code': 'Signed in with a recovery code',
};

const FAILURE_REASONS: Record<SignInFailure, string> = {
  'wrong-password': 'wrong password',
  'wrong-code': 'wrong code',
  locked: 'too many attempts, sign-in locked for a while',
};

/** The 2-step method's name, as the Security page calls it. */
export const METHOD_NAMES: Record<ActivityMethod, string> = {
  googleAuth: 'Authenticator app',
  email: 'Email',
  passkey: 'Passkey',
};

const RECOVERY_CODE_SENTENCES: Record<RecoveryCodeUse, string> = {
  'sign-in': 'Recovery code used to sign in',
  'step-up': "Recovery code used to verify it's you",
  'password-reset': 'Recovery code used to reset your password',
};

const SIGN_OUT_SCOPES: Record<SessionSignOutScope, string> = {
  one: 'another device',
  others: 'all other devices',
  everywhere: 'every device',
};

/** What a "This wasn't me" report was about: the reported event's kind, as a noun. */
const REPORTED_KINDS: Record<ActivityEventKind, string> = {
  'signed-in': 'a sign-in',
  'sign-in-failed': 'a failed sign-in',
  'signed-out': 'a sign-out',
  'password-changed': 'a password change',
  'password-reset': 'a password reset',
  'method-added': 'a 2-step method added',
  'method-turned-on': 'a 2-step method turned on',
  'method-turned-off': 'a 2-step method turned off',
  'method-removed': 'a 2-step method removed',
  'recovery-codes-generated': 'new recovery codes',
  'recovery-code-used': 'a recovery code used',
  'sessions-signed-out': 'sessions signed out',
  'reported-not-me': 'a report',
};

/** The table's entry for `detail`, when it is one of its keys. */
function lookUp<K extends string>(table: Record<K, string>, detail: string | null): string | undefined {
  return detail !== null && Object.hasOwn(table, detail) ? table[detail as K] : undefined;
}

/** "{what}: {detail}", or `what` alone when the detail is unknown. */
const withDetail = (what: string, detail: string | undefined) => (detail ? `${what}: ${detail}` : what);

export function eventSentence({ kind, detail }: Pick<ActivityEvent, 'kind' | 'detail'>): string {
  switch (kind) {
    case 'signed-in':
      return lookUp(SIGN_IN_SENTENCES, detail) ?? 'Signed in';
    case 'sign-in-failed':
      return withDetail('Failed sign-in', lookUp(FAILURE_REASONS, detail));
    case 'signed-out':
      return 'Signed out';
    case 'password-changed':
      return 'Password changed';
    case 'password-reset':
      return 'Password reset';
    case 'method-added':
      return withDetail('2-step method added', lookUp(METHOD_NAMES, detail));
    case 'method-turned-on':
      return withDetail('2-step method turned on', lookUp(METHOD_NAMES, detail));
    case 'method-turned-off':
      return withDetail('2-step method turned off', lookUp(METHOD_NAMES, detail));
    case 'method-removed':
      return withDetail('2-step method removed', lookUp(METHOD_NAMES, detail));
    case 'recovery-codes-generated':
      return 'New recovery codes generated';
    case 'recovery-code-used':
      return lookUp(RECOVERY_CODE_SENTENCES, detail) ?? 'Recovery code used';
    case 'sessions-signed-out':
      return withDetail('Sessions signed out', lookUp(SIGN_OUT_SCOPES, detail));
    case 'reported-not-me':
      return withDetail('Reported as not you', lookUp(REPORTED_KINDS, detail));
    default:
      return unknownKind(kind);
  }
}

/** Never reached while the switch covers every kind: a new kind makes `kind` not `never`, and tsc fails. */
function unknownKind(kind: never): string {
  return `Security event (${String(kind)})`;
}
