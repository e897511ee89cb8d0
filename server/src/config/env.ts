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
});

export type Env = z.infer<typeof envSchema>;

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
      return `  ${key}=${JSON.stringify(source[key] ?? '')}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid environment setting:\n${lines.join('\n')}`);
  }
  return result.data;
}
