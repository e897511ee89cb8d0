/**
 * Pre-generated RSA keys for the test apps (fixtures-global-setup.ts makes them once per run): generating a 2048-bit
 * key costs tens to hundreds of ms on 2 cores, and every test app's key ring would make one, the Okta stand-in's
 * servers more. Each call hands out the next key of the pool, so keys made one after the other in a worker differ
 * (a ring's rotation gets a new kid). test/production-work.test.ts keeps one app on real key generation.
 */
import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { inject } from 'vitest';
import type { TestKeyMaterial } from './fixtures-global-setup.js';

declare module 'vitest' {
  export interface ProvidedContext {
    keyMaterial: TestKeyMaterial;
  }
}

let handedOut = 0;

function nextKey(): { kid: string; material: string } {
  const pool = inject('keyMaterial').signingKeys;
  const key = pool[handedOut % pool.length];
  handedOut += 1;
  if (!key) throw new Error('the test key pool is empty (fixtures-global-setup.ts)');
  return key;
}

/** The key ring's next signing key, from the pool (buildApp's `generateSigningKey`). */
export function pooledSigningKey(): Promise<{ kid: string; material: string }> {
  return Promise.resolve(nextKey());
}

/** An RSA key pair from the pool, as node:crypto KeyObjects (the Okta stand-in's servers and service apps). */
export function pooledRsaKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  const privateKey = createPrivateKey({ key: JSON.parse(nextKey().material) as JsonWebKey, format: 'jwk' });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}
