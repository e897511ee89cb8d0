import { jwtVerify } from 'jose';
import { localKeySet, type LocalKeys } from '../auth/verifier.js';
import type { ProviderStore } from '../storage/provider.js';

/**
 * RFC 7009 for the provider's access tokens. They are JWTs that oidc-provider does not store, so its
 * /v1/revoke finds nothing to delete and answers 200 while the token would still open the API until it expires.
 * This records the token's `jti` until then; the API's session check refuses it (ProviderStore.isTokenAlive).
 * Only a token of this issuer, presented by the client it was issued to, is recorded; anything else is left to
 * the provider (a refresh token, which it revokes with its whole grant, or an unknown string).
 */
export function accessTokenRevoker(jwks: LocalKeys, issuer: string, store: ProviderStore) {
  const keys = localKeySet(jwks);
  return async function revokeAccessToken(form: URLSearchParams): Promise<boolean> {
    const token = form.get('token');
    const clientId = form.get('client_id');
    if (!token || !clientId || token.split('.').length !== 3) return false;
    let payload;
    try {
      // An expired token needs no record: the API refuses it anyway.
      ({ payload } = await jwtVerify(token, keys, { issuer, algorithms: ['RS256'], clockTolerance: 5 }));
    } catch {
      return false;
    }
    if (
      payload.client_id !== clientId ||
      typeof payload.jti !== 'string' ||
      typeof payload.exp !== 'number'
    ) {
      return false;
    }
    await store.revokeAccessToken(payload.jti, payload.exp);
    return true;
  };
}
