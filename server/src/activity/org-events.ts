/**
 * Okta mode's activity: the org's System Log events (LogEvent) mapped to the portal's events, the same kinds and
 * details as embedded mode's. The table of what maps to what is in server/README.md ("Activity", Okta mode); an event
 * of another type, or one the table does not list (another outcome, another user's account), is skipped.
 */
import { COUNTRIES, type ActivityEvent, type ActivityMethod, type SignInMethod } from 'shared-auth/contract';
import { z } from 'zod';
import type { ClientDescriber } from '../clients/describe.js';

/** The System Log event types the list reads (the filter asks Okta for these only). */
export const ORG_ACTIVITY_EVENT_TYPES = [
  'user.session.start',
  'user.authentication.auth_via_mfa',
  'user.session.end',
  'user.session.clear',
  'user.account.lock',
  'user.account.update_password',
  'user.account.reset_password',
  'user.mfa.factor.activate',
  'user.mfa.factor.deactivate',
  'user.mfa.factor.reset_all',
] as const;

/** Okta's fields the mapping reads; the SDK gives `published` as a Date, Okta's JSON as text. */
const text = z.string().nullish();
const logTarget = z.object({
  id: text,
  type: text,
  displayName: text,
  detailEntry: z.record(z.string(), z.unknown()).nullish(),
});
const logEvent = z.object({
  uuid: z.string().min(1),
  published: z.union([z.date(), z.string()]).transform((value, context) => {
    const ms = value instanceof Date ? value.getTime() : Date.parse(value);
    if (Number.isNaN(ms)) {
      context.addIssue({ code: 'custom', message: 'published is not a time' });
      return z.NEVER;
    }
    return ms;
  }),
  eventType: z.string(),
  actor: z.object({ id: text, type: text }).nullish(),
  target: z.array(logTarget).nullish(),
  outcome: z.object({ result: text, reason: text }).nullish(),
  client: z
    .object({
      ipAddress: text,
      userAgent: z.object({ rawUserAgent: text }).nullish(),
      geographicalContext: z.object({ country: text }).nullish(),
    })
    .nullish(),
  authenticationContext: z.object({ externalSessionId: text, credentialType: text }).nullish(),
});
type LogEvent = z.infer<typeof logEvent>;

/** A factor as an event names it: one of the portal's methods, the password, or another (Okta Verify, SMS…). */
type Authenticator = ActivityMethod | 'password' | 'other';

/**
 * The authenticator of a factor event, from its non-user target: the authenticator's name Okta shows
 * (`displayName`: "Google Authenticator", "Email", "Password", "Passkey (FIDO2 WebAuthn)", "Security Key or
 * Biometric") or the method its detail names (`detailEntry.methodTypeUsed`).
 */
export function authenticatorOf(event: Pick<LogEvent, 'target'>): Authenticator | undefined {
  for (const target of event.target ?? []) {
    if (target.type === 'User') continue;
    const used = target.detailEntry?.methodTypeUsed;
    const name = `${target.displayName ?? ''} ${typeof used === 'string' ? used : ''}`.trim();
    if (name === '') continue;
    if (/google authenticator/i.test(name)) return 'googleAuth';
    if (/webauthn|passkey|fido|security key|biometric/i.test(name)) return 'passkey';
    if (/^e-?mail\b/i.test(name)) return 'email';
    if (/^password\b/i.test(name)) return 'password';
    return 'other';
  }
  return undefined;
}

/** Whether the account is the event's actor (its own sign-in), or a target (a change made to it). */
const isActor = (event: LogEvent, userId: string) =>
  event.actor?.type === 'User' && event.actor.id === userId;
const isTarget = (event: LogEvent, userId: string) =>
  (event.target ?? []).some((target) => target.type === 'User' && target.id === userId);
/** A change of this account: done to it, or done by the holder to no other user. */
const concernsAccount = (event: LogEvent, userId: string) =>
  isTarget(event, userId) ||
  (isActor(event, userId) && !(event.target ?? []).some((target) => target.type === 'User'));

/** The sign-in's methods: the authenticators verified in each Okta session (`externalSessionId`) of the page. */
function verifiedBySession(events: readonly LogEvent[], userId: string): Map<string, Set<Authenticator>> {
  const sessions = new Map<string, Set<Authenticator>>();
  for (const event of events) {
    const session = event.authenticationContext?.externalSessionId;
    if (
      event.eventType !== 'user.authentication.auth_via_mfa' ||
      event.outcome?.result !== 'SUCCESS' ||
      !session ||
      !isActor(event, userId)
    ) {
      continue;
    }
    const verified = sessions.get(session) ?? new Set<Authenticator>();
    verified.add(authenticatorOf(event) ?? 'other');
    sessions.set(session, verified);
  }
  return sessions;
}

/**
 * How a session was signed in to, as far as the page's events tell: a passkey alone (a webauthn verification and
 * no password), the password and a code (any other factor verified in the session), else the password.
 */
