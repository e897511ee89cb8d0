/**
 * Embedded mode or Okta mode, from the settings file's Domain, PUBLIC_URL and IDENTITY_BACKEND; a Domain that
 * contradicts the other two stops the start-up with a message naming both settings and their values.
 */
import type { Settings } from 'shared-auth/contract';
import { ConfigError, type Env, type IdentityBackendKind } from './env.js';
import { isLoopbackHost } from './loopback.js';

export interface IdentityMode {
  /** The embedded provider runs: the settings' Domain is this server's own origin, PUBLIC_URL. */
  embedded: boolean;
  /** Which backend holds the accounts: IDENTITY_BACKEND, by default `embedded` with the embedded provider. */
  identityBackend: IdentityBackendKind;
}

type ModeEnv = Pick<
  Env,
  | 'PUBLIC_URL'
  | 'SETTINGS_FILE'
  | 'IDENTITY_BACKEND'
  | 'OKTA_CLIENT_ID'
  | 'OKTA_PRIVATE_KEY'
  | 'OKTA_PRIVATE_KEY_FILE'
  | 'OKTA_API_TOKEN'
>;

/**
 * The Domain is the identity provider's origin: PUBLIC_URL for the embedded provider, the org for Okta. Without
 * IDENTITY_BACKEND the Domain alone decides, so a second instance left with another instance's settings file
 * would silently be in Okta mode: that is refused unless the Okta backend is configured (an OKTA_* credential).
 */
export function identityModeOf(env: ModeEnv, settings: Pick<Settings, 'Domain'>): IdentityMode {
  const domain = new URL(settings.Domain);
  const publicUrl = env.PUBLIC_URL;
  const shown = settings.Domain;
  const embedded = domain.origin === publicUrl && domain.pathname === '/';
  const asked = env.IDENTITY_BACKEND;
  const fault = `SETTINGS_FILE (${env.SETTINGS_FILE}): Domain (${shown}) is not PUBLIC_URL (${publicUrl})`;
  // Browsers of a portal that is not on localhost cannot reach a provider on their own machine.
  if (!embedded && isLoopbackHost(domain.hostname) && !isLoopbackHost(new URL(publicUrl).hostname)) {
    throw new ConfigError(
      `${fault} and is on the visitor's own machine while PUBLIC_URL is not (IDENTITY_BACKEND=${asked ?? 'unset'}): ` +
        `for the embedded provider set Domain to ${publicUrl}; for Okta mode set it to the Okta org`,
    );
  }
  const oktaCredentials = [
    env.OKTA_CLIENT_ID,
    env.OKTA_PRIVATE_KEY,
    env.OKTA_PRIVATE_KEY_FILE,
    env.OKTA_API_TOKEN,
  ];
  if (!embedded && asked === undefined && oktaCredentials.every((value) => value === undefined)) {
    throw new ConfigError(
      `${fault}, and with IDENTITY_BACKEND unset and no OKTA_* credentials that would be Okta mode with no org to ` +
        `call: for the embedded provider set Domain to ${publicUrl} (every instance's settings file carries its ` +
        `own PUBLIC_URL); for Okta mode set IDENTITY_BACKEND=okta and the OKTA_* credentials`,
    );
  }
  const identityBackend = asked ?? (embedded ? 'embedded' : 'okta');
  // The embedded provider signs in the directory's users; an Okta org signs in Okta's: the two go together.
  if (identityBackend === 'okta' && embedded) {
    throw new ConfigError(
      `IDENTITY_BACKEND=okta cannot run with the embedded provider on: SETTINGS_FILE's Domain (${shown}) is ` +
        `PUBLIC_URL (${publicUrl}). Set Domain to the Okta org, or IDENTITY_BACKEND=embedded`,
    );
  }
  if (identityBackend === 'embedded' && !embedded) {
    throw new ConfigError(
      `IDENTITY_BACKEND=embedded needs the embedded provider, whose Domain is PUBLIC_URL: SETTINGS_FILE's Domain ` +
        `(${shown}) is not PUBLIC_URL (${publicUrl}). Set Domain to ${publicUrl}, or for an Okta org (whose users ` +
        `the portal's directory does not hold) IDENTITY_BACKEND=okta`,
    );
  }
  return { embedded, identityBackend };
}
