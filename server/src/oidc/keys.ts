import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';

export const SIGNING_KEY_FILE = 'oidc-signing-key.json';
export const COOKIE_KEYS_FILE = 'oidc-cookie-keys.json';

export interface SigningKeys {
  /** Private JWK handed to oidc-provider. */
  privateJwk: JWK & { kid: string };
  /** Public JWKS, used to verify our own tokens locally (no HTTP round trip). */
  publicJwks: { keys: JWK[] };
}

/**
 * Writes through a temporary file so a crash never leaves a half-written key behind. Owner-only (0600 in a 0700
 * folder), whatever the umask: `mode` applies only when a file is created, so a leftover temp file is chmod-ed too.
 */
function writeSecretFile(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, content, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

/**
 * The provider's RS256 signing key, generated once and kept in DATA_DIR. okta-auth-js caches the JWKS for
 * 24 h by `kid`, so the kid is the key's RFC 7638 thumbprint: a different key always has a different kid.
 */
export async function loadSigningKeys(dataDir: string): Promise<SigningKeys> {
  const file = path.join(dataDir, SIGNING_KEY_FILE);
  let privateJwk: JWK;
  if (existsSync(file)) {
    privateJwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
  } else {
    const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    privateJwk = await exportJWK(privateKey);
    writeSecretFile(file, `${JSON.stringify(privateJwk)}\n`);
  }
  const { kty, n, e } = privateJwk;
  if (kty !== 'RSA' || !n || !e) throw new Error(`${file} does not hold an RSA key`);
  const kid = await calculateJwkThumbprint({ kty, n, e }, 'sha256');
  const signing = { ...privateJwk, kid, alg: 'RS256', use: 'sig' };
  return { privateJwk: signing, publicJwks: { keys: [{ kty, n, e, kid, alg: 'RS256', use: 'sig' }] } };
}

/** Keys that sign the provider's cookies; new keys may be prepended to rotate while old cookies stay valid. */
export function loadCookieKeys(dataDir: string): string[] {
  const file = path.join(dataDir, COOKIE_KEYS_FILE);
  if (existsSync(file)) {
    const keys = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (Array.isArray(keys) && keys.length > 0 && keys.every((key) => typeof key === 'string')) {
      return keys as string[];
    }
    throw new Error(`${file} must be a JSON array of strings`);
  }
  const keys = [randomBytes(32).toString('base64url')];
  writeSecretFile(file, `${JSON.stringify(keys)}\n`);
  return keys;
}
