import type { PortalUser } from './auth-context.js';

type Claims = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Maps ID-token claims (spec section 3) to the portal's user. */
export function userFromClaims(claims: Claims): PortalUser {
  const givenName = text(claims.given_name);
  const familyName = text(claims.family_name);
  return {
    sub: text(claims.sub),
    email: text(claims.email),
    givenName,
    familyName,
    name: text(claims.name) || [givenName, familyName].filter(Boolean).join(' '),
    country: text(claims.country).toUpperCase(),
  };
}
