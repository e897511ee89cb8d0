import { z } from 'zod';
import { CURRENT_PASSWORD_REQUIRED_MESSAGE, type PasswordRuleId } from './password-policy.js';

/** Longest password text the API reads at all (the policy allows 72 characters; older passwords may be longer). */
export const PASSWORD_FIELD_MAX_LENGTH = 1024;

const passwordText = (field: string, emptyMessage: string) =>
  z
    .string({
      error: (issue) => (issue.input === undefined ? emptyMessage : `${field} must be text`),
    })
    .min(1, { error: emptyMessage })
    .max(PASSWORD_FIELD_MAX_LENGTH, { error: `${field} is too long` });

/** Body of PUT /api/password/{sub}/change (spec section 3: OldPassword, NewPassword). */
export const passwordChangeRequestSchema = z.strictObject(
  {
    OldPassword: passwordText('OldPassword', CURRENT_PASSWORD_REQUIRED_MESSAGE),
    NewPassword: passwordText('NewPassword', 'The new password is a required field'),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown field: ${issue.keys.join(', ')}`
        : 'The body must be a JSON object with OldPassword and NewPassword',
  },
);
export type PasswordChangeRequest = z.infer<typeof passwordChangeRequestSchema>;

/** The success answer (JSON text holding this object). */
export const passwordChangeResponseSchema = z.object({ status: z.literal('changed') });
export type PasswordChangeResponse = z.infer<typeof passwordChangeResponseSchema>;

/** The server's text for unexpected failures only; the page then shows its Error view (spec section 8). */
export const PASSWORD_CHANGE_GENERIC_ERROR = 'An error happened during password change';

/** The server's text, in the `error` field, for each new-password rule the request fails. */
export const PASSWORD_RULE_SERVER_ERRORS: Readonly<Record<PasswordRuleId, string>> = {
  length: 'The new password must have 8 to 72 characters.',
  number: 'The new password must contain at least 1 number.',
  lowercase: 'The new password must contain at least 1 lowercase letter.',
  uppercase: 'The new password must contain at least 1 uppercase letter.',
  emailPart: 'The new password must not contain part of your email address.',
  notCurrent: 'The new password must be different from the current password.',
};

/** The other refusals of a password change (all in the `error` field). */
export const PASSWORD_CHANGE_ERRORS = {
  /** 400: OldPassword does not verify against the stored hash. */
  wrongCurrentPassword: 'The current password is not correct.',
  /** 403 */
  federated: 'Federated users cannot change their password here.',
  /** 409: an account with no password in this directory (Okta mode). */
  noLocalPassword: 'The password of this account is managed by its identity provider.',
  /** 429, after too many wrong current passwords; says when to try again. */
  throttled: (retryAfterSeconds: number): string => {
    const minutes = Math.ceil(retryAfterSeconds / 60);
    const wait =
      retryAfterSeconds < 60
        ? `${Math.max(1, Math.ceil(retryAfterSeconds))} seconds`
        : `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
    return `Too many wrong current passwords. Try again in ${wait}.`;
  },
} as const;
