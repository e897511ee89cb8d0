import type { AppConfig } from '../config/index.js';
import type { Database } from '../db/sql.js';
import type { Directory } from '../directory/directory.js';
import type { TokenVerifier } from '../auth/verifier.js';
import type { IdentityBackend } from '../identity/types.js';
import type { AtRestSealing } from '../storage/sealing.js';
import type { KeyRing, SigningKeys } from '../keys/ring.js';
import type { ProviderStore } from '../storage/provider.js';
import type { Storage } from '../storage/index.js';
import type { AccountSessions } from '../auth/sessions.js';
import type { Caller } from '../auth/caller.js';
import type { SessionChanges } from '../auth/session-changes.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: AppConfig;
    /** The clock of time-based limits (ms since the epoch); buildApp's `now` option replaces it in tests. */
    now: () => number;
    /** Every domain's store (plugins/app/storage.ts). */
    storage: Storage;
    /** Committed writes that end sessions or change an account (auth/session-changes.ts), from `storage`. */
    sessionChanges: SessionChanges;
    /** The database under `storage` (SQLite or PostgreSQL): the readiness probe only. */
    database: Database;
    /** KEY_RING_ENCRYPTION_KEY's boxes: the key ring's and the provider records' seal at rest (keys/at-rest.ts). */
    atRestSealing: AtRestSealing;
    directory: Directory;
    /** The identity backend (IDENTITY_BACKEND): the accounts' profile, password and factors (plugins/app/identity.ts). */
    identity: IdentityBackend;
    tokenVerifier: TokenVerifier;
    /** The provider's key ring (src/keys), shared by every instance; embedded mode only. */
    keyRing: KeyRing | null;
    /** The key ring's signing keys now (embedded mode only). */
    signingKeys: SigningKeys | null;
    /** The embedded provider's store (sessions, grants, refresh tokens); null in Okta mode. */
    oidcStore: ProviderStore | null;
    /** The sign-in sessions behind access tokens (the provider's, or the Okta org's). */
    accountSessions: AccountSessions;
  }
  interface FastifyRequest {
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** true: the /api auth hook lets the request through without a token. */
    public?: boolean;
  }
}
