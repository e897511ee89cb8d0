/** How the Okta backend reads Okta's answers: its error codes, its dates, and the user id it is given. */
import type { OktaApiError } from '@okta/okta-sdk-nodejs';
import { API_ERRORS, PASSWORD_CHANGE_ERRORS } from 'shared-auth/contract';
import { refusal, type HttpError } from '../../http/errors.js';
import { causesOf, isOktaApiError } from './client.js';

export const isStatus = (error: unknown, status: number, ...codes: string[]): error is OktaApiError =>
  isOktaApiError(error) &&
  error.status === status &&
  (codes.length === 0 || codes.includes(String(error.errorCode)));

/** Okta's "not found" (E0000007) for the user or the factor. */
export const notFound = (error: unknown) => isStatus(error, 404);

/** A wrong passcode (E0000068) or a TOTP code whose time step was already used (E0000082). */
export const wrongCode = (error: unknown) => isStatus(error, 403, 'E0000068', 'E0000082');

export function iso(value: Date | string | undefined): string {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' ? value : '';
}

/** Okta's answer for a user id the portal was given (the access token's `uid`). */
export function requireId(userId: string): string {
  // The SDK leaves an empty path parameter as the literal `{userId}`.
  if (userId === '') throw refusal(API_ERRORS.notFound, 'The account no longer exists');
  return userId;
}

/** Okta's cause text without the attribute it names ("password: Password requirements were not met…"). */
function causeText(error: OktaApiError): string {
  return causesOf(error)
    .map((cause) => cause.replace(/^(?:password|newPassword|oldPassword)\s*:\s*/, ''))
    .join(' ');
}

/**
 * A refused password change as the portal answers it, or undefined when Okta's answer is not a refusal it knows:
 * - 403 E0000014 "Update of credentials failed" with the cause `oldPassword: …`, or no cause: the current password
 *   is wrong (the contract's text). With another cause (third-party reports show "Password has been used too
 *   recently" under E0000014) it is the policy's refusal, with Okta's text.
 * - 400 E0000001 "Api validation failed: password" (the Management API's declared answer), or 403 E0000080 (the
 *   Authentication API's answer for the same check): the org's password policy, with its requirements text, which
 *   the page shows in its dialog.
 * - 403 E0000035: the user's password is not Okta's to change (federated).
 * - 404: the user is gone.
 */
export function passwordChangeRefusal(error: unknown): HttpError | undefined {
  if (!isOktaApiError(error)) return undefined;
  const policy = () =>
    refusal(
      API_ERRORS.passwordPolicy,
      causeText(error) || "The new password does not meet your organization's password policy.",
    );
  if (isStatus(error, 403, 'E0000014')) {
    const causes = causesOf(error);
    return causes.length === 0 || causes.some((cause) => /^oldPassword\b/.test(cause))
      ? refusal(API_ERRORS.wrongPassword, PASSWORD_CHANGE_ERRORS.wrongCurrentPassword)
      : policy();
  }
  if (isStatus(error, 400, 'E0000001') || isStatus(error, 403, 'E0000080')) return policy();
  if (isStatus(error, 403, 'E0000035'))
    return refusal(API_ERRORS.federatedUser, PASSWORD_CHANGE_ERRORS.federated);
  if (notFound(error)) return refusal(API_ERRORS.notFound, 'The account no longer exists');
  return undefined;
}
