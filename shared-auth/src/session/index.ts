// The signed-in session, once for the shell, a remote's mount() and the standalone harness.
export { mountClaimsOf, userFromClaims, type IdTokenClaims } from './claims.js';
export { getIsFederated, useIsFederated } from './federated.js';
export {
  accessTokenGetterOf,
  createSignInAgain,
  createSignOut,
  renewUserClaims,
  SIGN_OUT_FAILED,
  SignOutError,
  type SignInAgainClient,
  type SignOutClient,
} from './oidc-client.js';
export { CALLBACK_PATH, oidcOptions, PORTAL_SCOPES, type OidcOptions } from './oidc.js';
export {
  fetchSettings,
  flagBaseUrlOf,
  InvalidSettingsError,
  readSettings,
  type FetchSettingsOptions,
} from './settings.js';
export {
  createSharedRenewal,
  installSilentRenewal,
  isInvalidGrant,
  SILENT_RENEW_TIMEOUT_MS,
  silentRenewOf,
  SilentRenewTimeoutError,
  SilentRenewUserChangedError,
  type SharedRenewalOptions,
  type SilentRenewClient,
} from './renewal.js';
export { useSignedInSession, type SessionSource } from './useSignedInSession.js';
