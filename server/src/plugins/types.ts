import type { AppConfig } from '../config/index.js';
import type { Db } from '../db/connection.js';
import type { Directory, User } from '../directory/directory.js';
import type { AccessTokenClaims, TokenVerifier } from '../auth/verifier.js';
import type { SigningKeys } from '../oidc/keys.js';

/** The signed-in caller of an /api request, set by the auth hook. */
export interface Caller {
  user: User;
  claims: AccessTokenClaims;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: AppConfig;
    /** The clock of time-based limits (ms since the epoch); buildApp's `now` option replaces it in tests. */
    now: () => number;
    db: Db;
    directory: Directory;
    tokenVerifier: TokenVerifier;
    /** Present in embedded mode only. */
    signingKeys: SigningKeys | null;
  }
  interface FastifyRequest {
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** true: the /api auth hook lets the request through without a token. */
    public?: boolean;
  }
}
