import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_KEY_ROTATION_DAYS, MIN_KEY_ROTATION_DAYS } from './key-rotation.js';
import { passkeyRelyingPartyOf, type PasskeyRelyingParty } from './passkey-rp.js';

/** The checkout's root: this file sits at server/{src,dist}/config/, three levels below it. */
export const REPO_ROOT = path.resolve(fileURLToPath(new URL('../../../', import.meta.url)));

/** The remotes' and the example's origins of `pnpm start` / `pnpm dev`: trusted by default on localhost only. */
export const DEVELOPMENT_TRUSTED_ORIGINS = [
  'http://localhost:3001',
  'http://localhost:3002',
  'http://localhost:3003',
  'http://localhost:3004',
  'http://localhost:3100',
] as const;

/**
 * The local development default: PUBLIC_URL on http://localhost (any port). Only there do the built-in mailbox,
 * the demo accounts and the development trusted origins exist without being asked for.
 */
export function isDevelopmentDefault(publicUrl: string): boolean {
  const url = new URL(publicUrl);
  return url.protocol === 'http:' && url.hostname === 'localhost';
}

/** A start-up refusal that names the setting at fault; server.ts prints it and exits. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** An http(s) origin, written without a path (a trailing slash is tolerated and dropped). */
const origin = z.string().transform((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a URL` });
    return z.NEVER;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: `"${value}" must start with http:// or https://` });
    return z.NEVER;
  }
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    ctx.addIssue({
      code: 'custom',
      message: `"${value}" must be an origin only, like http://localhost:3000`,
    });
    return z.NEVER;
  }
  return url.origin;
});

/** A 32-byte key from 64 hex characters or from base64/base64url text; undefined when it is anything else. */
export function parseEncryptionKey(value: string): Buffer | undefined {
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) {
    const key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === 32) return key;
  }
  return undefined;
}

/** A 32-byte key setting (see parseEncryptionKey), optional. */
const encryptionKey = z
  .string()
  .transform((value, ctx) => {
    const key = parseEncryptionKey(value);
    if (!key) {
      ctx.addIssue({
        code: 'custom',
        message:
          'must be 32 random bytes written as 64 hex characters or as base64 (e.g. `openssl rand -base64 32`)',
      });
      return z.NEVER;
    }
    return key;
  })
  .optional();

/** A yes/no setting: true/false (or 1/0, yes/no, on/off), anything else is refused. */
const flag = z.string().transform((value, ctx) => {
  const text = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  ctx.addIssue({ code: 'custom', message: 'must be true or false' });
  return z.NEVER;
});

/** The sign-in pages' posts per client address and minute unless SIGN_IN_POSTS_PER_MINUTE says otherwise. */
export const DEFAULT_SIGN_IN_POSTS_PER_MINUTE = 60;

/** Names proxy-addr (Fastify's trustProxy) knows for address ranges. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An IP address, or a CIDR range `address/prefix`. */
function isAddressOrRange(value: string): boolean {
  if (NAMED_RANGES.has(value)) return true;
  const [address = '', prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Whose X-Forwarded-* headers count: false (nobody's, the socket peer is the client), a number of proxy hops in
 * front of the server, or the proxies' addresses / CIDR ranges.
 */
export type TrustProxy = false | number | string[];

const trustProxy = z.string().transform((value, ctx): TrustProxy => {
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > 10) {
      ctx.addIssue({ code: 'custom', message: 'a hop count must be between 0 and 10' });
      return z.NEVER;
    }
    return hops === 0 ? false : hops;
  }
  const addresses = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const bad = addresses.find((address) => !isAddressOrRange(address));
  if (addresses.length === 0 || bad !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message:
        "must be a hop count (e.g. 1) or the proxies' addresses or CIDR ranges, comma-separated " +
        "(e.g. 10.0.0.0/8,::1); trusting every client's X-Forwarded-For is not an option",
    });
    return z.NEVER;
  }
  return [...new Set(addresses)];
});

/** Milliseconds, a whole number within [min, max]. */
function milliseconds(min: number, max: number, fallback: number) {
  return z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int({ error: 'must be a whole number of milliseconds' })
    .min(min, { error: `must be between ${min} and ${max}` })
    .max(max, { error: `must be between ${min} and ${max}` })
    .default(fallback);
}

/** Requests per minute per client address. */
function perMinute(fallback: number) {
  return z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be at least 1' })
    .default(fallback);
}

