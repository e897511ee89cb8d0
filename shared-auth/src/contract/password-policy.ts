/**
 * The password policy (spec section 5), the ONE module both enforcers import: remote-password draws its live
 * checklist from it and the server refuses what it refuses. Pure functions, no dependencies.
 *
 * Decisions the spec leaves open:
 * - Length is counted in characters (Unicode code points), not UTF-16 units or bytes: '😀' is 1 character.
 *   72 characters are at most 288 UTF-8 bytes. argon2id (the portal's hash) takes any length; bcrypt (Okta's
 *   history, and why 72 is the maximum) silently ignores bytes past 72, so a bcrypt store would need a byte
 *   limit of its own for non-ASCII passwords. No Unicode normalisation is applied (neither here nor when
 *   hashing), so what the user types is what is checked and stored.
 * - Letters are Unicode-aware: a lowercase letter is any `\p{Ll}` (a, é, ß, я), an uppercase letter any `\p{Lu}`
 *   or titlecase `\p{Lt}` (A, É, Я, ǅ). Letters of scripts without case (CJK, Arabic, Hebrew…) count as
 *   neither, so a password still needs one cased letter of each kind.
 * - A number is any decimal digit `\p{Nd}`: 0-9 and the digits of other scripts (٣, ३).
 * - An empty password meets no rule, so the checklist never shows ticks before anything was typed.
 * - Email parts: the email is split at its last '@' into the local part and the domain. The local part is cut
 *   into runs at , . - _ # @ (so '+' does NOT split: 'ada+news' is one run), the domain contributes its first
 *   label only ('mail' of 'mail.example.co.uk'), itself cut at the same separators. No 3 consecutive characters of any run may appear in the
 *   password, compared case-insensitively (toLowerCase, locale-independent). Checking every 3-character
 *   window is enough: any longer shared run contains one.
 */

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 72;
/** The shortest run of email characters that may not appear in the password. */
export const EMAIL_PART_MIN_RUN = 3;

/** The new-password rules, in the order the checklist shows them. */
export const PASSWORD_RULE_IDS = [
  'length',
  'number',
  'lowercase',
  'uppercase',
  'emailPart',
  'notCurrent',
] as const;
export type PasswordRuleId = (typeof PASSWORD_RULE_IDS)[number];

/** The spec's texts of the new-password rules (checklist labels). */
export const PASSWORD_RULE_MESSAGES: Readonly<Record<PasswordRuleId, string>> = {
  length: 'At least 8 characters',
  number: 'At least 1 number',
  lowercase: 'At least 1 lowercase letter',
  uppercase: 'At least 1 uppercase letter',
  emailPart: 'Does not contains part of email',
  notCurrent: 'Must not match current password field',
};

/** The spec's text when the current password field is empty. */
export const CURRENT_PASSWORD_REQUIRED_MESSAGE = 'Current password is a required field';
/** The spec's text when the confirmation differs from the new password. */
export const CONFIRM_PASSWORD_MISMATCH_MESSAGE = 'Must match new Password';

export interface PasswordPolicyInput {
  /** The candidate new password. */
  password: string;
  /** The account's email; its parts may not appear in the password. */
  email: string;
  /** What the user gave as the current password; the new one must differ from it. */
  currentPassword: string;
}

/** Separators of email runs (spec section 5), '@' included. */
const EMAIL_SEPARATORS = /[,.\-_#@]/u;
const DIGIT = /\p{Nd}/u;
const LOWERCASE = /\p{Ll}/u;
const UPPERCASE = /[\p{Lu}\p{Lt}]/u;

/** Length in characters (code points): what a person counts, not what UTF-16 stores. */
export function passwordLength(password: string): number {
  let count = 0;
  for (const _character of password) count += 1;
  return count;
}

/**
 * The runs of the email the password may not share 3 characters with: the local part cut at the separators,
 * and the first label of the domain. Lower-cased; runs shorter than the minimum are dropped.
 */
export function emailParts(email: string): string[] {
  const trimmed = email.trim().toLowerCase();
  const at = trimmed.lastIndexOf('@');
  const local = at === -1 ? trimmed : trimmed.slice(0, at);
  const domain = at === -1 ? '' : trimmed.slice(at + 1);
  const firstLabel = domain.split('.')[0] ?? '';
  return [...local.split(EMAIL_SEPARATORS), ...firstLabel.split(EMAIL_SEPARATORS)].filter(
    (part) => passwordLength(part) >= EMAIL_PART_MIN_RUN,
  );
}

/** The first run of 3 email characters found in the password (lower-cased), or undefined. */
export function sharedEmailRun(password: string, email: string): string | undefined {
  const haystack = password.toLowerCase();
  for (const part of emailParts(email)) {
    const characters = [...part];
    for (let start = 0; start + EMAIL_PART_MIN_RUN <= characters.length; start += 1) {
      const run = characters.slice(start, start + EMAIL_PART_MIN_RUN).join('');
      if (haystack.includes(run)) return run;
    }
  }
  return undefined;
}

/** Whether each rule is met, by rule id. */
export function passwordRuleResults({
  password,
  email,
  currentPassword,
}: PasswordPolicyInput): Record<PasswordRuleId, boolean> {
  if (password === '') {
    return {
      length: false,
      number: false,
      lowercase: false,
      uppercase: false,
      emailPart: false,
      notCurrent: false,
    };
  }
  const length = passwordLength(password);
  return {
    length: length >= PASSWORD_MIN_LENGTH && length <= PASSWORD_MAX_LENGTH,
    number: DIGIT.test(password),
    lowercase: LOWERCASE.test(password),
    uppercase: UPPERCASE.test(password),
    emailPart: sharedEmailRun(password, email) === undefined,
    notCurrent: password !== currentPassword,
  };
}

/** The ids of the rules the password fails, in checklist order; empty when it passes the policy. */
export function failedPasswordRules(input: PasswordPolicyInput): PasswordRuleId[] {
  const results = passwordRuleResults(input);
  return PASSWORD_RULE_IDS.filter((id) => !results[id]);
}

export interface PasswordChangeFields {
  currentPassword: string;
  newPassword: string;
  confirmPassword: string;
}

/**
 * Save is enabled only when the current, new and confirm fields are non-empty, every new-password rule
 * passes and the confirmation equals the new password (spec section 5).
 */
export function canSavePasswordChange(fields: PasswordChangeFields, email: string): boolean {
  const { currentPassword, newPassword, confirmPassword } = fields;
  return (
    currentPassword !== '' &&
    newPassword !== '' &&
    confirmPassword !== '' &&
    confirmPassword === newPassword &&
    failedPasswordRules({ password: newPassword, email, currentPassword }).length === 0
  );
}
