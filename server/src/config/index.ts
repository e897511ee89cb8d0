import { readFileSync, statSync } from 'node:fs';
import type { z } from 'zod';
import {
  ISSUER_PATH,
  issuerOf,
  remotesConfigSchema,
  settingsSchema,
  type RemotesConfig,
  type Settings,
} from 'shared-auth/contract';
import { oktaSettingsOf, type OktaSettings } from './okta.js';
import { ConfigError, parseEnv, type Env, type IdentityBackendKind } from './env.js';
import { identityModeOf } from './identity-mode.js';
import { isLoopbackHost } from './loopback.js';
import { oktaPasskeyRpIdOf } from './passkey-rp.js';

export { ConfigError, REPO_ROOT } from './env.js';

export interface AppConfig extends Env {
  settings: Settings;
  /** The remotes file as read at start-up (validated then, so a bad file stops the server). */
  remotes: RemotesConfig;
  /**
   * The remotes file now: re-read when it changes, so switching a remote's version or rolling back is an edit of
   * the file, live on the next page load. A broken edit is ignored (and logged) in favour of the last good one.
   */
  currentRemotes: () => RemotesConfig;
  /** The embedded provider runs when the settings' Domain is this server's own origin. */
  embedded: boolean;
  /** Which backend holds the accounts: IDENTITY_BACKEND, by default `embedded` with the embedded provider, else `okta`. */
  identityBackend: IdentityBackendKind;
  /** The Okta backend's credentials (OKTA_*), checked at start-up; undefined with the embedded backend. */
  okta: OktaSettings | undefined;
  /**
   * Okta mode: the org's passkey RP ID when it covers PUBLIC_URL's host (OKTA_PASSKEY_RP_ID): the passkey
   * ceremonies run on the portal's pages; undefined: Okta's hosted enrolment, no passkey step-up.
   */
  oktaPasskeyRpId: string | undefined;
  /** `{Domain}/oauth2/default`: the issuer every access token must carry. */
  issuer: string;
  /** Mount path of the embedded provider. */
  oidcMountPath: string;
  /** PUBLIC_URL plus TRUSTED_ORIGINS: the only origins allowed by CORS and as sign-in redirect targets. */
  allowedOrigins: string[];
  secureCookies: boolean;
  /** The built-in mailbox serves /dev/mailbox and keeps the email: DEV_MAILBOX, embedded mode, no SMTP_URL. */
  devMailbox: boolean;
  /** The demo accounts are seeded (once per data folder): DEMO_ACCOUNTS in embedded mode. */
  demoAccounts: boolean;
}

function readJsonFile<T extends z.ZodType>(setting: string, file: string, schema: T): z.output<T> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(error);
    throw new ConfigError(`${setting} (${file}): ${reason}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${setting} (${file}): not valid JSON: ${(error as Error).message}`);
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issues = result.error.issues.map(
      (issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new ConfigError(`${setting} (${file}) is invalid:\n${issues.join('\n')}`);
  }
  return result.data;
}

function liveJsonFile<T extends z.ZodType>(
  setting: string,
  file: string,
  schema: T,
  initial: z.output<T>,
  onError: (message: string) => void,
): () => z.output<T> {
  let value = initial;
  let seen = modifiedAt(file);
  let checkedAt = 0;
  return () => {
    // Every response's CSP reads this: look at the file at most once a second.
    const at = Date.now();
    if (at - checkedAt < 1000) return value;
    checkedAt = at;
    const now = modifiedAt(file);
    if (now === seen) return value;
    seen = now;
    try {
      value = readJsonFile(setting, file, schema);
    } catch (error) {
      onError(`${(error as Error).message}\n  (still using the last good version)`);
    }
    return value;
  };
}

/**
 * The remotes file for this PUBLIC_URL. Its entries' origins become the CSP's script sources, so an https portal
 * takes only https entries, and none on localhost (each visitor's own machine) unless the portal itself runs on
 * localhost (a local https rig). The default file (http://localhost:3001–3004) is for development only.
 */
