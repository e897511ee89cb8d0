/**
 * After a password reset the browser goes to the portal's start, which begins a new sign-in; this short-lived,
 * signed cookie makes that sign-in page say "Your password has been changed…". It carries only its expiry: it
 * selects one fixed message, and the signature keeps other sites' pages from choosing it.
 */
import type { SignInKeys } from './secrets.js';

export const RESET_DONE_COOKIE = 'portal_reset_done';
/** How long the message waits for the sign-in page. */
export const RESET_DONE_MAX_AGE_S = 10 * 60;
export const PASSWORD_CHANGED_NOTICE = 'Your password has been changed. Sign in with your new password.';

// The CSRF purpose's key, on a value no CSRF token is made of ('interaction:…' there).
const signed = (keys: SignInKeys, expiresAt: number) => keys.sign('csrf', `reset-done:${expiresAt}`);

function cookie(value: string, maxAge: number, options: { path: string; secure: boolean }): string {
  return [
    `${RESET_DONE_COOKIE}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${maxAge}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

/** The Set-Cookie of a reset that just succeeded. */
export function resetDoneCookie(
  keys: SignInKeys,
  now: number,
  options: { path: string; secure: boolean },
): string {
  const expiresAt = now + RESET_DONE_MAX_AGE_S * 1000;
  return cookie(`${expiresAt}.${signed(keys, expiresAt)}`, RESET_DONE_MAX_AGE_S, options);
}

/** The Set-Cookie that removes it once the message was shown. */
export function clearResetDoneCookie(options: { path: string; secure: boolean }): string {
  return cookie('', 0, options);
}

/** Whether the request carries a valid, unexpired cookie of a reset. */
export function hasResetDone(cookieHeader: string | undefined, keys: SignInKeys, now: number): boolean {
  const value = cookieHeader
    ?.split(/;\s*/)
    .find((part) => part.startsWith(`${RESET_DONE_COOKIE}=`))
    ?.slice(RESET_DONE_COOKIE.length + 1);
  if (!value) return false;
  const [expiry, mac] = value.split('.');
  const expiresAt = Number(expiry);
  if (!Number.isSafeInteger(expiresAt) || expiresAt <= now || !mac) return false;
  return keys.verify('csrf', `reset-done:${expiresAt}`, mac);
}
