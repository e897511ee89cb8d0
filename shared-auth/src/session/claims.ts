import type { PortalUser } from '../auth-context.js';
import type { RemoteMountUserClaims } from '../contract/index.js';

/** ID-token claims as a sign-in library hands them over (spec section 3). */
export type IdTokenClaims = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Maps ID-token claims to the portal's user. */
export function userFromClaims(claims: IdTokenClaims): PortalUser {
  const givenName = text(claims.given_name) ?? '';
  const familyName = text(claims.family_name) ?? '';
  return {
    sub: text(claims.sub) ?? '',
    email: text(claims.email) ?? '',
    givenName,
    familyName,
    name: text(claims.name) || [givenName, familyName].filter(Boolean).join(' '),
    country: (text(claims.country) ?? '').toUpperCase(),
  };
}

/** The claims a remote's mount() takes, picked from a whole ID token (its other claims stay behind). */
export function mountClaimsOf(claims: IdTokenClaims): RemoteMountUserClaims {
  return {
    sub: text(claims.sub) ?? '',
    email: text(claims.email) ?? '',
    given_name: text(claims.given_name),
    family_name: text(claims.family_name),
    name: text(claims.name),
    country: text(claims.country),
  };
}
