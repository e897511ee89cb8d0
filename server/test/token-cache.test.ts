import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { InvalidTokenError, localVerifier, SESSION_ENDED_MESSAGE } from '../src/auth/verifier.js';

const ISSUER = 'http://localhost:3000/oauth2/default';
const AUDIENCE = 'api://default';

describe('verified access tokens are remembered only until they expire', () => {
  it('accepts a token again from memory, and refuses it once it has expired', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    let clock = Date.now();
    let alive = true;
    const verifier = localVerifier(
      { keys: [jwk] },
      ISSUER,
      AUDIENCE,
      { clientIds: ['portal'], requiredScope: 'openid', isAlive: () => Promise.resolve(alive) },
      () => clock,
    );
    const iat = Math.floor(clock / 1000);
    const token = await new SignJWT({ uid: '00u1', client_id: 'portal', scope: 'openid' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('00u1')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .sign(privateKey);

    const first = await verifier.verify(token);
    expect(first.userId).toBe('00u1');
    // The same answer object: the second call did not verify the signature again.
    expect(await verifier.verify(token)).toBe(first);

    // The memory never answers for a session that has ended since.
    alive = false;
    await expect(verifier.verify(token)).rejects.toEqual(new InvalidTokenError(SESSION_ENDED_MESSAGE));
    alive = true;

    clock += 120_000;
    await expect(verifier.verify(token)).rejects.toEqual(
      new InvalidTokenError('The access token has expired'),
    );
  });
});
