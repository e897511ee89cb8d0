import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from '../src/config/env.js';
import { oktaSettingsOf } from '../src/config/okta.js';

/**
 * The Okta identity backend's settings: optional in the environment (env.ts), required and checked by
 * oktaSettingsOf (src/config/okta.ts), every refusal naming the setting and never echoing a key.
 */

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const RSA_PEM = rsa.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const RSA_PKCS1_PEM = rsa.privateKey.export({ format: 'pem', type: 'pkcs1' }).toString();
const RSA_JWK = rsa.privateKey.export({ format: 'jwk' });

/** The error `run` throws: a ConfigError, whose message must not contain any of `secrets`. */
function configError(run: () => unknown, secrets: string[] = []): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const secret of secrets) expect(message).not.toContain(secret);
    return message;
  }
  throw new Error('no ConfigError');
}

const settingsOf = (source: NodeJS.ProcessEnv) => oktaSettingsOf(parseEnv(source));

describe('the environment (env.ts)', () => {
  it('the Okta settings are optional; OKTA_SCOPES defaults to the two scopes the portal needs', () => {
    const env = parseEnv({});
    expect(env.OKTA_SCOPES).toEqual(['okta.users.read', 'okta.users.manage']);
    for (const key of [
      'OKTA_CLIENT_ID',
      'OKTA_PRIVATE_KEY',
      'OKTA_PRIVATE_KEY_FILE',
      'OKTA_KEY_ID',
      'OKTA_API_TOKEN',
      'OKTA_FEDERATED_ATTRIBUTE',
    ] as const) {
      expect(env[key]).toBeUndefined();
    }
    expect(
      parseEnv({ OKTA_SCOPES: 'okta.users.manage,  okta.users.read okta.users.manage' }).OKTA_SCOPES,
    ).toEqual(['okta.users.manage', 'okta.users.read']);
  });

  it('refuses scopes that are not Okta scope names or lack okta.users.manage, and a bad attribute name, by name', () => {
    expect(configError(() => parseEnv({ OKTA_SCOPES: 'okta.users.read' }))).toContain(
      'OKTA_SCOPES="okta.users.read": must include okta.users.manage',
    );
    expect(configError(() => parseEnv({ OKTA_SCOPES: 'okta.users.manage openid' }))).toContain(
      'OKTA_SCOPES="okta.users.manage openid": must be Okta scope names',
    );
    expect(configError(() => parseEnv({ OKTA_FEDERATED_ATTRIBUTE: 'is federated' }))).toContain(
      'OKTA_FEDERATED_ATTRIBUTE="is federated": must be a profile attribute name',
    );
  });

  it('never echoes OKTA_PRIVATE_KEY or OKTA_API_TOKEN', () => {
    expect(configError(() => parseEnv({ OKTA_PRIVATE_KEY: '   ' }))).toContain('OKTA_PRIVATE_KEY=(hidden)');
    expect(configError(() => parseEnv({ OKTA_API_TOKEN: ' \t ' }))).toContain('OKTA_API_TOKEN=(hidden)');
  });
});

