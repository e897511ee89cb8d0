import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, REPO_ROOT } from '../src/config/index.js';
import { parseEnv } from '../src/config/env.js';
import { redactUrl } from '../src/config/logger.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
afterAll(async () => {
  const { rmSync } = await import('node:fs');
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, content: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

describe('environment', () => {
  it('defaults to the embedded default on http://localhost:3000', () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      PORT: 3000,
      HOST: 'localhost',
      PUBLIC_URL: 'http://localhost:3000',
      DATA_DIR: path.join(REPO_ROOT, 'data'),
      SETTINGS_FILE: path.join(REPO_ROOT, 'config', 'settings.json'),
      REMOTES_FILE: path.join(REPO_ROOT, 'config', 'remotes.json'),
      SHELL_DIST: path.join(REPO_ROOT, 'shell', 'dist'),
      TRUSTED_ORIGINS: [
        'http://localhost:3001',
        'http://localhost:3002',
        'http://localhost:3003',
        'http://localhost:3004',
        'http://localhost:3100',
      ],
      API_AUDIENCE: 'api://default',
      LOG_LEVEL: 'info',
    });
    const config = loadConfig({});
    expect(config.embedded).toBe(true);
    expect(config.issuer).toBe('http://localhost:3000/oauth2/default');
    expect(config.allowedOrigins[0]).toBe('http://localhost:3000');
    expect(config.secureCookies).toBe(false);
  });

  it('treats empty values as unset and normalises origins', () => {
    const env = parseEnv({
      PORT: '',
      PUBLIC_URL: 'http://localhost:3000/',
      TRUSTED_ORIGINS: ' http://a.test:1/ ,,http://a.test:1',
    });
    expect(env.PORT).toBe(3000);
    expect(env.PUBLIC_URL).toBe('http://localhost:3000');
    expect(env.TRUSTED_ORIGINS).toEqual(['http://a.test:1']);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '3000.5'],
    ['PUBLIC_URL', 'localhost:3000'],
    ['PUBLIC_URL', 'ftp://localhost'],
    ['PUBLIC_URL', 'http://localhost:3000/portal'],
    ['TRUSTED_ORIGINS', 'http://localhost:3001,not a url'],
    ['TRUSTED_ORIGINS', 'http://localhost:3001/login/callback'],
    ['LOG_LEVEL', 'verbose'],
    ['API_AUDIENCE', '   '],
    ['API_REQUIRED_SCOPE', 'openid profile'],
  ])('stops on %s=%j with a message naming the setting', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`^Invalid environment setting:\\n  ${name}=`),
    );
  });
});

describe('settings and remotes files', () => {
  it('stops when the settings file is missing, not JSON, or invalid, naming SETTINGS_FILE', () => {
    const missing = path.join(dir, 'missing.json');
    expect(() => loadConfig({ SETTINGS_FILE: missing })).toThrow(
      `SETTINGS_FILE (${missing}): file not found`,
    );
    const broken = write('broken.json', '{ "Domain": ');
    expect(() => loadConfig({ SETTINGS_FILE: broken })).toThrow(`SETTINGS_FILE (${broken}): not valid JSON`);
    const invalid = write('invalid.json', JSON.stringify({ Domain: 'not a url', ClientId: '' }));
    expect(() => loadConfig({ SETTINGS_FILE: invalid })).toThrow(
      /^SETTINGS_FILE \(.*invalid\.json\) is invalid:\n {2}Domain: /,
    );
  });

  it('stops when the remotes file is invalid, naming REMOTES_FILE', () => {
    const invalid = write('remotes.json', JSON.stringify({ remotes: { 'remote-profile': { entry: 'x' } } }));
    expect(() => loadConfig({ REMOTES_FILE: invalid })).toThrow(
      /^REMOTES_FILE \(.*remotes\.json\) is invalid/,
    );
  });

  it('turns the embedded provider off when Domain is another origin (Okta mode)', () => {
    const okta = write(
      'okta.json',
      JSON.stringify({
        Domain: 'https://example.okta.com',
        ClientId: '0oa123',
        HeaderLinks: '{"Help":"https://h"}',
      }),
    );
    const config = loadConfig({ SETTINGS_FILE: okta, OKTA_API_TOKEN: 'test-token' });
    expect(config.embedded).toBe(false);
    expect(config.identityBackend).toBe('okta');
    expect(config.issuer).toBe('https://example.okta.com/oauth2/default');
    expect(config.settings.HeaderLinks).toEqual({ Help: 'https://h' });
  });

  it('makes cookies secure when PUBLIC_URL is https', () => {
    const https = write('https.json', JSON.stringify({ Domain: 'https://portal.example', ClientId: 'c' }));
    // The development remotes file (http://localhost) is refused with https: config-remotes.test.ts.
    const remotes = write('https-remotes.json', JSON.stringify({ remotes: {} }));
    const config = loadConfig({
      PUBLIC_URL: 'https://portal.example',
      SETTINGS_FILE: https,
      REMOTES_FILE: remotes,
    });
    expect(config).toMatchObject({ embedded: true, secureCookies: true });
  });
});

