import type { User } from '../directory/directory.js';

/** Scopes the portal's client asks for (spec section 3) and the claims each one releases. */
export const SCOPE_CLAIMS = {
  // amr: how the user signed in (pwd; with 2-step verification also otp and mfa, or recovery-code and mfa when a
  // recovery code stood in for the verification code), so a relying party can tell.
  openid: ['sub', 'amr'],
  profile: ['name', 'given_name', 'family_name', 'country', 'isFederated', 'updated_at'],
  email: ['email', 'email_verified'],
  // The directory holds no phone numbers; the scope is accepted because okta-auth-js asks for it.
  phone: ['phone_number', 'phone_number_verified'],
} as const;

export const SUPPORTED_SCOPES = Object.keys(SCOPE_CLAIMS) as (keyof typeof SCOPE_CLAIMS)[];

export type UserClaims = Record<string, string | number | boolean>;

/** Every claim the directory can state about a user; the provider and userinfo filter them by scope. */
export function claimsOf(user: User): UserClaims & { sub: string } {
  return {
    sub: user.id,
    name: [user.givenName, user.familyName].filter(Boolean).join(' '),
    given_name: user.givenName,
    family_name: user.familyName,
    country: user.country,
    isFederated: user.isFederated,
    updated_at: Math.floor(Date.parse(user.updatedAt) / 1000),
    email: user.email,
    email_verified: true,
  };
}

/** The claims of `user` released by the given scopes (used by the userinfo route). */
export function claimsForScopes(user: User, scopes: Iterable<string>): UserClaims {
  const all = claimsOf(user);
  const released: UserClaims = { sub: user.id };
  for (const scope of scopes) {
    const names: readonly string[] = SCOPE_CLAIMS[scope as keyof typeof SCOPE_CLAIMS] ?? [];
    for (const name of names) {
      const value = all[name];
      if (value !== undefined) released[name] = value;
    }
  }
  return released;
}