function signInMethod(event: LogEvent, verified: Set<Authenticator> | undefined): SignInMethod {
  const factors = [...(verified ?? [])].filter((method) => method !== 'password');
  const withPassword =
    verified?.has('password') === true || event.authenticationContext?.credentialType === 'PASSWORD';
  if (factors.includes('passkey') && !withPassword) return 'passkey';
  return factors.length > 0 ? 'password-and-code' : 'password';
}

/** Okta's reasons for a refused password (INVALID_CREDENTIALS; Identity Engine: VERIFICATION_ERROR). */
const WRONG_CREDENTIALS = new Set(['INVALID_CREDENTIALS', 'VERIFICATION_ERROR']);
const methodDetail = (event: LogEvent): ActivityMethod | null => {
  const method = authenticatorOf(event);
  return method === 'googleAuth' || method === 'email' || method === 'passkey' ? method : null;
};

type Mapped = Pick<ActivityEvent, 'kind' | 'detail'>;

/** The kind and detail of one event of the account, or undefined when the list does not show it. */
function kindOf(
  event: LogEvent,
  userId: string,
  sessions: Map<string, Set<Authenticator>>,
): Mapped | undefined {
  const result = event.outcome?.result;
  const reason = event.outcome?.reason ?? '';
  switch (event.eventType) {
    case 'user.session.start': {
      if (!isActor(event, userId)) return undefined;
      if (result === 'SUCCESS') {
        const session = event.authenticationContext?.externalSessionId;
        return {
          kind: 'signed-in',
          detail: signInMethod(event, session ? sessions.get(session) : undefined),
        };
      }
      if (result !== 'FAILURE') return undefined;
      if (reason === 'LOCKED_OUT') return { kind: 'sign-in-failed', detail: 'locked' };
      return WRONG_CREDENTIALS.has(reason) ? { kind: 'sign-in-failed', detail: 'wrong-password' } : undefined;
    }
    case 'user.authentication.auth_via_mfa': {
      // A success only tells the sign-in's method (above); a refused code is a failed sign-in step.
      if (!isActor(event, userId) || result !== 'FAILURE') return undefined;
      return {
        kind: 'sign-in-failed',
        detail: authenticatorOf(event) === 'password' ? 'wrong-password' : 'wrong-code',
      };
    }
    case 'user.session.end':
      return isActor(event, userId) && result === 'SUCCESS'
        ? { kind: 'signed-out', detail: null }
        : undefined;
    case 'user.session.clear':
      return isTarget(event, userId) && result === 'SUCCESS'
        ? { kind: 'sessions-signed-out', detail: 'everywhere' }
        : undefined;
    case 'user.account.lock':
      return (isTarget(event, userId) || isActor(event, userId)) && result === 'SUCCESS'
        ? { kind: 'sign-in-failed', detail: 'locked' }
        : undefined;
    case 'user.account.update_password':
      return concernsAccount(event, userId) && result === 'SUCCESS'
        ? { kind: 'password-changed', detail: null }
        : undefined;
    case 'user.account.reset_password':
      return concernsAccount(event, userId) && result === 'SUCCESS'
        ? { kind: 'password-reset', detail: null }
        : undefined;
    case 'user.mfa.factor.activate':
      return concernsAccount(event, userId) && result === 'SUCCESS'
        ? { kind: 'method-added', detail: methodDetail(event) }
        : undefined;
    case 'user.mfa.factor.deactivate':
      return concernsAccount(event, userId) && result === 'SUCCESS'
        ? { kind: 'method-removed', detail: methodDetail(event) }
        : undefined;
    case 'user.mfa.factor.reset_all':
      // Every factor at once: no one method to name.
      return concernsAccount(event, userId) && result === 'SUCCESS'
        ? { kind: 'method-removed', detail: null }
        : undefined;
    default:
      return undefined;
  }
}

const COUNTRY_BY_NAME = new Map(COUNTRIES.map((country) => [country.name.toLowerCase(), country.code]));

/**
 * The user's events of one System Log page, in the page's order, described as embedded mode describes its own:
 * browser, system and device from the raw User-Agent (the same parser), the country of the address from the same
 * offline database (else the country Okta names, when it is one of the portal's list), the address only coarse.
 */
export function mapOrgEvents(
  userId: string,
  raw: readonly unknown[],
  describer: ClientDescriber,
): ActivityEvent[] {
  const events = raw.flatMap((item) => {
    const parsed = logEvent.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
  const sessions = verifiedBySession(events, userId);
  return events.flatMap((event): ActivityEvent[] => {
    const mapped = kindOf(event, userId, sessions);
    if (!mapped) return [];
    const client = event.client;
    const described = describer.describe({
      userAgent: client?.userAgent?.rawUserAgent ?? undefined,
      ip: client?.ipAddress ?? undefined,
    });
    const named = client?.geographicalContext?.country?.toLowerCase();
    return [
      {
        id: event.uuid,
        ...mapped,
        at: new Date(event.published).toISOString(),
        ...described,
        country: described.country ?? (named ? (COUNTRY_BY_NAME.get(named) ?? null) : null),
      },
    ];
  });
}
