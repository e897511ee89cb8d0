/**
 * The Okta identity backend's settings (OKTA_*): which credentials the portal calls the org's Management API with,
 * read and checked at start-up. The org itself is the settings file's Domain.
 */
import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, type Env } from './env.js';

/** How the portal authenticates to the org's Management API. */
export type OktaCredentials =
  | {
      kind: 'service-app';
      clientId: string;
      /** The app's private key as a JWK (RSA or EC; `alg` set), as the SDK signs the client assertion with it. */
      privateJwk: Record<string, unknown>;
      /** The key's id in the app's JWKS (the assertion's `kid`); optional when the JWK has one or the app has one key. */
      keyId: string | undefined;
      /** OAuth scopes asked for (the app must be granted them in Okta). */
      scopes: string[];
    }
  | { kind: 'api-token'; token: string };

/** The settings the Okta identity backend reads (optional in env.ts; required here). */
export type OktaEnv = Pick<
  Env,
  | 'OKTA_CLIENT_ID'
  | 'OKTA_PRIVATE_KEY'
  | 'OKTA_PRIVATE_KEY_FILE'
  | 'OKTA_KEY_ID'
  | 'OKTA_SCOPES'
  | 'OKTA_API_TOKEN'
  | 'OKTA_FEDERATED_ATTRIBUTE'
>;

export interface OktaSettings {
  /** The service app (OKTA_CLIENT_ID + its private key + OKTA_SCOPES), or the API token (OKTA_API_TOKEN). */
  credentials: OktaCredentials;
  /** OKTA_FEDERATED_ATTRIBUTE: a boolean profile attribute that marks a user as federated, when set. */
  federatedAttribute: string | undefined;
}

/** The signing algorithms Okta takes for a private_key_jwt client assertion. */
const OKTA_ALGORITHMS = new Set(['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512']);
const EC_ALGORITHM: Record<string, string> = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' };

/**
 * The Okta backend's credentials from the environment, checked: the service app (the way Okta recommends: a
 * scoped OAuth 2.0 client with its own key) or an API token (the fallback: it acts with the whole role of the
 * admin who made it, and expires after 30 days unused). The org itself is the settings' Domain.
 * Throws a ConfigError naming the setting that is missing or wrong; a key is never echoed.
 */
export function oktaSettingsOf(
  env: OktaEnv,
  readFile: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): OktaSettings {
  const federatedAttribute = env.OKTA_FEDERATED_ATTRIBUTE;
  const serviceAppSettings = (
    ['OKTA_CLIENT_ID', 'OKTA_PRIVATE_KEY', 'OKTA_PRIVATE_KEY_FILE', 'OKTA_KEY_ID'] as const
  ).filter((key) => env[key] !== undefined);

  if (env.OKTA_API_TOKEN !== undefined) {
    if (serviceAppSettings.length > 0) {
      throw new ConfigError(
        `OKTA_API_TOKEN cannot be combined with the service app's ${serviceAppSettings.join(', ')}: use the service app (recommended) and unset OKTA_API_TOKEN, or unset those to use the token`,
      );
    }
    return { credentials: { kind: 'api-token', token: env.OKTA_API_TOKEN }, federatedAttribute };
  }

  const missing: string[] = [];
  if (env.OKTA_CLIENT_ID === undefined) missing.push('OKTA_CLIENT_ID');
  if (env.OKTA_PRIVATE_KEY === undefined && env.OKTA_PRIVATE_KEY_FILE === undefined) {
    missing.push('OKTA_PRIVATE_KEY (or OKTA_PRIVATE_KEY_FILE)');
  }
  if (missing.length > 0 || env.OKTA_CLIENT_ID === undefined) {
    throw new ConfigError(
      `The Okta identity backend needs ${missing.join(' and ')}: the client id and private key of the org's API Services app (or OKTA_API_TOKEN, the fallback)`,
    );
  }
  if (env.OKTA_PRIVATE_KEY !== undefined && env.OKTA_PRIVATE_KEY_FILE !== undefined) {
    throw new ConfigError('OKTA_PRIVATE_KEY and OKTA_PRIVATE_KEY_FILE are both set: keep one of them');
  }

  let setting = 'OKTA_PRIVATE_KEY';
  let text = env.OKTA_PRIVATE_KEY;
  if (text === undefined && env.OKTA_PRIVATE_KEY_FILE !== undefined) {
    setting = `OKTA_PRIVATE_KEY_FILE (${env.OKTA_PRIVATE_KEY_FILE})`;
    try {
      text = readFile(env.OKTA_PRIVATE_KEY_FILE);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigError(
        `${setting}: ${code === 'ENOENT' ? 'file not found' : `cannot be read (${code ?? 'error'})`}`,
      );
    }
  }
  const privateJwk = privateJwkOf(setting, text ?? '', env.OKTA_KEY_ID);
  return {
    credentials: {
      kind: 'service-app',
      clientId: env.OKTA_CLIENT_ID,
      privateJwk,
      keyId: env.OKTA_KEY_ID,
      scopes: env.OKTA_SCOPES,
    },
    federatedAttribute,
  };
}