describe('IDENTITY_BACKEND', () => {
  const oktaSettings = () =>
    write('okta-backend.json', JSON.stringify({ Domain: 'https://example.okta.com', ClientId: '0oa1' }));

  it('is embedded with the embedded provider and okta with an org, unless set', () => {
    expect(loadConfig({})).toMatchObject({ identityBackend: 'embedded', okta: undefined });
    expect(loadConfig({ IDENTITY_BACKEND: 'embedded' })).toMatchObject({ identityBackend: 'embedded' });
    const okta = loadConfig({ SETTINGS_FILE: oktaSettings(), OKTA_API_TOKEN: 'test-token' });
    expect(okta).toMatchObject({
      identityBackend: 'okta',
      okta: { credentials: { kind: 'api-token', token: 'test-token' } },
    });
    expect(
      loadConfig({ SETTINGS_FILE: oktaSettings(), OKTA_API_TOKEN: 'test-token', IDENTITY_BACKEND: 'okta' }),
    ).toMatchObject({ identityBackend: 'okta' });
  });

  it('okta needs the OKTA_* credentials, named when missing, and the key never echoed', () => {
    // IDENTITY_BACKEND unset with no OKTA_* credentials is a Domain mismatch instead: settings-domain.test.ts.
    expect(() => loadConfig({ SETTINGS_FILE: oktaSettings(), IDENTITY_BACKEND: 'okta' })).toThrow(
      /^The Okta identity backend needs OKTA_CLIENT_ID and OKTA_PRIVATE_KEY \(or OKTA_PRIVATE_KEY_FILE\)/,
    );
    expect(() =>
      loadConfig({ SETTINGS_FILE: oktaSettings(), OKTA_CLIENT_ID: '0oaService', OKTA_PRIVATE_KEY: 's3cret' }),
    ).toThrow(/^OKTA_PRIVATE_KEY: not a private key/);
    expect(() =>
      loadConfig({ SETTINGS_FILE: oktaSettings(), OKTA_CLIENT_ID: '0oaService', OKTA_PRIVATE_KEY: 's3cret' }),
    ).not.toThrow(/s3cret/);
  });

  it('okta refuses to run with the embedded provider on, and embedded refuses an Okta org', () => {
    expect(() => loadConfig({ IDENTITY_BACKEND: 'okta', OKTA_API_TOKEN: 'test-token' })).toThrow(
      /^IDENTITY_BACKEND=okta cannot run with the embedded provider on/,
    );
    expect(() =>
      loadConfig({
        SETTINGS_FILE: oktaSettings(),
        OKTA_API_TOKEN: 'test-token',
        IDENTITY_BACKEND: 'embedded',
      }),
    ).toThrow(/^IDENTITY_BACKEND=embedded needs the embedded provider/);
  });

  it('takes embedded or okta only', () => {
    expect(() => parseEnv({ IDENTITY_BACKEND: 'ldap' })).toThrow(
      /^Invalid environment setting:\n {2}IDENTITY_BACKEND="ldap": must be embedded or okta/,
    );
  });
});

