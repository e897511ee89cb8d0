import type { Sql } from '../db/sql.js';
import { SqlAccountSessionStore } from './account-sessions.js';
import { SqlActivityEventStore } from './activity-events.js';
import { SqlUserStore } from './users.js';
import { carriedGrantKey, chainGrantKey, sessionGrantKey, SqlGrantStore } from './grants.js';
import { SqlFactorStore } from './factors.js';
import { SqlMailboxStore } from './mailbox.js';
import { SqlNotMeLinkStore } from './not-me-links.js';
import { SqlOrgSessionStore } from './org-sessions.js';
import { SqlOutboxStore } from './outbox.js';
import { SqlPasskeyStore } from './passkeys.js';
import { SqlPasswordResetStore } from './password-resets.js';
import { preferredMethodStore } from './preferred-methods.js';
import type { AtRestSealing } from './sealing.js';
import { SqlProviderStore } from './provider.js';
import { SqlRecoveryCodeStore } from './recovery-codes.js';
import {
  EMAIL_SEND_EVENTS,
  PASSWORD_CHANGE_EVENTS,
  PASSWORD_RESET_REQUEST_EVENTS,
  SIGN_IN_EVENTS,
  SqlThrottleEvents,
  WRONG_CODE_EVENTS,
} from './throttle-events.js';
import { SqlRequestWindows } from './request-windows.js';
import { deployKeyStore } from './deploy-keys.js';
import { releaseEventStore } from './release-events.js';
import { releaseVoteStore } from './release-votes.js';
import { releaseStore } from './releases.js';
import { tokenNotBeforeStore } from './token-not-before.js';
import { SqlWebAuthnChallengeStore } from './webauthn-challenges.js';
import type { Storage } from './index.js';

/**
 * Every store over one `Sql`: the database's, or a transaction's (then each store's statements run in it). The
 * stores hold no state of their own, so building them per transaction costs a few objects.
 */
export function storageOver(sql: Sql, sealing: AtRestSealing): Storage {
  const grants = new SqlGrantStore(sql);
  const storage: Storage = {
    sql,
    transaction: (work) => sql.transaction((tx) => work(tx === sql ? storage : storageOver(tx, sealing))),
    users: new SqlUserStore(sql),
    // A provider session that ends (sign-out, or ended by a password or factor change or from the Devices list)
    // takes its step-up grants and its Devices row along, in the same transaction.
    provider: new SqlProviderStore(sql, {
      // Payloads sealed at rest with KEY_RING_ENCRYPTION_KEY (keys/at-rest.ts).
      records: sealing.providerRecords,
      onSessionsEnded: async (tx, accountId, uids) => {
        await new SqlGrantStore(tx).deleteOf(accountId, uids.map(sessionGrantKey));
        await new SqlAccountSessionStore(tx).deleteOfSessions(accountId, uids);
      },
      // A step-up carried over a password or 2-step change goes to the caller's session's next grant chain.
      onGrantCreated: (over, accountId, sessionUid, grantId) =>
        new SqlGrantStore(over).claimCarried(
          accountId,
          carriedGrantKey(sessionUid),
          chainGrantKey(sessionUid, grantId),
        ),
      // A chain that forked (a refresh token reused within the grace) loses its step-up: a branch may hold it.
      onChainForked: (tx, accountId, sessionUid, grantId) =>
        new SqlGrantStore(tx).deleteKeys(accountId, [chainGrantKey(sessionUid, grantId)]),
    }),
    factors: new SqlFactorStore(sql),
    grants,
    recoveryCodes: new SqlRecoveryCodeStore(sql),
    passkeys: new SqlPasskeyStore(sql),
    webauthnChallenges: new SqlWebAuthnChallengeStore(sql),
    throttles: {
      passwordChange: new SqlThrottleEvents(sql, PASSWORD_CHANGE_EVENTS),
      signIn: new SqlThrottleEvents(sql, SIGN_IN_EVENTS),
      wrongCodes: new SqlThrottleEvents(sql, WRONG_CODE_EVENTS),
      emailSends: new SqlThrottleEvents(sql, EMAIL_SEND_EVENTS),
      passwordResetRequests: new SqlThrottleEvents(sql, PASSWORD_RESET_REQUEST_EVENTS),
    },
    requestWindows: new SqlRequestWindows(sql),
    mailbox: new SqlMailboxStore(sql),
    passwordResets: new SqlPasswordResetStore(sql),
    notMeLinks: new SqlNotMeLinkStore(sql),
    outbox: new SqlOutboxStore(sql, sealing.outbox),
    tokenNotBefore: tokenNotBeforeStore(sql),
    activity: new SqlActivityEventStore(sql),
    accountSessions: new SqlAccountSessionStore(sql),
    orgSessions: new SqlOrgSessionStore(sql),
    preferredMethods: preferredMethodStore(sql),
    releases: releaseStore(sql),
    releaseEvents: releaseEventStore(sql),
    releaseVotes: releaseVoteStore(sql),
    deployKeys: deployKeyStore(sql),
  };
  return storage;
}
