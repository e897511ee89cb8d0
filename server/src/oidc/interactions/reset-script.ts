/**
 * The reset pages' only script, served as files from the provider's own origin (its CSP's script-src 'self'; no
 * inline script): it takes the link's token out of the address bar and history, and ticks the new-password
 * checklist as the holder types, with the shared policy module itself (shared-auth's built password-policy.js,
 * "pure functions, no dependencies"), the one the server enforces and the Password page draws from.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The page script (an ES module importing the policy from its sibling path). */
export const RESET_PAGE_SCRIPT = `// Password reset pages: the token leaves the address; the checklist follows the shared password policy.
import { passwordRuleResults } from './password-policy.js';

if (window.location.search !== '') window.history.replaceState(null, '', window.location.pathname);

const form = document.getElementById('new-password-form');
const input = document.getElementById('new-password');
const confirm = document.getElementById('confirm-password');
if (form && input && confirm) {
  const email = form.dataset.email || '';
  const update = () => {
    const results = passwordRuleResults({ password: input.value, email, currentPassword: '' });
    for (const item of form.querySelectorAll('[data-rule]')) {
      const rule = item.dataset.rule;
      const met = rule === 'confirm' ? confirm.value !== '' && confirm.value === input.value : results[rule] === true;
      item.classList.toggle('met', met);
      item.querySelector('.state').textContent = met ? '\\u2713' : '\\u2717';
      item.querySelector('.sr-only').textContent = met ? ' (met)' : ' (not met)';
    }
  };
  input.addEventListener('input', update);
  confirm.addEventListener('input', update);
  update();
}
`;

let policyModule: string | undefined;

/**
 * shared-auth's built policy module (dist/contract/password-policy.js), read once: the server needs shared-auth
 * built to run at all (server/README.md).
 */
export function passwordPolicyModule(): string {
  if (policyModule === undefined) {
    const packageJson = createRequire(import.meta.url).resolve('shared-auth/package.json');
    policyModule = readFileSync(
      path.join(path.dirname(packageJson), 'dist', 'contract', 'password-policy.js'),
      'utf8',
    );
  }
  return policyModule;
}