/**
 * The private key as the JWK the SDK signs with: from PEM (PKCS#8, PKCS#1 RSA or SEC1 EC; `\n` written as two
 * characters, as one-line environment values often are, is read as a line break) or from a JWK in JSON. RSA of
 * 2048 bits at least (Okta's minimum) or EC P-256/384/521; `alg` set to what Okta takes, `kid` from OKTA_KEY_ID.
 */
function privateJwkOf(setting: string, raw: string, keyId: string | undefined): Record<string, unknown> {
  const text = raw.trim();
  let key: KeyObject;
  let declared: { alg?: unknown; kid?: unknown } = {};
  try {
    if (text.startsWith('{')) {
      declared = JSON.parse(text) as { alg?: unknown; kid?: unknown };
      key = createPrivateKey({ key: declared as JsonWebKey, format: 'jwk' });
    } else {
      key = createPrivateKey(text.includes('\n') ? text : text.replace(/\\n/g, '\n'));
    }
  } catch {
    throw new ConfigError(
      `${setting}: not a private key (expected a PEM "-----BEGIN PRIVATE KEY-----" block or a private JWK in JSON)`,
    );
  }
  const jwk = key.export({ format: 'jwk' }) as Record<string, unknown>;
  let alg: string;
  if (key.asymmetricKeyType === 'rsa') {
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < 2048)
      throw new ConfigError(`${setting}: an RSA key must have 2048 bits at least (Okta's minimum)`);
    alg = typeof declared.alg === 'string' ? declared.alg : 'RS256';
  } else if (key.asymmetricKeyType === 'ec' && EC_ALGORITHM[String(jwk.crv)] !== undefined) {
    // An EC key signs with the hash of its curve.
    alg = EC_ALGORITHM[String(jwk.crv)] as string;
    if (declared.alg !== undefined && declared.alg !== alg) alg = String(declared.alg);
  } else {
    throw new ConfigError(`${setting}: must be an RSA or EC (P-256, P-384, P-521) key`);
  }
  const family = key.asymmetricKeyType === 'rsa' ? 'RS' : 'ES';
  if (
    !OKTA_ALGORITHMS.has(alg) ||
    !alg.startsWith(family) ||
    (family === 'ES' && alg !== EC_ALGORITHM[String(jwk.crv)])
  ) {
    throw new ConfigError(`${setting}: the JWK's alg ${alg} is not one Okta takes for this key`);
  }
  const kid = typeof declared.kid === 'string' ? declared.kid : undefined;
  if (keyId !== undefined && kid !== undefined && keyId !== kid) {
    throw new ConfigError(`OKTA_KEY_ID (${keyId}) is not the kid of the key in ${setting} (${kid})`);
  }
  const chosenKid = keyId ?? kid;
  return { ...jwk, alg, ...(chosenKid === undefined ? {} : { kid: chosenKid }) };
}
