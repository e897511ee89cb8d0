// The access token okta-auth-js keeps in localStorage from an earlier visit, read before the SDK loads, so the very
// first request of the page (the remotes' resolved set) can carry it: the holder's canary applies with no extra
// round trip. Only a token that is still valid for a while is sent; the SDK renews the rest later.
const TOKEN_STORAGE_KEY = 'okta-token-storage';
/** A token this close to expiry may be refused by the time the server checks it. */
const MIN_REMAINING_SECONDS = 30;

export function storedAccessToken(
  storage: Pick<Storage, 'getItem'> = window.localStorage,
  now = Date.now(),
): string | undefined {
  try {
    const stored = JSON.parse(storage.getItem(TOKEN_STORAGE_KEY) ?? '{}') as {
      accessToken?: { accessToken?: unknown; expiresAt?: unknown };
    };
    const { accessToken, expiresAt } = stored.accessToken ?? {};
    if (typeof accessToken !== 'string' || typeof expiresAt !== 'number') return undefined;
    return expiresAt - MIN_REMAINING_SECONDS > now / 1000 ? accessToken : undefined;
  } catch {
    // Storage unavailable (privacy mode) or not JSON: an anonymous request, resolved again once signed in.
    return undefined;
  }
}