const absolutePath = z
  .string()
  .min(1)
  .transform((value) => path.resolve(value));

export const envSchema = z.object({
  PORT: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(0, { error: 'must be between 0 and 65535' })
    .max(65535, { error: 'must be between 0 and 65535' })
    .default(3000),
  HOST: z.string().min(1).default('localhost'),
  PUBLIC_URL: origin.default('http://localhost:3000'),
  DATA_DIR: absolutePath.default(path.join(REPO_ROOT, 'data')),
  SETTINGS_FILE: absolutePath.default(path.join(REPO_ROOT, 'config', 'settings.json')),
  REMOTES_FILE: absolutePath.default(path.join(REPO_ROOT, 'config', 'remotes.json')),
  SHELL_DIST: absolutePath.default(path.join(REPO_ROOT, 'shell', 'dist')),
  /** Unset: the development origins in the development default, none elsewhere (see parseEnv). */
  TRUSTED_ORIGINS: z
    .string()
    .transform((value, ctx) => {
      const origins: string[] = [];
      for (const item of value.split(',').map((part) => part.trim())) {
        if (item === '') continue;
        const parsed = origin.safeParse(item);
        if (!parsed.success) {
          ctx.addIssue({
            code: 'custom',
            message: parsed.error.issues[0]?.message ?? `bad origin "${item}"`,
          });
          return z.NEVER;
        }
        origins.push(parsed.data);
      }
      return [...new Set(origins)];
    })
    .optional(),
  API_AUDIENCE: z.string().trim().min(1, { error: 'must not be empty' }).default('api://default'),
  /**
   * Other applications (client ids) whose access tokens the API accepts besides the portal's own ClientId, e.g. an
   * integrator's page with its own client. Comma-separated; empty by default: only the portal's tokens.
   */
  API_CLIENT_IDS: z
    .string()
    .transform((value) => [
      ...new Set(
        value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      ),
    ])
    .default([]),
  /** A scope every access token must carry (Okta's `scp`, the embedded provider's `scope`). */
  API_REQUIRED_SCOPE: z
    .string()
    .trim()
    .regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, { error: 'must be one scope name (no spaces)' })
    .default('openid'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Requests per minute one client address may make to /api (a guard against floods, not against guessing). */
  API_RATE_LIMIT: perMinute(600),
  /** New sign-in requests (GET/POST {issuer}/v1/authorize) per minute per address: each stores an interaction. */
  AUTHORIZE_RATE_LIMIT: perMinute(60),
  /** Token requests ({issuer}/v1/token: code exchanges and refreshes) per minute per address. */
  TOKEN_RATE_LIMIT: perMinute(120),
  /** Whose X-Forwarded-For/-Proto/-Host count (request.ip, per-address limits, log lines). Unset: nobody's. */
  TRUST_PROXY: trustProxy.optional(),
  /** The built-in mailbox (/dev/mailbox). Unset: on in the development default only. Never with https. */
  DEV_MAILBOX: flag.optional(),
  /** The demo accounts with the README's passwords. Unset: on in the development default only. Never with https. */
  DEMO_ACCOUNTS: flag.optional(),
  /**
   * The passkeys' RP ID: PUBLIC_URL's host by default, or a registrable parent of it (config/passkey-rp.ts), so a
   * provider and a portal on sibling subdomains share passkeys.
   */
  PASSKEY_RP_ID: z.string().optional(),
  /** How long a client may take to send a whole request (headers and body); then 408 and the connection closes. */
  REQUEST_TIMEOUT_MS: milliseconds(500, 300_000, 30_000),
  /** After SIGTERM/SIGINT: how long in-flight requests may finish before connections are cut and the process exits. */
  SHUTDOWN_TIMEOUT_MS: milliseconds(100, 300_000, 10_000),
  /**
   * Days each provider signing key (and cookie key) signs before the next one takes over; 0 = never rotate. The
   * next key is published 7 days ahead, so the period is at least 14 (config/key-rotation.ts).
   */
  KEY_ROTATION_DAYS: z.coerce
    .number({ error: 'must be a number of days' })
    .int({ error: 'must be a whole number of days' })
    .refine((days) => days === 0 || (days >= MIN_KEY_ROTATION_DAYS && days <= 3650), {
      error: `must be 0 (never rotate) or between ${MIN_KEY_ROTATION_DAYS} and 3650 days: each key is published 7 days before it signs`,
    })
    .default(DEFAULT_KEY_ROTATION_DAYS),
  /**
   * 32-byte key (64 hex characters, or base64/base64url) that encrypts the authenticator-app secrets at rest.
   * Unset: one is generated once and kept in DATA_DIR (see src/crypto/totp-encryption-key.ts).
   */
  TOTP_ENCRYPTION_KEY: encryptionKey,
  /**
   * 32-byte key (as TOTP_ENCRYPTION_KEY) that seals the key ring's private keys and the provider's stored records
   * (sessions, grants, tokens) at rest. Unset: one is generated once and kept in DATA_DIR (src/keys/at-rest.ts).
   */
  KEY_RING_ENCRYPTION_KEY: encryptionKey,
  /**
   * PostgreSQL for everything stateful (postgres://user:password@host:port/database): any number of instances share
   * it. Unset: SQLite in DATA_DIR, one instance.
   */
  DATABASE_URL: z
    .string()
    .refine(
      (value) => {
        try {
          const url = new URL(value);
          // A host, or a Unix socket folder (postgresql:///portal?host=/var/run/postgresql).
          const host = url.hostname !== '' || url.searchParams.has('host');
          return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && host;
        } catch {
          return false;
        }
      },
      { error: 'must be a postgres:// or postgresql:// URL, e.g. postgres://portal:secret@db:5432/portal' },
    )
    .optional(),
  /**
   * The sign-in pages' posts (and their passkey option requests) one client address may make a minute, on every
   * instance together; past it, a 429 page. Raise it where many holders share one address (an office behind NAT).
   */
  SIGN_IN_POSTS_PER_MINUTE: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(10, { error: 'must be between 10 and 100000' })
    .max(100_000, { error: 'must be between 10 and 100000' })
    .default(DEFAULT_SIGN_IN_POSTS_PER_MINUTE),
  /**
   * Releases (issue 23): the distinct signed-in holders of a canary's bucket who must have reported it before their
   * share of failures can roll it back automatically (each holder counts once; anonymous reports never count).
   */
  CANARY_MIN_LOADS: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be between 1 and 1000000' })
    .max(1_000_000, { error: 'must be between 1 and 1000000' })
    .default(20),
  /** Releases: the share (0 to 1) of a canary's holders who met a failure at which it is rolled back. */
  CANARY_MAX_FAILURE_RATE: z.coerce
    .number({ error: 'must be a number' })
    .gt(0, { error: 'must be a fraction above 0 and at most 1, e.g. 0.05 for 5 %' })
    .max(1, { error: 'must be a fraction above 0 and at most 1, e.g. 0.05 for 5 %' })
    .default(0.05),
  /** Most connections one instance opens to PostgreSQL; requests wait for a free one (DATABASE_CONNECT_TIMEOUT_MS). */
  DATABASE_POOL_MAX: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be between 1 and 100' })
    .max(100, { error: 'must be between 1 and 100' })
    .default(10),
  /** How long a request waits for a PostgreSQL connection before it is answered 503 with Retry-After. */
  DATABASE_CONNECT_TIMEOUT_MS: milliseconds(100, 60_000, 2000),
  /** How long one PostgreSQL statement may run before it is cancelled (and the request answered 503). */
  DATABASE_STATEMENT_TIMEOUT_MS: milliseconds(100, 300_000, 5000),
  /**
   * How long an instance keeps what the per-call check read of a token (session alive, caller's account) in
   * memory; changes drop it at once on every instance (auth/session-cache.ts). 0: read on every call.
   */
  SESSION_CACHE_MS: milliseconds(0, 60_000, 1000),
  /** Sends email through this SMTP server (smtp://host:port or smtps://user:pass@host:port). */
  SMTP_URL: z
    .string()
    .refine(
      (value) => {
        try {
          const url = new URL(value);
          return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '';
        } catch {
          return false;
        }
      },
      { error: 'must be an smtp:// or smtps:// URL, e.g. smtp://127.0.0.1:2525' },
    )
    .optional(),
  /** The From address of the portal's email. */
  MAIL_FROM: z.string().trim().min(3).default('My Profile <no-reply@localhost>'),
  /**
   * Which backend holds the accounts (src/identity): `embedded` (the portal's directory, with the embedded provider)
   * or `okta` (an Okta org's Management API). Unset: embedded when the settings' Domain is PUBLIC_URL, else okta
   * when an OKTA_* credential is set (config/identity-mode.ts checks the combination).
   */
  IDENTITY_BACKEND: z.enum(['embedded', 'okta'], { error: 'must be embedded or okta' }).optional(),
  // ---- The Okta identity backend: optional here, required by oktaSettingsOf (src/config/okta.ts) ----
  /** The client id of the org's API Services app the portal calls the Management API as. */
  OKTA_CLIENT_ID: z.string().trim().min(1).optional(),
  /** That app's private key: PEM (PKCS#8 or PKCS#1 RSA, or EC) or a JWK as JSON. Or OKTA_PRIVATE_KEY_FILE. */
  OKTA_PRIVATE_KEY: z.string().trim().min(1).optional(),
  /** A file holding the private key (PEM or JWK JSON), instead of OKTA_PRIVATE_KEY. */
  OKTA_PRIVATE_KEY_FILE: absolutePath.optional(),
  /** The key's id (kid) in the app's public keys; needed when the app has several keys and the JWK has no kid. */
  OKTA_KEY_ID: z.string().trim().min(1).optional(),
  /** The scopes the app asks for: only what the portal needs (it must be granted them in Okta). */
  OKTA_SCOPES: z
    .string()
    .transform((value) => [...new Set(value.split(/[\s,]+/).filter(Boolean))])
    .refine((scopes) => scopes.every((scope) => /^okta\.[A-Za-z]+(\.[A-Za-z]+)+$/.test(scope)), {
      error: "must be Okta scope names separated by spaces, e.g. 'okta.users.read okta.users.manage'",
    })
    .refine((scopes) => scopes.includes('okta.users.manage'), {
      error: 'must include okta.users.manage: profile, password and factor changes need it',
    })
    .default(['okta.users.read', 'okta.users.manage']),
  /** An Okta API token (SSWS), the documented fallback to the service app; it acts with its admin's whole role. */
  OKTA_API_TOKEN: z.string().trim().min(1).optional(),
  /**
   * Okta mode: the RP ID of the org's Passkey (FIDO2 WebAuthn) authenticator, when it covers PUBLIC_URL's host (its
   * host or a parent domain): passkeys are then added and used on the portal's own pages. Unset: "Add a passkey"
   * sends the holder to Okta's hosted enrolment, and passkeys are not offered for step-up (config/passkey-rp.ts).
   */
  OKTA_PASSKEY_RP_ID: z.string().trim().min(1).optional(),
  /** A boolean custom profile attribute that marks federated users, besides credentials.provider.type. */
  OKTA_FEDERATED_ATTRIBUTE: z
    .string()
    .trim()
    .regex(/^[A-Za-z][A-Za-z0-9_]*$/, { error: 'must be a profile attribute name (letters, digits, _)' })
    .optional(),
});

