import type { UserStore } from '../directory/store.js';
import type { GrantStore } from '../factors/grants.js';
import type { FactorStore } from '../factors/store.js';
import type { MailboxStore } from '../mail/mailbox.js';
import type { OutboxStore } from '../notifications/outbox.js';
import type { ProviderStore } from '../oidc/adapter.js';
import type { ThrottleEvents } from '../throttles/throttle.js';

/**
 * Changes that must commit together (a password change: the new hash, the throttle cleared, the other sessions
 * ended, the notice queued). The function runs synchronously inside one write transaction that holds the write
 * lock from its start (BEGIN IMMEDIATE), so every process sharing the storage sees it as one step; a throw
 * rolls everything back.
 */
export interface Transactions {
  immediate<T>(change: () => T): T;
}

/**
 * Everything the server keeps, one interface per domain. The routes and services see only these; the SQLite
 * implementation is built in one place (`sqliteStorage`, chosen by `openStorage`), so another backend is a
 * second implementation of this interface.
 */
export interface Storage {
  transactions: Transactions;
  /** The user directory. */
  users: UserStore;
  /** The embedded provider's models and the per-call session liveness. */
  provider: ProviderStore;
  /** 2-step factors and email codes. */
  factors: FactorStore;
  /** Step-up grants. */
  grants: GrantStore;
  /** Each throttle's events (limits: throttles/limits.ts). */
  throttles: {
    passwordChange: ThrottleEvents;
    signIn: ThrottleEvents;
    wrongCodes: ThrottleEvents;
    emailSends: ThrottleEvents;
  };
  /** The development mailbox. */
  mailbox: MailboxStore;
  /** Notices to account holders waiting to be sent. */
  outbox: OutboxStore;
}
