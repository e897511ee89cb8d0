import type { Sql } from '../db/sql.js';
import type { AccountSessionStore } from './account-sessions.js';
import type { ActivityEventStore } from './activity-events.js';
import type { UserStore } from './users.js';
import type { GrantStore } from './grants.js';
import type { FactorStore } from './factors.js';
import type { MailboxStore } from './mailbox.js';
import type { NotMeLinkStore } from './not-me-links.js';
import type { OrgSessionStore } from './org-sessions.js';
import type { OutboxStore } from './outbox.js';
import type { PasskeyStore } from './passkeys.js';
import type { PasswordResetStore } from './password-resets.js';
import type { PreferredMethodStore } from './preferred-methods.js';
import type { ProviderStore } from './provider.js';
import type { RecoveryCodeStore } from './recovery-codes.js';
import type { RequestWindows } from './request-windows.js';
import type { DeployKeyStore } from './deploy-keys.js';
import type { ReleaseEventStore } from './release-events.js';
import type { ReleaseVoteStore } from './release-votes.js';
import type { ReleaseStore } from './releases.js';
import type { ThrottleEvents } from './throttle-events.js';
import type { TokenNotBeforeStore } from './token-not-before.js';
import type { WebAuthnChallengeStore } from './webauthn-challenges.js';

/**
 * Everything the server keeps, one interface per domain, each beside its SQL in this folder (the persistence
 * floor: it imports no domain; the domains import it). The routes and services see only these; the stores are
 * built in one place (`storageOver`, storage/sql.ts) over SQLite or PostgreSQL (chosen by `openStorage`,
 * plugins/app/open-storage.ts).
 */
export interface Storage {
  /**
   * Changes that must commit together (a password change: the new hash, the throttle cleared, the other sessions
   * ended, the notice queued): `work` gets the same stores bound to one write transaction, serialised against every
   * other write transaction on every instance (see db/sql.ts); a throw rolls everything back. Only storage calls
   * belong inside: hash, send and verify before.
   */
  transaction<T>(work: (tx: Storage) => Promise<T>): Promise<T>;
  /** The SQL dialect under the stores (a few one-off checks differ). */
  readonly sql: Sql;
  /** The user directory. */
  users: UserStore;
  /** The embedded provider's models and the per-call session liveness. */
  provider: ProviderStore;
  /** 2-step factors and email codes. */
  factors: FactorStore;
  /** Step-up grants. */
  grants: GrantStore;
  /** Recovery codes, as keyed hashes (embedded mode). */
  recoveryCodes: RecoveryCodeStore;
  /** Passkeys (WebAuthn credentials, embedded mode). */
  passkeys: PasskeyStore;
  /** The passkey ceremonies' single-use challenges. */
  webauthnChallenges: WebAuthnChallengeStore;
  /** Each throttle's events (limits: throttles/limits.ts). */
  throttles: {
    passwordChange: ThrottleEvents;
    signIn: ThrottleEvents;
    wrongCodes: ThrottleEvents;
    emailSends: ThrottleEvents;
    /** Password reset requests per typed email (password/reset.ts). */
    passwordResetRequests: ThrottleEvents;
  };
  /** Per-address request counts of the provider's edge and the sign-in form (throttles/request-windows.ts). */
  requestWindows: RequestWindows;
  /** The development mailbox. */
  mailbox: MailboxStore;
  /** Password reset links, as hashes (password/reset.ts). */
  passwordResets: PasswordResetStore;
  /** "This wasn't me" links of the method-added notices, as hashes (devices/not-me-links.ts), embedded mode. */
  notMeLinks: NotMeLinkStore;
  /** Notices to account holders waiting to be sent. */
  outbox: OutboxStore;
  /** Okta mode's per-account "not before" of access tokens (auth/token-not-before.ts). */
  tokenNotBefore: TokenNotBeforeStore;
  /** The account's security events (activity/), embedded mode. */
  activity: ActivityEventStore;
  /** What the Devices list shows of each sign-in session (devices/), embedded mode. */
  accountSessions: AccountSessionStore;
  /** What the Devices list shows of each Okta sign-in, and the ones signed out (devices/), Okta mode. */
  orgSessions: OrgSessionStore;
  /** The account's preferred 2-step method (factors/preferred-method.ts), both modes. */
  preferredMethods: PreferredMethodStore;
  /** Each remote's versions, load counts and live state (releases/). */
  releases: ReleaseStore;
  /** The releases' audit (releases/). */
  releaseEvents: ReleaseEventStore;
  /** A canary's votes, one per signed-in holder of its bucket: what the automatic rollback reads (releases/). */
  releaseVotes: ReleaseVoteStore;
  /** The teams' deploy keys, as hashes (releases/, release-keys-cli.ts). */
  deployKeys: DeployKeyStore;
}