type ParsedEnv = z.infer<typeof envSchema>;

/** The environment with the defaults that depend on PUBLIC_URL filled in. */
export type Env = Omit<ParsedEnv, 'TRUSTED_ORIGINS' | 'TRUST_PROXY' | 'DEV_MAILBOX' | 'DEMO_ACCOUNTS'> & {
  TRUSTED_ORIGINS: string[];
  TRUST_PROXY: TrustProxy;
  DEV_MAILBOX: boolean;
  DEMO_ACCOUNTS: boolean;
  /** PUBLIC_URL is http://localhost (any port): see isDevelopmentDefault. */
  developmentDefault: boolean;
  /** The passkeys' relying party: PUBLIC_URL's origin and the RP ID (PASSKEY_RP_ID or the host). */
  passkeyRp: PasskeyRelyingParty;
  /** Where everything stateful lives: SQLite in DATA_DIR (DATABASE_URL unset), or PostgreSQL. */
  database: DatabaseConfig;
};

/** IDENTITY_BACKEND's values: which backend holds the accounts (src/identity). */
export type IdentityBackendKind = NonNullable<Env['IDENTITY_BACKEND']>;

export type DatabaseConfig =
  | { kind: 'sqlite'; dataDir: string }
  | { kind: 'postgres'; url: string; poolMax: number; connectTimeoutMs: number; statementTimeoutMs: number };

