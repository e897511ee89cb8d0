import { generateKeyPair, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, type JWK } from 'jose';

/** The files an install before the key ring kept its keys in (DATA_DIR). */
export const LEGACY_SIGNING_KEY_FILE = 'oidc-signing-key.json';
export const LEGACY_COOKIE_KEYS_FILE = 'oidc-cookie-keys.json';

/** A signing key as the ring stores it: the private JWK (JSON) and its kid. */
export interface NewSigningKey {
  kid: string;
  material: string;
}

/**
 * The kid of an RSA JWK: its RFC 7638 thumbprint. okta-auth-js caches the JWKS for 24 h by kid, so a different
 * key must never reuse a kid.
 */
export async function kidOf(jwk: JWK): Promise<string> {
  const { kty, n, e } = jwk;
  if (kty !== 'RSA' || !n || !e) throw new Error('not an RSA key');
  return calculateJwkThumbprint({ kty, n, e }, 'sha256');
}

const generateRsa = promisify(generateKeyPair);

/** A fresh RSA 2048 key (RS256). Slow (tens of ms): generate outside a transaction. */
export async function generateSigningKey(): Promise<NewSigningKey> {
  const { privateKey } = await generateRsa('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as JWK;
  return { kid: await kidOf(jwk), material: JSON.stringify(jwk) };
}

/** A fresh cookie key: 32 random bytes, base64url. */
export function generateCookieKey(): string {
  return randomBytes(32).toString('base64url');
}

/** A cookie key's id in the ring: random (the key itself must not be derivable from anything published). */
export function newCookieKid(): string {
  return randomBytes(12).toString('base64url');
}

/** The signing key an older install kept in DATA_DIR, if any (read only: the file is left as it is). */
export async function readLegacySigningKey(dataDir: string): Promise<NewSigningKey | undefined> {
  const file = path.join(dataDir, LEGACY_SIGNING_KEY_FILE);
  if (!existsSync(file)) return undefined;
  const jwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
  if (jwk.kty !== 'RSA' || !jwk.d) throw new Error(`${file} does not hold an RSA private key`);
  return { kid: await kidOf(jwk), material: JSON.stringify(jwk) };
}

/** The cookie keys an older install kept in DATA_DIR (the first one signed), if any. */
export function readLegacyCookieKeys(dataDir: string): string[] | undefined {
  const file = path.join(dataDir, LEGACY_COOKIE_KEYS_FILE);
  if (!existsSync(file)) return undefined;
  const keys = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  if (Array.isArray(keys) && keys.length > 0 && keys.every((key) => typeof key === 'string' && key !== '')) {
    return keys as string[];
  }
  throw new Error(`${file} must be a JSON array of strings`);
}
