import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { z } from 'zod';

/** The checkout's root: this file sits at server/{src,dist}/config/, three levels below it. */
export const REPO_ROOT = path.resolve(fileURLToPath(new URL('../../../', import.meta.url)));

const DEFAULT_TRUSTED_ORIGINS =
  'http://localhost:3001,http://localhost:3002,http://localhost:3003,http://localhost:3100';

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
  TRUSTED_ORIGINS: z
    .string()
    .default(DEFAULT_TRUSTED_ORIGINS)
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
    }),
  API_AUDIENCE: z.string().trim().min(1, { error: 'must not be empty' }).default('api://default'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Requests per minute one client address may make to /api (a guard against floods, not against guessing). */
  API_RATE_LIMIT: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be at least 1' })
    .default(600),
  /**
   * 32-byte key (64 hex characters, or base64/base64url) that encrypts the authenticator-app secrets at rest.
   * Unset: one is generated once and kept in DATA_DIR (see src/factors/encryption-key.ts).
   */
  TOTP_ENCRYPTION_KEY: z
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
    .optional(),
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
});

export type Env = z.infer<typeof envSchema>;

/** Settings whose value must never appear in a log or error message. */
const SECRET_SETTINGS = new Set(['TOTP_ENCRYPTION_KEY', 'SMTP_URL']);

/** Parses the environment; an empty value counts as unset so `PORT=` keeps the default. */
export function parseEnv(source: NodeJS.ProcessEnv): Env {
  const known = Object.keys(envSchema.shape);
  const input = Object.fromEntries(
    known
      .map((key) => [key, source[key] === '' ? undefined : source[key]])
      .filter(([, v]) => v !== undefined),
  );
  const result = envSchema.safeParse(input);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? 'environment');
      // Secrets are named, never echoed.
      const shown = SECRET_SETTINGS.has(key) ? '(hidden)' : JSON.stringify(source[key] ?? '');
      return `  ${key}=${shown}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid environment setting:\n${lines.join('\n')}`);
  }
  return result.data;
}
