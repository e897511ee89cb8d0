/**
 * The Okta org stand-in for tests (Management API + the org authorization server's token endpoint), validated
 * against Okta's published specification. See README.md in this folder.
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
  type SentEmailCode,
  type ServiceAppInput,
  type SessionRevocation,
  type Violation,
} from './org.js';
export { createSpecValidator, loadSubset, type OktaSpecValidator, type SchemaViolation } from './openapi.js';
export { DEFAULT_PASSWORD_POLICY, requirementsText, type OktaPasswordPolicy } from './password-policy.js';
