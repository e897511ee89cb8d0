/**
 * The reset pages' only script, served as files from the provider's own origin (its CSP's script-src 'self'; no
 * inline script): it takes the link's token out of the address bar and history, and ticks the new-password
 * checklist as the holder types, with the shared policy module itself (shared-auth's built password-policy.js,
 * "pure functions, no dependencies"), the one the server enforces and the Password page draws from.
 */
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type TypeScript from 'typescript';

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

let policyModule: Promise<string> | undefined;

/**
 * The shared policy as the browser imports it, read once. Production serves shared-auth's built module
 * (dist/contract/password-policy.js). Where that is missing or older than its source (a fresh clone's tests, a
 * source edited under `pnpm dev`), the source is transpiled instead with TypeScript, which such a checkout has.
 */
export function passwordPolicyModule(): Promise<string> {
  policyModule ??= loadPolicyModule();
  return policyModule;
}

async function loadPolicyModule(): Promise<string> {
  const root = path.dirname(createRequire(import.meta.url).resolve('shared-auth/package.json'));
  const built = path.join(root, 'dist', 'contract', 'password-policy.js');
  const source = path.join(root, 'src', 'contract', 'password-policy.ts');
  const [builtAt, sourceAt] = await Promise.all([modifiedAt(built), modifiedAt(source)]);
  if (builtAt !== undefined && (sourceAt === undefined || builtAt >= sourceAt))
    return readFile(built, 'utf8');
  if (sourceAt === undefined)
    throw new Error(`The password policy module is missing: build shared-auth (${built})`);
  let ts: typeof TypeScript;
  try {
    ts = (await import('typescript')).default;
  } catch (error) {
    if (builtAt !== undefined) return readFile(built, 'utf8');
    throw new Error(`Build shared-auth first: ${built} is missing and TypeScript is not installed`, {
      cause: error,
    });
  }
  const { outputText } = ts.transpileModule(await readFile(source, 'utf8'), {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  });
  return outputText;
}

async function modifiedAt(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return undefined;
  }
}
