import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';

export interface AccessTokenClaims extends JWTPayload {
  /** Okta puts the user id here (its `sub` is the login); the embedded provider sets it too. */
  uid?: string;
  scope?: string;
  scp?: string[];
  /** The sign-in session (embedded provider: the session's uid). */
  sid?: string;
  /** The grant the token was issued under (embedded provider). */
  gid?: string;
  /** The client the token was issued to: `cid` at Okta, `client_id` at the embedded provider. */
  cid?: string;
  client_id?: string;
  [claim: string]: unknown;
}

export interface VerifiedToken {
  /** The user id: `uid` when present (Okta), else `sub`. It equals the ID token's `sub`. */
  userId: string;
  claims: AccessTokenClaims;
}

export class InvalidTokenError extends Error {
  override readonly name = 'InvalidTokenError';
}

export interface TokenVerifier {
  /** Signature, claims and policy, then the session's liveness (policy.isAlive). */
  verify(token: string): Promise<VerifiedToken>;
  /**
   * Signature, claims and policy only: for a caller that checks the session's liveness itself, in the same
   * storage round trip as its other reads (auth/caller.ts).
   */
  verifySignature(token: string): Promise<VerifiedToken>;
}

/** What an access token must be besides well signed: for this portal's client, with the scope the API needs. */
export interface TokenPolicy {
  /** The portal's ClientId and any explicitly allowed other clients (`cid` / `client_id`). */
  clientIds: readonly string[];
  /** A scope every token must carry (in `scp` or `scope`). */
  requiredScope: string;
  /**
   * Whether the token's sign-in session still lives (not signed out, revoked or ended by a password or factor
   * change). Asked on every call, after the cache: a remembered signature never answers for a dead session.
   */
  isAlive?: (token: VerifiedToken) => Promise<boolean>;
}

/** The answer when the token's session has ended: 401, like any other token that is no longer valid. */
export const SESSION_ENDED_MESSAGE = 'The sign-in session of this access token has ended; sign in again';

function scopesOf(claims: AccessTokenClaims): string[] {
  if (Array.isArray(claims.scp)) return claims.scp.filter((scope) => typeof scope === 'string');
  return typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
}

type KeySource = JWTVerifyGetKey;

function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'The access token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'The access token was issued by another issuer';
    if (error.claim === 'aud') return 'The access token is not meant for this API';
    return `The access token's ${error.claim} claim is not valid`;
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'The access token signature is not valid';
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'The access token was signed by an unknown key';
  if (error instanceof joseErrors.JOSEAlgNotAllowed)
    return 'The access token uses a signing algorithm that is not allowed';
  if (error instanceof joseErrors.JWKSTimeout)
    return 'The identity provider keys could not be fetched in time';
  return 'The access token is not valid';
}

/** How many verified tokens to remember; a few per signed-in user is plenty. */
const VERIFIED_CACHE_SIZE = 10_000;

function makeVerifier(
  keys: KeySource,
  issuer: string,
  audience: string,
  policy: TokenPolicy,
  now: () => number = Date.now,
): TokenVerifier {
  // A token's signature and claims never change, so each is verified once and remembered until it expires.
  // RS256 verification is the largest CPU cost of an API call; every later call with the token skips it.
  const verified = new Map<string, VerifiedToken>();

  async function verifyOnce(token: string): Promise<VerifiedToken> {
    let claims: AccessTokenClaims;
    try {
      ({ payload: claims } = await jwtVerify<AccessTokenClaims>(token, keys, {
        issuer,
        audience,
        algorithms: ['RS256'],
        requiredClaims: ['exp', 'sub'],
        clockTolerance: 5,
        currentDate: new Date(now()),
      }));
    } catch (error) {
      throw new InvalidTokenError(describe(error), { cause: error });
    }
    const userId = typeof claims.uid === 'string' && claims.uid !== '' ? claims.uid : claims.sub;
    if (!userId) throw new InvalidTokenError('The access token names no user');
    // Another application of the same authorization server gets tokens with the same audience.
    const client = claims.cid ?? claims.client_id;
    if (typeof client !== 'string' || !policy.clientIds.includes(client)) {
      throw new InvalidTokenError('The access token was issued to another application');
    }
    if (!scopesOf(claims).includes(policy.requiredScope)) {
      throw new InvalidTokenError(`The access token lacks the ${policy.requiredScope} scope`);
    }
    return { userId, claims };
  }

  const alive = async (result: VerifiedToken): Promise<VerifiedToken> => {
    if (policy.isAlive && !(await policy.isAlive(result))) throw new InvalidTokenError(SESSION_ENDED_MESSAGE);
    return result;
  };

  async function verifySignature(token: string): Promise<VerifiedToken> {
    const known = verified.get(token);
    if (known) {
      // Expired since it was verified: forget it and let jose say so.
      if ((known.claims.exp ?? 0) * 1000 > now()) return known;
      verified.delete(token);
    }
    const result = await verifyOnce(token);
    if (verified.size >= VERIFIED_CACHE_SIZE) {
      // Maps keep insertion order: drop the oldest.
      const oldest = verified.keys().next().value;
      if (oldest !== undefined) verified.delete(oldest);
    }
    verified.set(token, result);
    return result;
  }

  return {
    verifySignature,
    async verify(token) {
      return alive(await verifySignature(token));
    },
  };
}

/** Public keys in memory: a fixed set, or the key ring's set as it is now (read at each verification). */
export type LocalKeys = JSONWebKeySet | (() => JSONWebKeySet);

/** jose's key lookup over `keys`; a getter's set is rebuilt only when the getter returns another one. */
export function localKeySet(keys: LocalKeys): JWTVerifyGetKey {
  if (typeof keys !== 'function') return createLocalJWKSet(keys);
  let seen: JSONWebKeySet | undefined;
  let lookup = createLocalJWKSet({ keys: [] });
  return (header, token) => {
    const current = keys();
    if (current !== seen) {
      seen = current;
      lookup = createLocalJWKSet(current);
    }
    return lookup(header, token);
  };
}

/** Embedded mode: the provider's own public keys, in memory, so a request costs no HTTP round trip. */
export function localVerifier(
  jwks: LocalKeys,
  issuer: string,
  audience: string,
  policy: TokenPolicy,
  now?: () => number,
): TokenVerifier {
  return makeVerifier(localKeySet(jwks), issuer, audience, policy, now);
}

/** Okta mode: the org's authorization server keys, fetched once and cached by jose (refetched on an unknown kid). */
export function oktaVerifier(
  issuer: string,
  audience: string,
  policy: TokenPolicy,
  now?: () => number,
): TokenVerifier {
  return makeVerifier(createRemoteJWKSet(new URL(`${issuer}/v1/keys`)), issuer, audience, policy, now);
}