describe('oktaSettingsOf', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'okta-settings-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('names what is missing', () => {
    expect(configError(() => settingsOf({}))).toBe(
      "The Okta identity backend needs OKTA_CLIENT_ID and OKTA_PRIVATE_KEY (or OKTA_PRIVATE_KEY_FILE): the client id and private key of the org's API Services app (or OKTA_API_TOKEN, the fallback)",
    );
    expect(configError(() => settingsOf({ OKTA_CLIENT_ID: '0oa1' }))).toContain(
      'needs OKTA_PRIVATE_KEY (or OKTA_PRIVATE_KEY_FILE):',
    );
    expect(configError(() => settingsOf({ OKTA_PRIVATE_KEY: RSA_PEM }), [RSA_PEM])).toContain(
      'needs OKTA_CLIENT_ID:',
    );
  });

  it('a PEM key (PKCS#8 or PKCS#1, or written on one line with \\n) becomes the JWK the SDK signs with: RS256, the kid of OKTA_KEY_ID', () => {
    for (const pem of [RSA_PEM, RSA_PKCS1_PEM, RSA_PEM.replace(/\n/g, '\\n')]) {
      const settings = settingsOf({ OKTA_CLIENT_ID: '0oa1', OKTA_PRIVATE_KEY: pem, OKTA_KEY_ID: 'k1' });
      expect(settings).toEqual({
        credentials: {
          kind: 'service-app',
          clientId: '0oa1',
          privateJwk: { ...RSA_JWK, alg: 'RS256', kid: 'k1' },
          keyId: 'k1',
          scopes: ['okta.users.read', 'okta.users.manage'],
        },
        federatedAttribute: undefined,
      });
    }
  });

  it('a JWK in JSON keeps its kid and alg; an EC key signs with its curve’s algorithm', () => {
    const jwk = JSON.stringify({ ...RSA_JWK, kid: 'from-jwk', alg: 'RS384' });
    expect(settingsOf({ OKTA_CLIENT_ID: '0oa1', OKTA_PRIVATE_KEY: jwk }).credentials).toMatchObject({
      privateJwk: { kty: 'RSA', kid: 'from-jwk', alg: 'RS384' },
      keyId: undefined,
    });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const ecPem = ec.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(settingsOf({ OKTA_CLIENT_ID: '0oa1', OKTA_PRIVATE_KEY: ecPem }).credentials).toMatchObject({
      privateJwk: { kty: 'EC', crv: 'P-384', alg: 'ES384' },
    });
    const wrongAlg = JSON.stringify({ ...ec.privateKey.export({ format: 'jwk' }), alg: 'ES256' });
    expect(configError(() => settingsOf({ OKTA_CLIENT_ID: '0oa1', OKTA_PRIVATE_KEY: wrongAlg }))).toBe(
      "OKTA_PRIVATE_KEY: the JWK's alg ES256 is not one Okta takes for this key",
    );
  });

  it('refuses a public key, a short RSA key, text that is no key, and a kid that contradicts OKTA_KEY_ID, never echoing the key', () => {
    const publicPem = rsa.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const short = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    const notAKey = /not a private key \(expected a PEM/;
    expect(configError(() => settingsOf({ OKTA_CLIENT_ID: '0oa1', OKTA_PRIVATE_KEY: publicPem }))).toMatch(
      notAKey,
    );
    expect(
      configError(
        () => settingsOf({ OKTA_CLIENT_ID: '0oa1', OKTA_PRIVATE_KEY: 'secret-ish text' }),
        ['secret-ish'],
      ),
    ).toMatch(notAKey);
    expect(
      configError(
        () => settingsOf({ OKTA_CLIENT_ID: '0oa1', OKTA_PRIVATE_KEY: short }),
        [short.slice(40, 80)],
      ),
    ).toBe("OKTA_PRIVATE_KEY: an RSA key must have 2048 bits at least (Okta's minimum)");
    const jwk = JSON.stringify({ ...RSA_JWK, kid: 'a' });
    expect(
      configError(
        () => settingsOf({ OKTA_CLIENT_ID: '0oa1', OKTA_PRIVATE_KEY: jwk, OKTA_KEY_ID: 'b' }),
        [String(RSA_JWK.d)],
      ),
    ).toBe('OKTA_KEY_ID (b) is not the kid of the key in OKTA_PRIVATE_KEY (a)');
  });

  it('OKTA_PRIVATE_KEY_FILE: read from the file; a missing file and both settings at once are refused by name', () => {
    const file = path.join(dir, 'portal-key.pem');
    writeFileSync(file, RSA_PEM);
    expect(settingsOf({ OKTA_CLIENT_ID: '0oa1', OKTA_PRIVATE_KEY_FILE: file }).credentials).toMatchObject({
      kind: 'service-app',
      privateJwk: { kty: 'RSA', d: RSA_JWK.d },
    });
    const missing = path.join(dir, 'nope.pem');
    expect(configError(() => settingsOf({ OKTA_CLIENT_ID: '0oa1', OKTA_PRIVATE_KEY_FILE: missing }))).toBe(
      `OKTA_PRIVATE_KEY_FILE (${missing}): file not found`,
    );
    const garbage = path.join(dir, 'garbage.pem');
    writeFileSync(garbage, 'not a key');
    expect(configError(() => settingsOf({ OKTA_CLIENT_ID: '0oa1', OKTA_PRIVATE_KEY_FILE: garbage }))).toMatch(
      /^OKTA_PRIVATE_KEY_FILE \(.*garbage\.pem\): not a private key/,
    );
    expect(
      configError(() =>
        settingsOf({ OKTA_CLIENT_ID: '0oa1', OKTA_PRIVATE_KEY: RSA_PEM, OKTA_PRIVATE_KEY_FILE: file }),
      ),
    ).toBe('OKTA_PRIVATE_KEY and OKTA_PRIVATE_KEY_FILE are both set: keep one of them');
  });

  it('OKTA_API_TOKEN alone is the fallback; with service-app settings it is refused; the federated attribute passes through', () => {
    expect(settingsOf({ OKTA_API_TOKEN: '00abc', OKTA_FEDERATED_ATTRIBUTE: 'isFederated' })).toEqual({
      credentials: { kind: 'api-token', token: '00abc' },
      federatedAttribute: 'isFederated',
    });
    expect(
      configError(() => settingsOf({ OKTA_API_TOKEN: '00abc', OKTA_CLIENT_ID: '0oa1' }), ['00abc']),
    ).toBe(
      "OKTA_API_TOKEN cannot be combined with the service app's OKTA_CLIENT_ID: use the service app (recommended) and unset OKTA_API_TOKEN, or unset those to use the token",
    );
  });
});
