import type { Db } from '../db/connection.js';
import { SqliteUserStore } from '../directory/store.js';
import { sessionGrantKey, SqliteGrantStore } from '../factors/grants.js';
import { SqliteFactorStore } from '../factors/store.js';
import { SqliteMailboxStore } from '../mail/mailbox.js';
import { SqliteOutboxStore } from '../notifications/outbox.js';
import { SqliteOidcStore } from '../oidc/adapter.js';
import {
  EMAIL_SEND_EVENTS,
  PASSWORD_CHANGE_EVENTS,
  SIGN_IN_EVENTS,
  SqliteThrottleEvents,
  WRONG_CODE_EVENTS,
} from '../throttles/sqlite.js';
import type { Storage } from './index.js';

/** Every store over one SQLite connection (the portal's file, migrated on open). */
export function sqliteStorage(db: Db): Storage {
  const grants = new SqliteGrantStore(db);
  return {
    transactions: { immediate: (change) => db.transaction(change).immediate() },
    users: new SqliteUserStore(db),
    // A provider session that ends (sign-out, or ended by a password or factor change) takes its step-up grants
    // along, in the same transaction.
    provider: new SqliteOidcStore(db, {
      onSessionsEnded: (accountId, uids) => grants.deleteOf(accountId, uids.map(sessionGrantKey)),
    }),
    factors: new SqliteFactorStore(db),
    grants,
    throttles: {
      passwordChange: new SqliteThrottleEvents(db, PASSWORD_CHANGE_EVENTS),
      signIn: new SqliteThrottleEvents(db, SIGN_IN_EVENTS),
      wrongCodes: new SqliteThrottleEvents(db, WRONG_CODE_EVENTS),
      emailSends: new SqliteThrottleEvents(db, EMAIL_SEND_EVENTS),
    },
    mailbox: new SqliteMailboxStore(db),
    outbox: new SqliteOutboxStore(db),
  };
}
