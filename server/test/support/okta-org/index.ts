/**
 * The Okta org stand-in for tests (Management API + the org authorization server's token endpoint), validated
 * against Okta's published specification, and the default authorization server (sign-in for the portal's SPA).
 * See README.md in this folder.
 * The vitest fixture is in ./vitest.ts (not re-exported: importing vitest outside a vitest run throws).
 */
export {
  startOktaOrg,
  type AddUserInput,
  type ArmRateLimitInput,
  type FactorState,
  type LoggedRequest,
  type OktaOrg,
  type OktaOrgOptions,
  type OktaUserState,
  type OktaUserStatus,
  type RefreshTokenRevocation,
  type SentEmailCode,
  type ServiceAppInput,
  type SessionRevocation,
  type Violation,
} from './org.js';
export {
  DEFAULT_AUDIENCE,
  DEFAULT_AUTHORIZATION_SERVER,
  SIGN_IN_REFUSED,
  type AuthorizationServerClient,
  type AuthorizationServerOptions,
} from './authorization-server.js';
export { createSpecValidator, loadSubset, type OktaSpecValidator, type SchemaViolation } from './openapi.js';
export { DEFAULT_PASSWORD_POLICY, requirementsText, type OktaPasswordPolicy } from './password-policy.js';
