/**
 * The work test apps skip (test/helpers.ts startApp): their key ring takes pre-generated RSA keys and their
 * passwords are hashed with a cheap argon2id cost. Here one app does each the way production does: it generates
 * its own signing key, and it hashes with production's argon2id parameters, which sign-in then verifies.
 */
import { describe, expect, inject, it } from 'vitest';
import { PRODUCTION_PASSWORD_HASHING } from '../src/directory/directory.js';
import { ALICE, appForBlock, startApp, TEST_PASSWORD_HASHING, tokensFor } from './helpers.js';

const poolKids = () => inject('keyMaterial').signingKeys.map((key) => key.kid);

/** argon2's encoded parameters, as a hash string carries them (`m=…,p=…,t=…`). */
const costOf = ({ memoryCost, timeCost, parallelism }: typeof PRODUCTION_PASSWORD_HASHING) =>
  `$m=${memoryCost},p=${parallelism},t=${timeCost}$`;

describe('a test app as the helpers build it', () => {
  const t = appForBlock(() => startApp());

  it('signs with a key of the run pool and hashes with the cheap cost', async () => {
    expect(poolKids()).toContain(t.app.keyRing?.signing.privateJwk.kid);
    const alice = await t.app.directory.findByEmail(ALICE.email);
    expect(await t.app.directory.passwordHashOf(alice?.id ?? '')).toContain(costOf(TEST_PASSWORD_HASHING));
  });
});

describe('an app that does the work as production does', () => {
  const t = appForBlock(() =>
    startApp({}, undefined, {
      generateSigningKey: undefined,
      passwordHashing: PRODUCTION_PASSWORD_HASHING,
    }),
  );

  it('generates its own RSA signing key (not one of the pool)', () => {
    const kid = t.app.keyRing?.signing.privateJwk.kid;
    expect(kid).toMatch(/^[\w-]{43}$/);
    expect(poolKids()).not.toContain(kid);
  });

  it("hashes the demo accounts' passwords with production's argon2id cost, and sign-in verifies them", async () => {
    const alice = await t.app.directory.findByEmail(ALICE.email);
    const hash = await t.app.directory.passwordHashOf(alice?.id ?? '');
    expect(hash).toMatch(/^\$argon2id\$v=19\$/);
    expect(hash).toContain(costOf(PRODUCTION_PASSWORD_HASHING));
    const tokens = await tokensFor(t.app, ALICE);
    expect(tokens.access_token).toBeTruthy();
  });
});
