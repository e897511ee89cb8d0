/**
 * The stand-in org's password policy, with the setting names of Okta's password policy
 * (settings.password.complexity / .age) and the refusal text Okta's specification shows for it
 * (idp-minimal.yaml, Error-InvalidPassword-Reponse-400: "password: Password requirements were not met. Password
 * requirements: at least 8 characters, a lowercase letter, an uppercase letter, a number, no parts of your username.
 * Your password cannot be any of your last 4 password(s).").
 */
export interface OktaPasswordPolicy {
  minLength: number;
  minLowerCase: number;
  minUpperCase: number;
  minNumber: number;
  minSymbol: number;
  /** The password may not contain a part (3+ characters) of the login's local part. */
  excludeUsername: boolean;
  /** The last N passwords, the current one included, cannot be reused (0 = no history). */
  historyCount: number;
}

/** The policy the specification's example describes. */
export const DEFAULT_PASSWORD_POLICY: OktaPasswordPolicy = {
  minLength: 8,
  minLowerCase: 1,
  minUpperCase: 1,
  minNumber: 1,
  minSymbol: 0,
  excludeUsername: true,
  historyCount: 4,
};

/** Okta lists the whole policy, not only the rule that failed. */
export function requirementsText(policy: OktaPasswordPolicy): string {
  const parts = [`at least ${policy.minLength} characters`];
  if (policy.minLowerCase > 0) parts.push('a lowercase letter');
  if (policy.minUpperCase > 0) parts.push('an uppercase letter');
  if (policy.minNumber > 0) parts.push('a number');
  if (policy.minSymbol > 0) parts.push('a symbol');
  if (policy.excludeUsername) parts.push('no parts of your username');
  let text = `Password requirements were not met. Password requirements: ${parts.join(', ')}.`;
  if (policy.historyCount > 0)
    text += ` Your password cannot be any of your last ${policy.historyCount} password(s).`;
  return text;
}

const count = (value: string, pattern: RegExp): number => (value.match(pattern) ?? []).length;

/** True when the password satisfies the complexity rules (history is checked by the caller, who holds it). */
export function meetsComplexity(policy: OktaPasswordPolicy, password: string, login: string): boolean {
  if ([...password].length < policy.minLength) return false;
  if (count(password, /\p{Ll}/gu) < policy.minLowerCase) return false;
  if (count(password, /\p{Lu}/gu) < policy.minUpperCase) return false;
  if (count(password, /\p{Nd}/gu) < policy.minNumber) return false;
  if (count(password, /[^\p{L}\p{Nd}]/gu) < policy.minSymbol) return false;
  if (policy.excludeUsername) {
    const local = (login.split('@')[0] ?? '').toLowerCase();
    const lower = password.toLowerCase();
    const parts = local.split(/[.,\-_#@+]/).filter((p) => p.length >= 3);
    if (parts.some((p) => lower.includes(p))) return false;
  }
  return true;
}
