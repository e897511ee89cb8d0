import type { FactorName, SessionSignOutReach, SessionSignOutScope } from 'shared-auth/contract';
import type { OutboxStore } from '../storage/outbox.js';

/** What happened to an account, for the notice mailed to its address. */
export type AccountEvent =
  | { type: 'password-changed' }
  /**
   * The password was reset with a link mailed to the account ("Forgot password?"). `emailOnly2Step`: the account's
   * only 2-step method is email, which the link already proves, so no code was asked.
   */
  | { type: 'password-reset'; emailOnly2Step: boolean }
  /** A factor was set up and its first code accepted. */
  | { type: 'factor-activated'; factor: FactorName }
  /** A set-up factor was turned back on (opt-in). */
  | { type: 'factor-turned-on'; factor: FactorName }
  | { type: 'factor-turned-off'; factor: FactorName }
  | { type: 'factor-removed'; factor: FactorName }
  /** A new set of recovery codes was generated (any older set stopped working). */
  | { type: 'recovery-codes-generated' }
  /** A recovery code was used (to sign in, to verify on the Security or Password page, …); `left` are unused. */
  | { type: 'recovery-code-used'; use: RecoveryCodeUse; left: number }
  /** The last 2-step method went, and the recovery codes with it. */
  | { type: 'recovery-codes-removed' }
  /** A passkey was registered (`name`: the name it got). */
  | { type: 'passkey-added'; name: string }
  | { type: 'passkey-removed'; name: string }
  /** A passkey's signature counter went backwards (a copied authenticator suspected): it is refused from now on. */
  | { type: 'passkey-cloned'; name: string }
  /**
   * Sessions were signed out from the Devices list: one other, all others, or every one (`count`: how many, when
   * known; Okta's org does not say). `reach: 'portal'` (Okta mode, one or the others): only their use of this portal
   * ended; the organization's sign-in may stay open on them for other apps.
   */
  | {
      type: 'sessions-signed-out';
      scope: SessionSignOutScope;
      count: number | undefined;
      reach?: SessionSignOutReach;
    }
  /** A throttle reached its limit: attempts of this kind are refused until `until` (ms since the epoch). */
  | { type: 'account-locked'; reason: 'sign-in' | 'password' | 'verification-code'; until: number };

/** What a recovery code was used for, as its notice says. */
export type RecoveryCodeUse = 'sign-in' | 'step-up' | 'password-reset';

/** Where and when the change was made, as the mail tells it. */
export interface EventContext {
  /** The request's User-Agent header, when there was one ("from which browser"). */
  userAgent?: string | undefined;
  /** ms since the epoch (the app's clock). */
  at: number;
  /**
   * The "This wasn't me" link of a method-added notice (it holds a single-use token: the notice is then kept
   * sealed until sent, and wiped then).
   */
  notMeLink?: string | undefined;
}

export interface NotificationRecipient {
  id: string;
  email: string;
}

export interface Notifier {
  /**
   * Queues a notice to the account's address (an outbox row). Pass the change's transaction (its outbox), so the
   * change and its notice commit together; delivery happens afterwards and is retried.
   */
  queue(
    recipient: NotificationRecipient,
    event: AccountEvent,
    context: EventContext,
    within?: OutboxStore,
  ): Promise<void>;
  /**
   * Whether a notice of this kind was queued for the account since `since` (ms): a throttle that locks again as
   * its sliding window moves tells the holder once per lockout period, not on every refused attempt.
   */
  queuedSince(recipientId: string, event: AccountEvent, since: number): Promise<boolean>;
}
