import { escapeHtml, page } from '../html.js';

export const WRONG_CREDENTIALS = 'Incorrect email or password.';
export const MISSING_CREDENTIALS = 'Enter your email and password.';

export function tooManyAttempts(retryAfterMs: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
  return `Too many failed sign-in attempts for this email. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

export interface SignInPageOptions {
  action: string;
  email?: string;
  error?: string;
}

/** Step 1 of sign-in: email and password. Plain HTML: no client JS, labelled fields, errors in role=alert. */
export function signInPage({ action, email = '', error }: SignInPageOptions): string {
  const describedBy = error ? ' aria-describedby="form-error"' : '';
  return page(
    'Sign in · My Profile',
    `<h1>Sign in</h1>
<p class="muted">Use the email and password of your account.</p>
${error ? `<div id="form-error" role="alert">${escapeHtml(error)}</div>` : ''}
<form method="post" action="${escapeHtml(action)}" novalidate>
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(email)}"${describedBy}${email ? '' : ' autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${describedBy}${email ? ' autofocus' : ''}>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function interactionErrorPage(message: string, portalUrl: string): string {
  return page(
    'Sign-in problem',
    `<h1>Sign-in problem</h1>
<p role="alert">${escapeHtml(message)}</p>
<p><a href="${escapeHtml(portalUrl)}/">Return to My Profile and sign in again</a></p>`,
  );
}
