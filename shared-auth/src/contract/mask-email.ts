/**
 * The masked email of the spec (section 3): the first character, four dots, the last character of the local
 * part, then the domain. `alice@example.com` → `a....e@example.com`. Used by the server (step-up data) and the
 * browser (email enrolment), so both always show the same text.
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  const local = at > 0 ? email.slice(0, at) : email;
  const domain = at > 0 ? email.slice(at) : '';
  const first = local.slice(0, 1);
  const last = local.slice(-1);
  return `${first}....${last}${domain}`;
}
