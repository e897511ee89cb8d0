/**
 * The logout page (/v1/logout): when it may post itself and when it must ask the holder first. A top-level link on
 * any site reaches it with the holder's cookies (SameSite=Lax lets top-level GETs through), so a page that always
 * posted itself let any site sign the holder out (logout CSRF, issue 18).
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { allowInlineScript, escapeHtml, page } from './html.js';

/** The origin of an Origin or Referer header, or undefined when it is absent or not a URL (`null`, garbage). */
function originOf(header: string): string | undefined {
  if (header === '' || header === 'null') return undefined;
  try {
    return new URL(header).origin;
  } catch {
    return undefined;
  }
}

/**
 * Whether the holder (not some other site) asked to sign out:
 * - an `id_token_hint` for the account signed in on this session. okta-auth-js's signOut() always sends one; the
 *   provider has already checked its signature, issuer and audience (expiry aside, as the spec allows). A foreign
 *   page cannot have it: ID tokens go only to the portal's own pages. An ID token of another account (the
 *   attacker's own) does not count.
 * - or the browser says the request comes from the portal itself: `Sec-Fetch-Site: same-origin` (set by the browser,
 *   never by a page), or an Origin / Referer that is one of the portal's origins (PUBLIC_URL and TRUSTED_ORIGINS,
 *   compared exactly). `same-site` alone is not enough: another host under the same domain is same-site too.
 * Anything else (a cross-site link, no headers at all, `Sec-Fetch-Site: none` from a typed or pasted address) asks.
 */
export function holderAskedToSignOut(ctx: KoaContextWithOIDC, trustedOrigins: readonly string[]): boolean {
  const accountId = ctx.oidc.session?.accountId;
  const hint = ctx.oidc.entities.IdTokenHint as { payload?: { sub?: unknown } } | undefined;
  if (accountId !== undefined && hint?.payload?.sub === accountId) return true;
  if (ctx.get('sec-fetch-site') === 'same-origin') return true;
  return [ctx.get('origin'), ctx.get('referer')].some((header) => {
    const origin = originOf(header);
    return origin !== undefined && trustedOrigins.includes(origin);
  });
}

/**
 * The page itself. `form` is the provider's form (its xsrf secret ties it to this browser's session); the added
 * `logout=yes` ends the session for every client, as okta-auth-js expects.
 */
export function renderLogoutPage(
  ctx: KoaContextWithOIDC,
  form: string,
  options: { trustedOrigins: readonly string[]; portalUrl: string },
): void {
  const logoutForm = form.replace('</form>', '<input type="hidden" name="logout" value="yes"/></form>');
  ctx.type = 'html';
  if (holderAskedToSignOut(ctx, options.trustedOrigins)) {
    // No question asked; a noscript button covers browsers without JS.
    const script = allowInlineScript(ctx.response, 'document.forms[0].submit();');
    ctx.body = page(
      'Signing out',
      `<h1>Signing out…</h1>${logoutForm}<noscript><button type="submit" form="op.logoutForm">Sign out</button></noscript>`,
    ).replace('</body>', `<script>${script}</script></body>`);
    return;
  }
  // Nothing happens until the holder presses the button (a same-origin POST carrying the form's secret).
  ctx.body = page(
    'Sign out?',
    `<h1>Sign out?</h1><p>You will be signed out of My Profile in this browser.</p>${logoutForm}` +
      '<button type="submit" form="op.logoutForm">Sign out</button>' +
      `<p class="muted"><a href="${escapeHtml(options.portalUrl)}/">Stay signed in</a></p>`,
  );
}
