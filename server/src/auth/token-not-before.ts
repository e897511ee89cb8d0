/**
 * Okta mode's per-account "not before" of access tokens, kept in the portal's database (so every instance sees it
 * on its next call): a password or 2-step change records the second it happened, and the API then refuses the
 * account's access tokens issued before that second (their `iat`), except the one that made the change.
 *
 * Why: the org's sessions cannot be ended without ending the caller's own (Okta's only call for it spares none),
 * and the API cannot ask the org whether a token's session still lives; without this, a token another browser (a
 * phishing session, say) holds would keep working for its whole hour after the holder changed the password or
 * 2-step verification.
 *
 * The comparison is in whole seconds, like `iat`: a token issued in the change's own second is accepted. Refusing
 * it instead would also refuse tokens issued right after the change in that second (the other browsers' silent
 * renewals, which Okta answers within milliseconds), for at most one second of tokens that predate it.
 * The caller's own token (its `jti`) is spared: refusing it would lose its step-up grant (keyed by that token in
 * Okta mode) in the middle of the Security page's flow, and its page renews with its Okta session anyway.
 * The account's refresh tokens are revoked at the org after the change (sessions.ts, endOtherSessionsAfterCommit),
 * or a refresh would mint tokens that pass this check.
 */
import type { TokenNotBefore } from '../storage/token-not-before.js';
import type { AccessTokenClaims } from './verifier.js';

/** Whether a token with these claims was issued before the account's last change (and is not the one that made it). */
export function issuedBeforeChange(claims: AccessTokenClaims, mark: TokenNotBefore | undefined): boolean {
  if (!mark) return false;
  if (mark.exceptJti !== null && claims.jti === mark.exceptJti) return false;
  // A token without a numeric iat cannot show it came after the change.
  return !(typeof claims.iat === 'number' && claims.iat >= mark.notBefore);
}