function remotesSchemaFor(publicUrl: string) {
  const publicOnLoopback = isLoopbackHost(new URL(publicUrl).hostname);
  if (!publicUrl.startsWith('https:')) return remotesConfigSchema;
  return remotesConfigSchema.superRefine((file, ctx) => {
    const refused = Object.entries(file.remotes).filter(([, { entry }]) => {
      const url = new URL(entry);
      return url.protocol !== 'https:' || (isLoopbackHost(url.hostname) && !publicOnLoopback);
    });
    for (const [name, { entry }] of refused) {
      ctx.addIssue({
        code: 'custom',
        path: ['remotes', name, 'entry'],
        message: `${entry} is refused with an https PUBLIC_URL: remote entries must be https${publicOnLoopback ? '' : ', not on localhost'}`,
      });
    }
    if (refused.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message:
          "set REMOTES_FILE to this deployment's remotes file (the default config/remotes.json is for local development)",
      });
    }
  });
}

function modifiedAt(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/** Reads and validates every setting; throws a ConfigError naming the first bad one. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const env = parseEnv(source);
  const settings = readJsonFile('SETTINGS_FILE', env.SETTINGS_FILE, settingsSchema);
  const remotesSchema = remotesSchemaFor(env.PUBLIC_URL);
  const remotes = readJsonFile('REMOTES_FILE', env.REMOTES_FILE, remotesSchema);
  // First: a Domain that contradicts PUBLIC_URL or IDENTITY_BACKEND is the setting at fault.
  const { embedded, identityBackend } = identityModeOf(env, settings);
  // Asked for explicitly, but Okta mode has neither: say so rather than ignore the setting.
  for (const key of ['DEV_MAILBOX', 'DEMO_ACCOUNTS'] as const) {
    if (!embedded && /^\s*(true|1|yes|on)\s*$/i.test(source[key] ?? '')) {
      throw new ConfigError(
        `${key}=true needs the embedded provider (SETTINGS_FILE's Domain is another origin: Okta mode)`,
      );
    }
  }
  // Fail fast: an Okta setting in embedded mode would be silently ignored (the embedded RP is PASSKEY_RP_ID).
  if (identityBackend === 'embedded' && env.OKTA_PASSKEY_RP_ID !== undefined) {
    throw new ConfigError(
      "OKTA_PASSKEY_RP_ID is for Okta mode (IDENTITY_BACKEND=okta): the embedded backend's passkeys use PASSKEY_RP_ID; unset OKTA_PASSKEY_RP_ID",
    );
  }
  const oktaPasskeyRpId = oktaPasskeyRpIdOf(env.PUBLIC_URL, env.OKTA_PASSKEY_RP_ID);
  if (oktaPasskeyRpId instanceof Error) throw new ConfigError(oktaPasskeyRpId.message);
  return {
    ...env,
    settings,
    oktaPasskeyRpId,
    identityBackend,
    // Names what is missing or wrong (never a key): the start stops before anything is opened.
    okta: identityBackend === 'okta' ? oktaSettingsOf(env) : undefined,
    remotes,
    currentRemotes: liveJsonFile('REMOTES_FILE', env.REMOTES_FILE, remotesSchema, remotes, (message) =>
      process.stderr.write(`${message}\n`),
    ),
    embedded,
    issuer: issuerOf(settings),
    oidcMountPath: ISSUER_PATH,
    allowedOrigins: [...new Set([env.PUBLIC_URL, ...env.TRUSTED_ORIGINS])],
    secureCookies: env.PUBLIC_URL.startsWith('https:'),
    devMailbox: env.DEV_MAILBOX && embedded && env.SMTP_URL === undefined,
    demoAccounts: env.DEMO_ACCOUNTS && embedded,
  };
}