/** Settings whose value must never appear in a log or error message. */
const SECRET_SETTINGS = new Set([
  'TOTP_ENCRYPTION_KEY',
  'KEY_RING_ENCRYPTION_KEY',
  'SMTP_URL',
  'DATABASE_URL',
  'OKTA_PRIVATE_KEY',
  'OKTA_API_TOKEN',
]);

/** Parses the environment; an empty value counts as unset so `PORT=` keeps the default. */
export function parseEnv(source: NodeJS.ProcessEnv): Env {
  const known = Object.keys(envSchema.shape);
  const input = Object.fromEntries(
    known
      .map((key) => [key, source[key] === '' ? undefined : source[key]])
      .filter(([, v]) => v !== undefined),
  );
  const refuse = (issues: { key: string; message: string }[]): never => {
    const lines = issues.map(({ key, message }) => {
      // Secrets are named, never echoed.
      const shown = SECRET_SETTINGS.has(key) ? '(hidden)' : JSON.stringify(source[key] ?? '');
      return `  ${key}=${shown}: ${message}`;
    });
    throw new ConfigError(`Invalid environment setting:\n${lines.join('\n')}`);
  };
  const result = envSchema.safeParse(input);
  if (!result.success) {
    return refuse(
      result.error.issues.map((issue) => ({
        key: String(issue.path[0] ?? 'environment'),
        message: issue.message,
      })),
    );
  }
  const parsed = result.data;
  const developmentDefault = isDevelopmentDefault(parsed.PUBLIC_URL);
  const https = parsed.PUBLIC_URL.startsWith('https:');
  const issues: { key: string; message: string }[] = [];
  // Development surfaces hand out every user's codes and known passwords: never on a real (https) deployment.
  for (const key of ['DEV_MAILBOX', 'DEMO_ACCOUNTS'] as const) {
    if (https && parsed[key] === true) {
      issues.push({ key, message: 'is a development surface and is refused when PUBLIC_URL is https' });
    }
  }
  // Instances that share a database share the key that seals its authenticator secrets: no per-machine key file.
  if (parsed.DATABASE_URL !== undefined && parsed.TOTP_ENCRYPTION_KEY === undefined) {
    issues.push({
      key: 'TOTP_ENCRYPTION_KEY',
      message:
        'is required with DATABASE_URL: every instance must seal and open authenticator secrets with the same key (e.g. `openssl rand -hex 32`)',
    });
  }
  // The same for the key that seals the key ring and the provider's records.
  if (parsed.DATABASE_URL !== undefined && parsed.KEY_RING_ENCRYPTION_KEY === undefined) {
    issues.push({
      key: 'KEY_RING_ENCRYPTION_KEY',
      message:
        "is required with DATABASE_URL: every instance must open the key ring and the provider's records with the same key (e.g. `openssl rand -hex 32`)",
    });
  }
  if (parsed.DEV_MAILBOX === true && parsed.SMTP_URL !== undefined) {
    issues.push({
      key: 'DEV_MAILBOX',
      message: 'cannot be combined with SMTP_URL (email then goes through SMTP); unset one of them',
    });
  }
  const insecure = https ? (parsed.TRUSTED_ORIGINS ?? []).filter((item) => item.startsWith('http:')) : [];
  if (insecure.length > 0) {
    issues.push({
      key: 'TRUSTED_ORIGINS',
      message: `must be https origins when PUBLIC_URL is https (refused: ${insecure.join(', ')})`,
    });
  }
  const passkeyRp = passkeyRelyingPartyOf(parsed.PUBLIC_URL, parsed.PASSKEY_RP_ID);
  if (typeof passkeyRp === 'string') issues.push({ key: 'PASSKEY_RP_ID', message: passkeyRp });
  if (issues.length > 0 || typeof passkeyRp === 'string') return refuse(issues);
  return {
    ...parsed,
    TRUSTED_ORIGINS: parsed.TRUSTED_ORIGINS ?? (developmentDefault ? [...DEVELOPMENT_TRUSTED_ORIGINS] : []),
    TRUST_PROXY: parsed.TRUST_PROXY ?? false,
    DEV_MAILBOX: parsed.DEV_MAILBOX ?? developmentDefault,
    DEMO_ACCOUNTS: parsed.DEMO_ACCOUNTS ?? developmentDefault,
    developmentDefault,
    passkeyRp,
    database:
      parsed.DATABASE_URL === undefined
        ? { kind: 'sqlite', dataDir: parsed.DATA_DIR }
        : {
            kind: 'postgres',
            url: parsed.DATABASE_URL,
            poolMax: parsed.DATABASE_POOL_MAX,
            connectTimeoutMs: parsed.DATABASE_CONNECT_TIMEOUT_MS,
            statementTimeoutMs: parsed.DATABASE_STATEMENT_TIMEOUT_MS,
          },
  };
}