describe('development surfaces exist only in the development default (PUBLIC_URL on http://localhost)', () => {
  const DEVELOPMENT_ORIGINS = [
    'http://localhost:3001',
    'http://localhost:3002',
    'http://localhost:3003',
    'http://localhost:3004',
    'http://localhost:3100',
  ];

  it.each(['http://localhost:3000', 'http://localhost:8080', 'http://localhost'])(
    'on %s: the mailbox, the demo accounts and the development trusted origins are on',
    (publicUrl) => {
      const env = parseEnv({ PUBLIC_URL: publicUrl });
      expect(env).toMatchObject({
        developmentDefault: true,
        DEV_MAILBOX: true,
        DEMO_ACCOUNTS: true,
        TRUSTED_ORIGINS: DEVELOPMENT_ORIGINS,
        TRUST_PROXY: false,
      });
    },
  );

  it.each([
    'https://portal.example',
    'http://portal.internal:3000',
    'http://127.0.0.1:3000',
    'https://localhost',
  ])('on %s: all off, and no trusted origin unless TRUSTED_ORIGINS lists one', (publicUrl) => {
    const env = parseEnv({ PUBLIC_URL: publicUrl });
    expect(env).toMatchObject({
      developmentDefault: false,
      DEV_MAILBOX: false,
      DEMO_ACCOUNTS: false,
      TRUSTED_ORIGINS: [],
    });
  });

  it('lets a plain-http deployment opt in by name', () => {
    const env = parseEnv({
      PUBLIC_URL: 'http://portal.internal:3000',
      DEV_MAILBOX: 'true',
      DEMO_ACCOUNTS: '1',
    });
    expect(env).toMatchObject({ DEV_MAILBOX: true, DEMO_ACCOUNTS: true });
    expect(parseEnv({ DEV_MAILBOX: 'false', DEMO_ACCOUNTS: 'no' })).toMatchObject({
      DEV_MAILBOX: false,
      DEMO_ACCOUNTS: false,
    });
  });

  it.each(['DEV_MAILBOX', 'DEMO_ACCOUNTS'])('refuses %s=true when PUBLIC_URL is https', (name) => {
    const start = () => parseEnv({ PUBLIC_URL: 'https://portal.example', [name]: 'true' });
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(new RegExp(`\\n  ${name}="true": .*refused when PUBLIC_URL is https`));
  });

  it('refuses http trusted origins when PUBLIC_URL is https, naming TRUSTED_ORIGINS', () => {
    const start = () =>
      parseEnv({
        PUBLIC_URL: 'https://portal.example',
        TRUSTED_ORIGINS: 'https://embed.example,http://localhost:3001',
      });
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(/\n {2}TRUSTED_ORIGINS=.*must be https origins.*http:\/\/localhost:3001/);
    expect(
      parseEnv({ PUBLIC_URL: 'https://portal.example', TRUSTED_ORIGINS: 'https://embed.example' })
        .TRUSTED_ORIGINS,
    ).toEqual(['https://embed.example']);
  });

  it('refuses DEV_MAILBOX=true with SMTP_URL without echoing the SMTP password', () => {
    const start = () => parseEnv({ DEV_MAILBOX: 'true', SMTP_URL: 'smtps://user:s3cret@mail.example:465' });
    expect(start).toThrow(/DEV_MAILBOX="true": cannot be combined with SMTP_URL/);
    expect(start).not.toThrow(/s3cret/);
    // Unset, the development default simply sends through SMTP.
    const config = loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525' });
    expect(config.devMailbox).toBe(false);
  });

  it('refuses DEV_MAILBOX=true or DEMO_ACCOUNTS=true in Okta mode', () => {
    const okta = write(
      'okta-dev.json',
      JSON.stringify({ Domain: 'https://example.okta.com', ClientId: '0oa1' }),
    );
    const credentials = { OKTA_API_TOKEN: 'test-token' };
    expect(loadConfig({ SETTINGS_FILE: okta, ...credentials })).toMatchObject({
      devMailbox: false,
      demoAccounts: false,
    });
    for (const name of ['DEV_MAILBOX', 'DEMO_ACCOUNTS']) {
      expect(() => loadConfig({ SETTINGS_FILE: okta, ...credentials, [name]: 'true' })).toThrow(
        new RegExp(`^${name}=true needs the embedded provider`),
      );
    }
  });

  it.each([
    ['DEV_MAILBOX', 'maybe'],
    ['DEMO_ACCOUNTS', '2'],
    ['TRUST_PROXY', 'true'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', 'proxy.example'],
    ['TRUST_PROXY', '11'],
    ['TRUST_PROXY', ' , '],
    ['AUTHORIZE_RATE_LIMIT', '0'],
    ['TOKEN_RATE_LIMIT', 'many'],
    ['REQUEST_TIMEOUT_MS', '10'],
    ['SHUTDOWN_TIMEOUT_MS', '1.5'],
  ])('stops on %s=%j with a message naming the setting', (name, value) => {
    expect(() => parseEnv({ [name]: value })).toThrow(
      new RegExp(`^Invalid environment setting:\\n  ${name}=`),
    );
  });
});

describe('TRUST_PROXY', () => {
  it('is off unless set: no X-Forwarded-* header counts', () => {
    expect(parseEnv({}).TRUST_PROXY).toBe(false);
    expect(parseEnv({ PUBLIC_URL: 'https://portal.example' }).TRUST_PROXY).toBe(false);
    expect(parseEnv({ TRUST_PROXY: '0' }).TRUST_PROXY).toBe(false);
  });

  it('takes a hop count or addresses and CIDR ranges', () => {
    expect(parseEnv({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(
      parseEnv({ TRUST_PROXY: ' 10.0.0.1, 10.0.0.0/8 ,fd00::/8,::1,loopback,10.0.0.1' }).TRUST_PROXY,
    ).toEqual(['10.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1', 'loopback']);
  });
});

describe('logging', () => {
  it('redacts tokens and codes from logged URLs', () => {
    expect(
      redactUrl(
        '/oauth2/default/v1/logout?id_token_hint=eyJ.x.y&post_logout_redirect_uri=http%3A%2F%2Flocalhost',
      ),
    ).toBe(
      '/oauth2/default/v1/logout?id_token_hint=%5Bredacted%5D&post_logout_redirect_uri=http%3A%2F%2Flocalhost',
    );
    expect(redactUrl('/login/callback?code=abc&state=xyz')).not.toMatch(/abc|xyz/);
    expect(redactUrl('/profile')).toBe('/profile');
  });
});

describe('DATABASE_URL', () => {
  const KEY = 'a'.repeat(64);
  const URL_WITH_PASSWORD = 'postgres://portal:s3cret-pw@db.internal:5432/portal';

  it('is unset by default: SQLite in DATA_DIR', () => {
    expect(parseEnv({ DATA_DIR: '/var/lib/portal' }).database).toEqual({
      kind: 'sqlite',
      dataDir: '/var/lib/portal',
    });
  });

  it('selects PostgreSQL, with a bounded pool and fail-fast timeouts by default', () => {
    expect(
      parseEnv({ DATABASE_URL: URL_WITH_PASSWORD, TOTP_ENCRYPTION_KEY: KEY, KEY_RING_ENCRYPTION_KEY: KEY })
        .database,
    ).toEqual({
      kind: 'postgres',
      url: URL_WITH_PASSWORD,
      poolMax: 10,
      connectTimeoutMs: 2000,
      statementTimeoutMs: 5000,
    });
    const env = parseEnv({
      DATABASE_URL: 'postgresql:///portal?host=/var/run/postgresql',
      TOTP_ENCRYPTION_KEY: KEY,
      KEY_RING_ENCRYPTION_KEY: KEY,
      DATABASE_POOL_MAX: '25',
      DATABASE_CONNECT_TIMEOUT_MS: '500',
      DATABASE_STATEMENT_TIMEOUT_MS: '15000',
    });
    expect(env.database).toMatchObject({
      kind: 'postgres',
      poolMax: 25,
      connectTimeoutMs: 500,
      statementTimeoutMs: 15000,
    });
  });

  it.each([
    'mysql://portal:s3cret-pw@db.internal/portal',
    'postgres://portal:s3cret-pw@/portal',
    'portal:s3cret-pw@db.internal/portal',
    'http://portal:s3cret-pw@db.internal/portal',
  ])('refuses %s, naming DATABASE_URL without echoing it', (value) => {
    const start = () =>
      parseEnv({ DATABASE_URL: value, TOTP_ENCRYPTION_KEY: KEY, KEY_RING_ENCRYPTION_KEY: KEY });
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(/\n {2}DATABASE_URL=\(hidden\): must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(start).not.toThrow(/s3cret-pw/);
  });

  it('requires TOTP_ENCRYPTION_KEY: instances sharing a database have no per-machine key file', () => {
    const start = () => loadConfig({ DATABASE_URL: URL_WITH_PASSWORD });
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(/\n {2}TOTP_ENCRYPTION_KEY=\(hidden\): is required with DATABASE_URL/);
    expect(start).not.toThrow(/s3cret-pw/);
  });

  it.each([
    ['DATABASE_POOL_MAX', '0'],
    ['DATABASE_POOL_MAX', '101'],
    ['DATABASE_POOL_MAX', 'many'],
    ['DATABASE_CONNECT_TIMEOUT_MS', 'soon'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '10'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '2.5'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '-1'],
    ['SIGN_IN_POSTS_PER_MINUTE', '9'],
    ['SIGN_IN_POSTS_PER_MINUTE', 'lots'],
    ['SIGN_IN_POSTS_PER_MINUTE', '60.5'],
    ['CANARY_MIN_LOADS', '0'],
    ['CANARY_MIN_LOADS', '2.5'],
    ['CANARY_MIN_LOADS', 'twenty'],
    ['CANARY_MAX_FAILURE_RATE', '0'],
    ['CANARY_MAX_FAILURE_RATE', '5'],
    ['CANARY_MAX_FAILURE_RATE', '5%'],
  ])('stops on %s=%j with a message naming the setting', (name, value) => {
    expect(() =>
      parseEnv({
        DATABASE_URL: URL_WITH_PASSWORD,
        TOTP_ENCRYPTION_KEY: KEY,
        KEY_RING_ENCRYPTION_KEY: KEY,
        [name]: value,
      }),
    ).toThrow(new RegExp(`^Invalid environment setting:\\n  ${name}=`));
  });
});

describe('the automatic rollback’s settings (issue 23)', () => {
  it('default to 20 loads and 5 %, and take other values', () => {
    const base = {};
    expect(parseEnv(base)).toMatchObject({ CANARY_MIN_LOADS: 20, CANARY_MAX_FAILURE_RATE: 0.05 });
    expect(parseEnv({ ...base, CANARY_MIN_LOADS: '100', CANARY_MAX_FAILURE_RATE: '0.2' })).toMatchObject({
      CANARY_MIN_LOADS: 100,
      CANARY_MAX_FAILURE_RATE: 0.2,
    });
  });
});

describe('OKTA_PASSKEY_RP_ID', () => {
  const oktaAt = (publicUrl: string) => {
    const settings = write(
      'okta-passkeys.json',
      JSON.stringify({ Domain: 'https://example.okta.com', ClientId: '0oa1' }),
    );
    const remotes = write('okta-passkeys-remotes.json', JSON.stringify({ remotes: {} }));
    return {
      SETTINGS_FILE: settings,
      REMOTES_FILE: remotes,
      PUBLIC_URL: publicUrl,
      OKTA_API_TOKEN: 'test-token',
    };
  };

  it('is optional: unset means hosted enrolment (no RP ID)', () => {
    expect(loadConfig(oktaAt('https://portal.example.com')).oktaPasskeyRpId).toBeUndefined();
  });

  it("takes PUBLIC_URL's host or a registrable parent of it", () => {
    const env = oktaAt('https://account.example.com');
    expect(loadConfig({ ...env, OKTA_PASSKEY_RP_ID: 'account.example.com' }).oktaPasskeyRpId).toBe(
      'account.example.com',
    );
    expect(loadConfig({ ...env, OKTA_PASSKEY_RP_ID: 'Example.com' }).oktaPasskeyRpId).toBe('example.com');
  });

  it.each([
    [
      'another domain',
      'https://account.example.com',
      'example.org',
      /PUBLIC_URL's host \(account\.example\.com\) or a parent domain/,
    ],
    ['a child of the host', 'https://example.com', 'account.example.com', /or a parent domain/],
    ['a public suffix', 'https://account.example.co.uk', 'co.uk', /public suffix co\.uk/],
    ['a top-level domain', 'https://account.example.com', 'com', /not the top-level domain com/],
    ['a URL', 'https://account.example.com', 'https://example.com', /domain name only/],
  ])(
    'stops the start-up on %s, naming OKTA_PASSKEY_RP_ID and PUBLIC_URL',
    (_name, publicUrl, value, reason) => {
      const start = () => loadConfig({ ...oktaAt(publicUrl), OKTA_PASSKEY_RP_ID: value });
      expect(start).toThrow(ConfigError);
      expect(start).toThrow(new RegExp(`^OKTA_PASSKEY_RP_ID \\("${value.replace(/[.:/]/g, '\\$&')}"\\) `));
      expect(start).toThrow(reason);
      expect(start).toThrow(`(PUBLIC_URL is ${publicUrl})`);
    },
  );

  it('is refused in embedded mode, where passkeys use PASSKEY_RP_ID', () => {
    expect(() => loadConfig({ OKTA_PASSKEY_RP_ID: 'localhost' })).toThrow(
      /^OKTA_PASSKEY_RP_ID is for Okta mode \(IDENTITY_BACKEND=okta\)/,
    );
  });
});
