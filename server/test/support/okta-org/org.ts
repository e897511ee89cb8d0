/**
 * An Okta org stand-in on loopback: the Management API operations the portal calls, the org authorization server's
 * token endpoint for a service app (client_credentials + private_key_jwt), Okta's rate-limit headers, and test-only
 * controls under /__test/. Every request to /api/v1 and every answer is validated against the vendored subset of
 * Okta's published specification (openapi.ts); a violation answers 500 and is recorded, so the test fails.
 * See README.md in this folder for the behaviour, the error bodies and where each comes from.
 */
import { randomBytes, randomInt, scryptSync, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { decodeAttestationObject, parseAuthenticatorData } from '@simplewebauthn/server/helpers';
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { Secret, TOTP } from 'otpauth';
import {
  createAuthorizationServer,
  type AuthorizationServer,
  type AuthorizationServerOptions,
} from './authorization-server.js';
import {
  createSpecValidator,
  type OktaSpecValidator,
  type OperationSpec,
  type SchemaViolation,
} from './openapi.js';
import {
  DEFAULT_PASSWORD_POLICY,
  meetsComplexity,
  requirementsText,
  type OktaPasswordPolicy,
} from './password-policy.js';
import {
  logEventJson,
  SystemLog,
  type LogActorInput,
  type LogClientInput,
  type LogEventInput,
  type LogEventJson,
  type LogTargetInput,
} from './system-log.js';

// ---------------------------------------------------------------------------------------------------------------
// Public types

export interface OktaOrgOptions {
  /** The org's password policy (defaults: the one the specification's example describes). */
  passwordPolicy?: Partial<OktaPasswordPolicy>;
  /** Custom attributes of the org's user profile schema (name → OpenAPI schema); others are refused as invented. */
  customProfileAttributes?: Record<string, object>;
  /** An SSWS API token the API accepts (the documented fallback); none by default. */
  apiToken?: string;
  /** Okta's per-endpoint rate limit: requests per window per operation (default 600 per 60 s). */
  rateLimit?: { limit?: number; windowSeconds?: number };
  /** Lifetime of the access tokens the token endpoint issues (Okta: fixed at one hour). */
  accessTokenLifetimeSeconds?: number;
  /**
   * The public keys of the org's default authorization server, served at GET /oauth2/default/v1/keys (not logged
   * as Management API traffic): a portal in Okta mode verifies the access tokens a test signs with them. Off (an
   * unsimulated path) by default.
   */
  jwks?: { keys: JWK[] };
  /**
   * The org's default authorization server at `{url}/oauth2/default` (authorization-server.ts): sign-in on the
   * stand-in's form for these SPA clients, Okta-shaped access tokens. With `jwks` too, both key sets are published.
   */
  authorizationServer?: AuthorizationServerOptions;
  /** The port to listen on (loopback); the OS picks one by default. */
  port?: number;
  /**
   * The Passkey (FIDO2 WebAuthn) authenticator's RP ID: what a webauthn enrolment's creation options name
   * (`rp.id`) and what its ceremonies are verified against. Default: the org's host (Okta's default, which names no
   * `rp.id`: the browser then takes the page's host).
   */
  webauthnRpId?: string;
  /** The origins whose webauthn ceremonies the org accepts (default: the org's own URL). */
  webauthnOrigins?: string[];
  /** False: the org's enrolment policy does not offer the Passkey authenticator (a webauthn enrolment is refused). */
  webauthnEnrolment?: boolean;
}

/** The user statuses the stand-in models (Okta's UserStatus); only ACTIVE users may sign in. */
export type OktaUserStatus = 'ACTIVE' | 'SUSPENDED' | 'LOCKED_OUT' | 'DEPROVISIONED';
const USER_STATUSES: readonly string[] = ['ACTIVE', 'SUSPENDED', 'LOCKED_OUT', 'DEPROVISIONED'];

export interface AddUserInput {
  /** Defaults to a generated Okta-like id (00u…). */
  id?: string;
  /** Okta's base profile attributes (login and email are required by Okta) and the configured custom ones. */
  profile: { login: string; email: string } & Record<string, unknown>;
  /** Omit for a user without a password credential. */
  password?: string;
  /** Credentials provider: OKTA (default) or e.g. FEDERATION / SOCIAL for a federated user. */
  provider?: {
    type: 'OKTA' | 'FEDERATION' | 'SOCIAL' | 'ACTIVE_DIRECTORY' | 'LDAP' | 'IMPORT';
    name: string;
  };
  /** The user type id (`type.id`). */
  typeId?: string;
}

export interface FactorState {
  id: string;
  factorType: 'token:software:totp' | 'email' | 'webauthn';
  provider: 'GOOGLE' | 'OKTA' | 'FIDO';
  status: 'PENDING_ACTIVATION' | 'ACTIVE';
  profile: Record<string, string>;
  /** TOTP: the base32 shared secret Okta handed out in `_embedded.activation`. */
  sharedSecret?: string;
  created: string;
  lastUpdated: string;
}

export interface SessionRevocation {
  at: string;
  /** DELETE /sessions?oauthTokens=true, or a change_password with revokeSessions. */
  via: 'revokeUserSessions' | 'changePassword';
  oauthTokens: boolean;
  forgetDevices: boolean;
}

/** A DELETE /users/{userId}/clients/{clientId}/tokens. */
export interface RefreshTokenRevocation {
  at: string;
  clientId: string;
  /** How many of the user's refresh tokens for the client were usable and ended (0 without `authorizationServer`). */
  refreshTokens: number;
}

export interface OktaUserState {
  id: string;
  status: string;
  typeId: string;
  profile: Record<string, unknown>;
  provider: { type: string; name: string };
  hasPassword: boolean;
  passwordChanged: string | null;
  lastUpdated: string;
  factors: FactorState[];
  sessionRevocations: SessionRevocation[];
  refreshTokenRevocations: RefreshTokenRevocation[];
}

export interface SentEmailCode {
  userId: string;
  factorId: string;
  email: string;
  code: string;
  /** activation: sent at enrolment / resend; verification: sent by a verify without passCode. */
  purpose: 'activation' | 'verification';
  sentAt: string;
  expiresAt: string;
  /** False once used, superseded by a newer code, or expired. */
  usable: boolean;
}

export interface LoggedRequest {
  seq: number;
  at: string;
  method: string;
  path: string;
  query: string;
  /** The spec operation (or "token" for /oauth2/v1/token); undefined when nothing matched. */
  operationId?: string;
  template?: string;
  /** The Authorization scheme only (Bearer, SSWS, DPoP…), never the credential. */
  authorization?: string;
  headers: Record<string, string>;
  body: unknown;
  status: number;
  responseBody: unknown;
}

export interface Violation {
  /** request/response: the spec refused the shape; unsimulated: a call the stand-in does not model; malformed. */
  kind: 'request' | 'response' | 'unsimulated' | 'malformed';
  method: string;
  path: string;
  operationId?: string;
  status?: number;
  details: string[];
}

export interface ArmRateLimitInput {
  /** A spec path template ("/api/v1/users/{id}"), a literal path, or a RegExp tested against the path. */
  path: string | RegExp;
  method?: string;
  /** How many of the next matching requests answer 429. */
  count: number;
  /** X-Rate-Limit-Reset = now (s) + this; default 1. */
  resetInSeconds?: number;
}

export interface ServiceAppInput {
  clientId: string;
  /** The public key the org verifies the client_assertion with (RSA or EC JWK). */
  publicJwk: JWK;
  /** The Okta API scopes granted to the app (its grants collection). */
  scopes: string[];
}

export interface OktaOrg {
  /** The org URL (the SDK's orgUrl), http://127.0.0.1:<port>. */
  readonly url: string;
  /** The org authorization server's token endpoint, the `aud` of a client_assertion. */
  readonly tokenUrl: string;
  close(): Promise<void>;
  addUser(input: AddUserInput): OktaUserState;
  /** A snapshot of a user (by id or login). */
  user(idOrLogin: string): OktaUserState | undefined;
  passwordMatches(userId: string, password: string): boolean;
  emailCodes(userId: string): SentEmailCode[];
  /** The newest usable code Okta "sent" to the user; throws when there is none. */
  lastEmailCode(userId: string): string;
  requests(): LoggedRequest[];
  violations(): Violation[];
  /** Returns the violations and forgets them (for a test that provokes one on purpose). */
  takeViolations(): Violation[];
  armRateLimit(input: ArmRateLimitInput): void;
  registerServiceApp(input: ServiceAppInput): void;
  setApiToken(token: string | undefined): void;
  /** Makes every issued access token invalid (the SDK then gets 401 and fetches a new one). */
  expireAccessTokens(): void;
  /**
   * The requests Okta's hosted enrolment page (GET /idp/bootstrap/enroll-authenticator/{authenticatorId}) received,
   * oldest first: the stand-in records each and redirects to its redirect_uri (no ceremony runs there).
   */
  hostedEnrolments(): { authenticatorId: string; redirectUri: string | null }[];
  /** The id of the org's Passkey (FIDO2 WebAuthn) authenticator (GET /api/v1/authenticators, key `webauthn`). */
  readonly webauthnAuthenticatorId: string;
  /** Sets a user's status, as Okta's lifecycle operations do (not in the vendored subset): only ACTIVE signs in. */
  setUserStatus(idOrLogin: string, status: OktaUserStatus): void;
  /** `{url}/oauth2/default` when the `authorizationServer` option is given. */
  readonly issuer: string | undefined;
  /**
   * Test-only (no Okta call does this): the user's next sign-in at the authorization server's form counts as made
   * `minutes` ago (its tokens' `auth_time`), once. For a stale sign-in where the portal's clock cannot be moved.
   */
  backdateNextSignIn(idOrLogin: string, minutes: number): void;
  /** Every System Log event the org recorded (or was given), oldest first. */
  logEvents(): LogEventJson[];
  /**
   * Test-only (no Okta call does this): appends a System Log event the stand-in's operations do not make (an
   * admin's action, an event of long ago). Throws when Okta's LogEvent schema refuses it.
   */
  addLogEvent(event: LogEventInput | LogEventJson): LogEventJson;
  /** The validator, for tests of the validator itself. */
  readonly spec: OktaSpecValidator;
}

// ---------------------------------------------------------------------------------------------------------------
// Internal state

interface FactorRecord extends FactorState {
  /** webauthn: the pending creation challenge, or the last assertion challenge issued (each used once). */
  webauthnChallenge?: string;
  /** webauthn: the credential's COSE public key and its last signature counter, once activated. */
  credential?: { publicKey: Uint8Array<ArrayBuffer>; counter: number };
  qrToken?: string;
  /** TOTP: the last time step accepted (a code is good once). */
  lastStep?: number;
  activationAttempts: number[];
}

/** Besides OktaUserStatus: what createUser leaves a user in (activate=false: STAGED; no password: PROVISIONED). */
type UserRecordStatus = OktaUserStatus | 'STAGED' | 'PROVISIONED';

interface UserRecord {
  id: string;
  status: UserRecordStatus;
  created: string;
  activated: string | null;
  statusChanged: string;
  lastLogin: string | null;
  lastUpdated: string;
  passwordChanged: string | null;
  typeId: string;
  profile: Record<string, unknown>;
  provider: { type: string; name: string };
  /** Password hashes, newest first; [0] is the current password. */
  passwords: string[];
  factors: Map<string, FactorRecord>;
  sessionRevocations: SessionRevocation[];
  refreshTokenRevocations: RefreshTokenRevocation[];
}

interface EmailCodeRecord extends Omit<SentEmailCode, 'usable' | 'expiresAt' | 'sentAt'> {
  sentAt: number;
  expiresAt: number;
  consumed: boolean;
}

interface AccessToken {
  clientId: string;
  scopes: string[];
  expiresAt: number;
}

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A call the stand-in does not model: answered 500 and recorded, so nothing silently relies on it. */
class Unsimulated extends Error {}

/** A shape the stand-in refuses outside the OpenAPI operations (the token endpoint's form). */
class SpecViolation extends Error {
  constructor(
    readonly kind: Violation['kind'],
    readonly details: string[],
  ) {
    super(details.join('; '));
  }
}

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** The admin an API token (SSWS) acts as: the System Log's actor of its calls. */
const API_TOKEN_ADMIN_ID = '00uApiTokenAdmin0001';
const randomId = (prefix: string, length = 20): string => {
  let out = prefix;
  while (out.length < length) out += ALPHANUM[randomInt(ALPHANUM.length)];
  return out;
};
const iso = (ms = Date.now()): string => new Date(ms).toISOString();
const clone = <T>(value: T): T => structuredClone(value);

function hashPassword(password: string): string {
  const salt = randomBytes(16);
  // Test stand-in: a cheap scrypt cost keeps the suite fast; the hash only has to not be the password.
  const hash = scryptSync(password, salt, 32, { N: 1024 });
  return `${salt.toString('base64')}:${hash.toString('base64')}`;
}
function checkPassword(password: string, stored: string): boolean {
  const [salt, hash] = stored.split(':');
  if (!salt || !hash) return false;
  const actual = scryptSync(password, Buffer.from(salt, 'base64'), 32, { N: 1024 });
  return timingSafeEqual(actual, Buffer.from(hash, 'base64'));
}

/** Okta's error body (components/schemas/Error). errorLink repeats the code, as every example of the spec does. */
function oktaError(status: number, errorCode: string, errorSummary: string, causes: string[] = []): Reply {
  return {
    status,
    body: {
      errorCode,
      errorSummary,
      errorLink: errorCode,
      errorId: randomId('oae', 25),
      errorCauses: causes.map((errorSummary) => ({ errorSummary })),
    },
  };
}

// Texts from Okta's error catalogue (okta-developer-docs data/error-codes.json) and the Factors API reference.
const ERR = {
  notFound: (what: string, kind: string) =>
    oktaError(404, 'E0000007', `Not found: Resource not found: ${what} (${kind})`),
  invalidToken: () => oktaError(401, 'E0000011', 'Invalid token provided'),
  accessDenied: () =>
    oktaError(403, 'E0000006', 'You do not have permission to perform the requested action'),
  rateLimited: () => oktaError(429, 'E0000047', 'API call exceeded rate limit due to too many requests.'),
  malformedBody: () => oktaError(400, 'E0000003', 'The request body was not well-formed.'),
  // Okta's catalogue has no documented answer for a refused WebAuthn attestation or assertion: the stand-in answers
  // as for a wrong passcode of the factor (403 E0000068), which the portal maps to passkey_refused.
  invalidPasscode: () =>
    oktaError(403, 'E0000068', 'Invalid Passcode/Answer', [
      "Your passcode doesn't match our records. Please try again.",
    ]),
  passcodeReplayed: () =>
    oktaError(403, 'E0000082', 'Each code can only be used once. Please wait for a new code and try again.'),
  wrongOldPassword: () =>
    oktaError(403, 'E0000014', 'Update of credentials failed', [
      'oldPassword: The credentials provided were incorrect.',
    ]),
  changePasswordNotAllowed: () =>
    oktaError(403, 'E0000035', 'Change password not allowed on specified user.'),
  passwordPolicy: (policy: OktaPasswordPolicy) =>
    oktaError(400, 'E0000001', 'Api validation failed: password', [`password: ${requirementsText(policy)}`]),
  // Okta's answer to a second user with the same login (createUser; the spec has no example of it).
  loginInUse: () =>
    oktaError(400, 'E0000001', 'Api validation failed: login', [
      'login: An object with this field already exists in the current organization',
    ]),
  // Not verified against an org: the answer Okta is reported to give a factor type its policy does not offer.
  factorNotAllowed: () =>
    oktaError(400, 'E0000001', 'Api validation failed: factorEnrollRequest', [
      'There is no policy that allows the user to enroll this factor.',
    ]),
  factorExists: () =>
    oktaError(400, 'E0000001', 'Api validation failed: factorEnrollRequest', [
      'A factor of this type is already set up.',
    ]),
};

const oauthError = (status: number, error: string, description: string): Reply => ({
  status,
  body: { error, error_description: description },
  headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
});

/** The assertion claims Okta checks, with the catalogue's texts (oauth2-error-codes.json). */
const ASSERTION = {
  missing: () => oauthError(401, 'invalid_client', 'No client credentials found.'),
  unparsable: () => oauthError(401, 'invalid_client', 'The parsing of the client_assertion failed.'),
  issuer: () =>
    oauthError(401, 'invalid_client', 'The issuer claim for client_assertion is not a valid client_id.'),
  subject: () =>
    oauthError(401, 'invalid_client', 'The subject claim for client_assertion is not a valid client_id.'),
  kid: () => oauthError(401, 'invalid_client', 'The client_assertion JWT kid is invalid.'),
  signature: () => oauthError(401, 'invalid_client', 'The client_assertion signature is invalid.'),
  audience: () =>
    oauthError(
      401,
      'invalid_client',
      'The audience claim for client_assertion must be the endpoint invoked for the request.',
    ),
  expRequired: () =>
    oauthError(
      401,
      'invalid_client',
      "The client_assertion must contain the 'exp' claim as seconds since epoch.",
    ),
  expired: () => oauthError(401, 'invalid_client', 'The client_assertion token is expired.'),
  tooFar: () =>
    oauthError(
      401,
      'invalid_client',
      'The client_assertion token has an expiration too far into the future.',
    ),
  iatFuture: () =>
    oauthError(401, 'invalid_client', 'The client_assertion token must be issued before the current time.'),
  replayed: () => oauthError(401, 'invalid_client', 'The client_assertion token has already been used.'),
};

/** The form fields of a client_credentials request with private_key_jwt (Okta's service-app guide). */
const TOKEN_FORM_FIELDS = new Set([
  'grant_type',
  'scope',
  'client_assertion_type',
  'client_assertion',
  'client_id',
]);
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** "The manage scopes can do everything that the read scopes do" (Okta: Implement OAuth for Okta). */
function scopeSatisfies(granted: string[], required: string): boolean {
  if (granted.includes(required)) return true;
  return required.endsWith('.read') && granted.includes(`${required.slice(0, -'.read'.length)}.manage`);
}

const specCache = new Map<string, OktaSpecValidator>();
function specFor(customProfileAttributes: Record<string, object> | undefined): OktaSpecValidator {
  // Compiling the schemas takes about a second; share it between org instances with the same profile schema.
  const key = JSON.stringify(customProfileAttributes ?? {});
  let spec = specCache.get(key);
  if (!spec) {
    spec = createSpecValidator({ customProfileAttributes });
    specCache.set(key, spec);
  }
  return spec;
}

const LOGGED_HEADERS = [
  'content-type',
  'accept',
  'user-agent',
  'if-match',
  'accept-language',
  'x-forwarded-for',
  'x-okta-retry-for',
  'x-okta-retry-count',
];

// ---------------------------------------------------------------------------------------------------------------

export async function startOktaOrg(options: OktaOrgOptions = {}): Promise<OktaOrg> {
  const spec = specFor(options.customProfileAttributes);
  const policy: OktaPasswordPolicy = { ...DEFAULT_PASSWORD_POLICY, ...options.passwordPolicy };
  const rateLimit = {
    limit: options.rateLimit?.limit ?? 600,
    windowSeconds: options.rateLimit?.windowSeconds ?? 60,
  };
  const accessTokenLifetime = options.accessTokenLifetimeSeconds ?? 3600;

  const users = new Map<string, UserRecord>();
  const emailCodes: EmailCodeRecord[] = [];
  const log: LoggedRequest[] = [];
  const violations: Violation[] = [];
  const serviceApps = new Map<string, { publicJwk: JWK; scopes: string[] }>();
  const accessTokens = new Map<string, AccessToken>();
  const usedJtis = new Set<string>();
  const armed: (Required<Omit<ArmRateLimitInput, 'method'>> & { method?: string })[] = [];
  const windows = new Map<string, { start: number; count: number }>();
  let apiToken = options.apiToken;
  let seq = 0;
  let url = '';
  const hostedEnrolments: { authenticatorId: string; redirectUri: string | null }[] = [];
  const systemLog = new SystemLog();
  const webauthnAuthenticatorId = randomId('aut');
  const webauthnRpId = () => options.webauthnRpId ?? new URL(url).hostname;
  const webauthnOrigins = () => options.webauthnOrigins ?? [url];

  // -- state helpers ---------------------------------------------------------------------------------------------

  const findUser = (idOrLogin: string): UserRecord | undefined =>
    users.get(idOrLogin) ??
    [...users.values()].find((u) => String(u.profile.login).toLowerCase() === idOrLogin.toLowerCase());

  const snapshot = (u: UserRecord): OktaUserState => ({
    id: u.id,
    status: u.status,
    typeId: u.typeId,
    profile: clone(u.profile),
    provider: clone(u.provider),
    hasPassword: u.passwords.length > 0,
    passwordChanged: u.passwordChanged,
    lastUpdated: u.lastUpdated,
    factors: [...u.factors.values()].map((f) => ({
      id: f.id,
      factorType: f.factorType,
      provider: f.provider,
      status: f.status,
      profile: clone(f.profile),
      ...(f.sharedSecret ? { sharedSecret: f.sharedSecret } : {}),
      created: f.created,
      lastUpdated: f.lastUpdated,
    })),
    sessionRevocations: clone(u.sessionRevocations),
    refreshTokenRevocations: clone(u.refreshTokenRevocations),
  });

  function sendEmailCode(
    user: UserRecord,
    factor: FactorRecord,
    purpose: SentEmailCode['purpose'],
    lifetime: number,
  ) {
    // A new code supersedes the previous one of the same factor and purpose.
    for (const c of emailCodes) if (c.factorId === factor.id && c.purpose === purpose) c.consumed = true;
    const now = Date.now();
    emailCodes.push({
      userId: user.id,
      factorId: factor.id,
      email: String(factor.profile.email),
      code: String(randomInt(0, 1_000_000)).padStart(6, '0'),
      purpose,
      sentAt: now,
      expiresAt: now + lifetime * 1000,
      consumed: false,
    });
  }

  function useEmailCode(factor: FactorRecord, purpose: SentEmailCode['purpose'], passCode: unknown): boolean {
    const now = Date.now();
    const current = emailCodes.find(
      (c) => c.factorId === factor.id && c.purpose === purpose && !c.consumed && c.expiresAt > now,
    );
    if (!current || typeof passCode !== 'string' || current.code !== passCode) return false;
    current.consumed = true;
    return true;
  }

  /** RFC 6238 (SHA-1, 6 digits, 30 s, ±1 step); a step is accepted once. */
  function checkTotp(factor: FactorRecord, passCode: unknown): 'ok' | 'invalid' | 'replayed' {
    if (typeof passCode !== 'string' || !factor.sharedSecret) return 'invalid';
    const now = Date.now();
    const delta = TOTP.validate({
      token: passCode,
      secret: Secret.fromBase32(factor.sharedSecret),
      window: 1,
      timestamp: now,
    });
    if (delta === null) return 'invalid';
    const step = TOTP.counter({ period: 30, timestamp: now }) + delta;
    if (factor.lastStep !== undefined && step <= factor.lastStep) return 'replayed';
    factor.lastStep = step;
    return 'ok';
  }

  // -- JSON shapes ------------------------------------------------------------------------------------------------

  const link = (href: string, allow?: string[]) => (allow ? { href, hints: { allow } } : { href });
  const userHref = (u: UserRecord) => `${url}/api/v1/users/${u.id}`;
  const factorHref = (u: UserRecord, f: FactorRecord) => `${userHref(u)}/factors/${f.id}`;

  const userJson = (u: UserRecord) => ({
    id: u.id,
    status: u.status,
    created: u.created,
    activated: u.activated,
    statusChanged: u.statusChanged,
    lastLogin: u.lastLogin,
    lastUpdated: u.lastUpdated,
    passwordChanged: u.passwordChanged,
    type: { id: u.typeId },
    profile: clone(u.profile),
    credentials: { ...(u.passwords.length > 0 ? { password: {} } : {}), provider: clone(u.provider) },
    _links: { self: link(userHref(u)) },
  });

  function factorJson(u: UserRecord, f: FactorRecord, opts: { embedActivation: boolean }) {
    const pending = f.status === 'PENDING_ACTIVATION';
    // Okta's examples show `_links.resend` as an array, the schema (LinksResend) as an object: it is left out.
    const links = pending
      ? {
          activate: link(`${factorHref(u, f)}/lifecycle/activate`, ['POST']),
          self: link(factorHref(u, f), ['GET']),
          user: link(userHref(u), ['GET']),
        }
      : {
          verify: link(`${factorHref(u, f)}/verify`, ['POST']),
          self: link(factorHref(u, f), ['GET', 'DELETE']),
          user: link(userHref(u), ['GET']),
        };
    const body: Record<string, unknown> = {
      id: f.id,
      factorType: f.factorType,
      provider: f.provider,
      vendorName: f.provider,
      status: f.status,
      created: f.created,
      lastUpdated: f.lastUpdated,
      profile: clone(f.profile),
      _links: links,
    };
    if (opts.embedActivation && pending && f.factorType === 'webauthn') {
      // PublicKeyCredentialCreationOptions as Okta's example answers them, with the configured RP ID.
      body._embedded = {
        activation: {
          attestation: 'none',
          authenticatorSelection: { userVerification: 'preferred', requireResidentKey: false },
          challenge: f.webauthnChallenge,
          excludeCredentials: [...u.factors.values()]
            .filter((other) => other.factorType === 'webauthn' && other.status === 'ACTIVE')
            .map((other) => ({ type: 'public-key', id: other.profile.credentialId })),
          pubKeyCredParams: [
            { type: 'public-key', alg: -7 },
            { type: 'public-key', alg: -257 },
          ],
          rp: { id: webauthnRpId(), name: 'Okta org stand-in' },
          user: {
            displayName: `${String(u.profile.firstName)} ${String(u.profile.lastName)}`,
            name: String(u.profile.login),
            id: u.id,
          },
        },
      };
    }
    if (opts.embedActivation && pending && f.factorType === 'token:software:totp') {
      body._embedded = {
        activation: {
          timeStep: 30,
          sharedSecret: f.sharedSecret,
          encoding: 'base32',
          keyLength: 16,
          _links: { qrcode: { href: `${factorHref(u, f)}/qr/${f.qrToken}`, type: 'image/png' } },
        },
      };
    }
    return body;
  }

  // -- WebAuthn (Passkey (FIDO2 WebAuthn) authenticator) ---------------------------------------------------------

  /** Stable ids for the other authenticators of the list. */
  const otherAuthenticators = new Map<string, string>();
  const randomIdFor = (key: string): string => {
    let id = otherAuthenticators.get(key);
    if (!id) {
      id = randomId('aut');
      otherAuthenticators.set(key, id);
    }
    return id;
  };

  /** Okta's "Base64-encoded" fields, as its examples spell them: standard base64 (+ and /), padding optional. */
  const STANDARD_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
  function base64Field(body: Record<string, unknown>, name: string): string | Reply {
    const value = body[name];
    if (typeof value !== 'string' || !STANDARD_BASE64.test(value)) {
      return oktaError(400, 'E0000001', `Api validation failed: ${name}`, [
        `${name}: must be Base64-encoded`,
      ]);
    }
    return Buffer.from(value, 'base64').toString('base64url');
  }
  const isReplyValue = (value: string | Reply): value is Reply => typeof value !== 'string';

  /** The AAGUID names Okta shows as authenticatorName (from the metadata service); others: a generic name. */
  const AAGUID_NAMES: Record<string, string> = {
    'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4': 'Google Password Manager',
    'fbfc3007-154e-4ecc-8c0b-6e020557d7bd': 'iCloud Keychain',
  };

  /**
   * Activation: the attestation verified for real (@simplewebauthn/server) against the challenge this factor
   * issued, the org's origins and its RP ID; the challenge is used up whatever the outcome.
   */
  async function activateWebAuthn(
    user: UserRecord,
    factor: FactorRecord,
    body: Record<string, unknown>,
  ): Promise<Reply> {
    const attestation = base64Field(body, 'attestation');
    if (isReplyValue(attestation)) return attestation;
    const clientData = base64Field(body, 'clientData');
    if (isReplyValue(clientData)) return clientData;
    const challenge = factor.webauthnChallenge;
    delete factor.webauthnChallenge;
    if (challenge === undefined) return ERR.invalidPasscode();
    try {
      const authData = decodeAttestationObject(Buffer.from(attestation, 'base64url')).get('authData');
      const credentialID = parseAuthenticatorData(authData).credentialID;
      if (!credentialID) return ERR.invalidPasscode();
      const credentialId = Buffer.from(credentialID).toString('base64url');
      const taken = [...users.values()].some((u) =>
        [...u.factors.values()].some(
          (f) => f.factorType === 'webauthn' && f.profile.credentialId === credentialId,
        ),
      );
      if (taken) return ERR.invalidPasscode();
      const response: RegistrationResponseJSON = {
        id: credentialId,
        rawId: credentialId,
        type: 'public-key',
        response: { clientDataJSON: clientData, attestationObject: attestation },
        clientExtensionResults: {},
      };
      const verification = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: webauthnOrigins(),
        expectedRPID: webauthnRpId(),
        requireUserVerification: false,
      });
      if (!verification.verified) return ERR.invalidPasscode();
      const { credential, aaguid } = verification.registrationInfo;
      factor.credential = { publicKey: new Uint8Array(credential.publicKey), counter: credential.counter };
      factor.profile = { credentialId, authenticatorName: AAGUID_NAMES[aaguid] ?? 'Unknown authenticator' };
    } catch {
      return ERR.invalidPasscode();
    }
    factor.status = 'ACTIVE';
    factor.lastUpdated = iso();
    return { status: 200, body: factorJson(user, factor, { embedActivation: false }) };
  }

  /**
   * Verify without a body: a new assertion challenge (Okta's `_embedded.challenge`); with the assertion: verified
   * for real against that challenge (used once), the org's origins and RP ID, and the credential's counter.
   */
  async function verifyWebAuthn(
    user: UserRecord,
    factor: FactorRecord,
    body: Record<string, unknown> | undefined,
  ): Promise<Reply> {
    if (body === undefined || Object.keys(body).length === 0) {
      factor.webauthnChallenge = randomBytes(32).toString('base64url');
      return {
        status: 200,
        body: {
          factorResult: 'CHALLENGE',
          _embedded: { challenge: { challenge: factor.webauthnChallenge, extensions: {} } },
          _links: {
            verify: link(`${factorHref(user, factor)}/verify`, ['POST']),
            factor: link(factorHref(user, factor), ['GET', 'DELETE']),
          },
        },
      };
    }
    const fields: Record<string, string> = {};
    for (const name of ['clientData', 'authenticatorData', 'signatureData']) {
      const value = base64Field(body, name);
      if (isReplyValue(value)) return value;
      fields[name] = value;
    }
    const challenge = factor.webauthnChallenge;
    delete factor.webauthnChallenge;
    const stored = factor.credential;
    const credentialId = factor.profile.credentialId;
    if (challenge === undefined || !stored || credentialId === undefined) return ERR.invalidPasscode();
    const response: AuthenticationResponseJSON = {
      id: credentialId,
      rawId: credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: fields.clientData as string,
        authenticatorData: fields.authenticatorData as string,
        signature: fields.signatureData as string,
      },
      clientExtensionResults: {},
    };
    try {
      const verification = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: webauthnOrigins(),
        expectedRPID: webauthnRpId(),
        credential: { id: credentialId, publicKey: stored.publicKey, counter: stored.counter },
        requireUserVerification: false,
      });
      if (!verification.verified) return ERR.invalidPasscode();
      stored.counter = verification.authenticationInfo.newCounter;
    } catch {
      return ERR.invalidPasscode();
    }
    return { status: 200, body: { factorResult: 'SUCCESS' } };
  }

  // -- Management API operations ----------------------------------------------------------------------------------

  interface Ctx {
    /** Who called (the service app, or the API token's admin) and from where: what the System Log records. */
    actor: LogActorInput;
    client: LogClientInput;
    op: OperationSpec;
    params: Record<string, string>;
    query: URLSearchParams;
    headers: IncomingMessage['headers'];
    body: Record<string, unknown> | undefined;
  }

  const headerOf = (ctx: Ctx, name: string): string | undefined => {
    const value = ctx.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };

  const bool = (query: URLSearchParams, name: string, fallback: boolean): boolean =>
    query.has(name) ? query.get(name) === 'true' : fallback;

  function userOr404(id: string | undefined): UserRecord | Reply {
    const user = id === undefined ? undefined : id === 'me' ? undefined : findUser(id);
    return user ?? ERR.notFound(String(id), 'User');
  }
  function factorOr404(user: UserRecord, factorId: string | undefined): FactorRecord | Reply {
    const factor = factorId === undefined ? undefined : user.factors.get(factorId);
    return factor ?? ERR.notFound(String(factorId), 'UserFactor');
  }
  // Users and factors have a string status; a Reply has an HTTP status.
  const isReply = (value: UserRecord | FactorRecord | Reply): value is Reply =>
    typeof value.status === 'number';

  function setPassword(user: UserRecord, password: string, checkHistory: boolean): Reply | undefined {
    if (!meetsComplexity(policy, password, String(user.profile.login))) return ERR.passwordPolicy(policy);
    if (
      checkHistory &&
      user.passwords.slice(0, policy.historyCount).some((h) => checkPassword(password, h))
    ) {
      // The history rule is part of the same requirements text in Okta's answer.
      return ERR.passwordPolicy(policy);
    }
    user.passwords.unshift(hashPassword(password));
    user.passwordChanged = iso();
    user.lastUpdated = user.passwordChanged;
    return undefined;
  }

  function applyUserWrite(user: UserRecord, ctx: Ctx, replace: boolean): Reply {
    const body = ctx.body ?? {};
    for (const key of Object.keys(body)) {
      if (key !== 'profile' && key !== 'credentials' && key !== 'type')
        throw new Unsimulated(`updating "${key}"`);
    }
    const type = body.type as { id?: string } | undefined;
    if (type && type.id !== user.typeId) throw new Unsimulated('changing the user type');
    const credentials = body.credentials as Record<string, unknown> | undefined;
    if (credentials) {
      for (const key of Object.keys(credentials))
        if (key !== 'password') throw new Unsimulated(`credentials.${key}`);
      const password = credentials.password as { value?: string } | undefined;
      if (!password || typeof password.value !== 'string')
        throw new Unsimulated('a password credential without a value');
      const refused = setPassword(user, password.value, bool(ctx.query, 'strict', false));
      if (refused) return refused;
    }
    const profile = body.profile as Record<string, unknown> | undefined;
    if (replace) {
      // PUT: "Any property not specified in the request is deleted."
      user.profile = clone(profile ?? {});
    } else if (profile) {
      // POST: partial update, only the attributes sent change.
      for (const [key, value] of Object.entries(profile)) user.profile[key] = clone(value);
    }
    user.lastUpdated = iso();
    return { status: 200, body: userJson(user) };
  }

  /** A user as createUser / addUser make it; throws (a test's mistake) when Okta's User schema refuses it. */
  function newUserRecord(input: AddUserInput, status: UserRecordStatus): UserRecord {
    const now = iso();
    return {
      id: input.id ?? randomId('00u'),
      status,
      created: now,
      activated: status === 'ACTIVE' ? now : null,
      statusChanged: now,
      lastLogin: null,
      lastUpdated: now,
      passwordChanged: input.password === undefined ? null : now,
      typeId: input.typeId ?? randomId('oty'),
      profile: clone(input.profile),
      provider: clone(input.provider ?? { type: 'OKTA', name: 'OKTA' }),
      passwords: input.password === undefined ? [] : [hashPassword(input.password)],
      factors: new Map(),
      sessionRevocations: [],
      refreshTokenRevocations: [],
    };
  }

  /** Deletes a user with everything the stand-in keeps about them (their codes stay in the sent log, unusable). */
  function removeUser(user: UserRecord) {
    users.delete(user.id);
    for (const c of emailCodes) if (c.userId === user.id) c.consumed = true;
  }

  // -- System Log (system-log.ts): what the operations record, as Okta's events -----------------------------------

  const userTarget = (u: UserRecord): LogTargetInput => ({
    id: u.id,
    type: 'User',
    alternateId: String(u.profile.login),
    displayName:
      [u.profile.firstName, u.profile.lastName]
        .filter((part) => typeof part === 'string' && part)
        .join(' ') || String(u.profile.login),
  });
  /** The factor as Okta's Identity Engine names its enrolment: by the authenticator's name. */
  const enrolmentTarget = (f: FactorRecord): LogTargetInput => ({
    id: f.id,
    type: 'AuthenticatorEnrollment',
    alternateId: 'unknown',
    displayName:
      f.factorType === 'webauthn'
        ? 'Passkey (FIDO2 WebAuthn)'
        : f.factorType === 'email'
          ? 'Email'
          : f.provider === 'GOOGLE'
            ? 'Google Authenticator'
            : 'Okta Verify',
  });
  const record = (input: LogEventInput) => systemLog.append(logEventJson(input));
  /** A factor's verification (the step-up's code): Okta counts it as the user's authentication. */
  function recordVerification(ctx: Ctx, user: UserRecord, factor: FactorRecord, reply: Reply): Reply {
    const success = reply.status === 200;
    record({
      eventType: 'user.authentication.auth_via_mfa',
      displayMessage: 'Authentication of user via MFA',
      legacyEventType: success ? 'core.user.factor.attempt_success' : 'core.user.factor.attempt_fail',
      result: success ? 'SUCCESS' : 'FAILURE',
      ...(success ? {} : { reason: 'INVALID_CREDENTIALS' }),
      actor: userTarget(user),
      targets: [userTarget(user), enrolmentTarget(factor)],
      client: ctx.client,
      requestUri: `/api/v1/users/${user.id}/factors/${factor.id}/verify`,
    });
    return reply;
  }
  function recordActivation(ctx: Ctx, user: UserRecord, factor: FactorRecord, reply: Reply): Reply {
    if (reply.status !== 200) return reply;
    record({
      eventType: 'user.mfa.factor.activate',
      displayMessage: 'Activate factor or authenticator enrollment method for user',
      legacyEventType: 'core.user.factor.activate',
      result: 'SUCCESS',
      actor: ctx.actor,
      targets: [userTarget(user), enrolmentTarget(factor)],
      client: ctx.client,
      requestUri: `/api/v1/users/${user.id}/factors/${factor.id}/lifecycle/activate`,
    });
    return reply;
  }

  const handlers: Record<string, (ctx: Ctx) => Reply | Promise<Reply>> = {
    createUser(ctx) {
      // Only the creation the portal's tooling does (a profile, maybe a password): Okta's other scenarios are not.
      for (const name of ['provider', 'nextLogin']) if (ctx.query.has(name)) throw new Unsimulated(name);
      const body = ctx.body ?? {};
      for (const key of Object.keys(body))
        if (key !== 'profile' && key !== 'credentials' && key !== 'type')
          throw new Unsimulated(`creating a user with "${key}"`);
      const profile = body.profile as { login: string; email: string } & Record<string, unknown>;
      const credentials = body.credentials as Record<string, unknown> | undefined;
      let password: string | undefined;
      if (credentials) {
        for (const key of Object.keys(credentials))
          if (key !== 'password') throw new Unsimulated(`credentials.${key}`);
        const value = (credentials.password as { value?: unknown } | undefined)?.value;
        if (typeof value !== 'string') throw new Unsimulated('a password credential without a value');
        password = value;
      }
      if (findUser(String(profile.login))) return ERR.loginInUse();
      const activate = bool(ctx.query, 'activate', true);
      // "The user is emailed a one-time activation token if activated without a password": PROVISIONED until then.
      const status: UserRecordStatus = !activate
        ? 'STAGED'
        : password === undefined
          ? 'PROVISIONED'
          : 'ACTIVE';
      const typeId = (body.type as { id?: string } | undefined)?.id;
      const user = newUserRecord({ profile, ...(typeId ? { typeId } : {}) }, status);
      if (password !== undefined) {
        const refused = setPassword(user, password, false);
        if (refused) return refused;
      }
      users.set(user.id, user);
      return { status: 200, body: userJson(user) };
    },
    deactivateUser(ctx) {
      if (bool(ctx.query, 'sendEmail', false)) throw new Unsimulated('sendEmail=true');
      if (headerOf(ctx, 'prefer')) throw new Unsimulated('Prefer: respond-async');
      const user = userOr404(ctx.params.id);
      if (isReply(user)) return user;
      // "Perform this operation only on users that do not have a DEPROVISIONED status": Okta's answer is not given.
      if (user.status === 'DEPROVISIONED') throw new Unsimulated('deactivating a DEPROVISIONED user');
      user.status = 'DEPROVISIONED';
      user.statusChanged = iso();
      user.lastUpdated = user.statusChanged;
      return { status: 200 };
    },
    deleteUser(ctx) {
      if (bool(ctx.query, 'sendEmail', false)) throw new Unsimulated('sendEmail=true');
      if (headerOf(ctx, 'prefer')) throw new Unsimulated('Prefer: respond-async');
      const user = userOr404(ctx.params.id);
      if (isReply(user)) return user;
      // "This operation on a user that hasn't been deactivated causes that user to be deactivated. A second delete
      // operation is required to delete the user."
      if (user.status !== 'DEPROVISIONED') {
        user.status = 'DEPROVISIONED';
        user.statusChanged = iso();
        user.lastUpdated = user.statusChanged;
        return { status: 204 };
      }
      removeUser(user);
      return { status: 204 };
    },
    getUser(ctx) {
      if (ctx.query.has('expand')) throw new Unsimulated('expand');
      const user = userOr404(ctx.params.id);
      return isReply(user) ? user : { status: 200, body: userJson(user) };
    },
    updateUser(ctx) {
      const user = userOr404(ctx.params.id);
      return isReply(user) ? user : applyUserWrite(user, ctx, false);
    },
    replaceUser(ctx) {
      const user = userOr404(ctx.params.id);
      return isReply(user) ? user : applyUserWrite(user, ctx, true);
    },
    changePassword(ctx) {
      const user = userOr404(ctx.params.userId);
      if (isReply(user)) return user;
      if (user.provider.type !== 'OKTA' || user.passwords.length === 0) return ERR.changePasswordNotAllowed();
      const body = ctx.body ?? {};
      const oldValue = (body.oldPassword as { value?: unknown } | undefined)?.value;
      const newValue = (body.newPassword as { value?: unknown } | undefined)?.value;
      if (typeof oldValue !== 'string' || typeof newValue !== 'string') {
        throw new Unsimulated('change_password without oldPassword.value and newPassword.value');
      }
      if (!checkPassword(oldValue, user.passwords[0] as string)) return ERR.wrongOldPassword();
      const refused = setPassword(user, newValue, true);
      if (refused) return refused;
      record({
        eventType: 'user.account.update_password',
        displayMessage: 'User update password for Okta',
        legacyEventType: 'core.user.config.password_update.success',
        result: 'SUCCESS',
        actor: ctx.actor,
        targets: [userTarget(user)],
        client: ctx.client,
        requestUri: `/api/v1/users/${user.id}/credentials/change_password`,
      });
      if (body.revokeSessions === true) {
        user.sessionRevocations.push({
          at: iso(),
          via: 'changePassword',
          oauthTokens: false,
          forgetDevices: false,
        });
      }
      return { status: 200, body: { password: {}, provider: clone(user.provider) } };
    },
    listFactors(ctx) {
      const user = userOr404(ctx.params.userId);
      if (isReply(user)) return user;
      return {
        status: 200,
        body: [...user.factors.values()].map((f) => factorJson(user, f, { embedActivation: true })),
      };
    },
    getFactor(ctx) {
      const user = userOr404(ctx.params.userId);
      if (isReply(user)) return user;
      const factor = factorOr404(user, ctx.params.factorId);
      return isReply(factor)
        ? factor
        : { status: 200, body: factorJson(user, factor, { embedActivation: true }) };
    },
    enrollFactor(ctx) {
      const user = userOr404(ctx.params.userId);
      if (isReply(user)) return user;
      const body = ctx.body ?? {};
      const factorType = body.factorType;
      const provider = body.provider;
      for (const name of ['updatePhone', 'templateId']) if (ctx.query.has(name)) throw new Unsimulated(name);
      const lifetime = Number(ctx.query.get('tokenLifetimeSeconds') ?? 300);
      const activate = bool(ctx.query, 'activate', false);
      const now = iso();
      let factor: FactorRecord;
      if (factorType === 'token:software:totp' && (provider === 'GOOGLE' || provider === 'OKTA')) {
        if (activate)
          throw new Unsimulated(
            'activate=true for a TOTP factor (Okta auto-activates only sms, call, email, hotp)',
          );
        if (body.profile !== undefined) throw new Unsimulated('a TOTP enrolment with a profile');
        factor = {
          id: randomId(provider === 'GOOGLE' ? 'uft' : 'ost'),
          factorType,
          provider,
          status: 'PENDING_ACTIVATION',
          profile: { credentialId: String(user.profile.login) },
          sharedSecret: new Secret({ size: 10 }).base32,
          qrToken: randomBytes(24).toString('base64url'),
          created: now,
          lastUpdated: now,
          activationAttempts: [],
        };
      } else if (factorType === 'email' && provider === 'OKTA') {
        const email = (body.profile as { email?: unknown } | undefined)?.email;
        if (typeof email !== 'string') throw new Unsimulated('an email enrolment without profile.email');
        factor = {
          id: randomId('emf'),
          factorType,
          provider,
          status: activate ? 'ACTIVE' : 'PENDING_ACTIVATION',
          profile: { email },
          created: now,
          lastUpdated: now,
          activationAttempts: [],
        };
      } else if (factorType === 'webauthn' && provider === 'FIDO') {
        if (activate) throw new Unsimulated('activate=true for a webauthn factor');
        if (options.webauthnEnrolment === false) return ERR.factorNotAllowed();
        // One factor per authenticator: a user may hold several, pending or active, side by side.
        factor = {
          id: randomId('fwf'),
          factorType,
          provider,
          status: 'PENDING_ACTIVATION',
          profile: {},
          webauthnChallenge: randomBytes(32).toString('base64url'),
          created: now,
          lastUpdated: now,
          activationAttempts: [],
        };
        user.factors.set(factor.id, factor);
        return { status: 200, body: factorJson(user, factor, { embedActivation: true }) };
      } else {
        throw new Unsimulated(`enrolling factorType ${String(factorType)} / provider ${String(provider)}`);
      }
      const existing = [...user.factors.values()].find(
        (f) => f.factorType === factor.factorType && f.provider === factor.provider,
      );
      if (existing?.status === 'ACTIVE') return ERR.factorExists();
      // A pending enrolment of the same factor is replaced by the new one (new secret, new code).
      if (existing) user.factors.delete(existing.id);
      user.factors.set(factor.id, factor);
      if (factor.factorType === 'email' && factor.status === 'PENDING_ACTIVATION') {
        sendEmailCode(user, factor, 'activation', lifetime);
      }
      return { status: 200, body: factorJson(user, factor, { embedActivation: true }) };
    },
    unenrollFactor(ctx) {
      const user = userOr404(ctx.params.userId);
      if (isReply(user)) return user;
      if (ctx.query.has('removeRecoveryEnrollment')) throw new Unsimulated('removeRecoveryEnrollment');
      const factor = factorOr404(user, ctx.params.factorId);
      if (isReply(factor)) return factor;
      user.factors.delete(factor.id);
      for (const c of emailCodes) if (c.factorId === factor.id) c.consumed = true;
      // A pending enrolment never counted: only an active factor's removal is an event.
      if (factor.status === 'ACTIVE') {
        record({
          eventType: 'user.mfa.factor.deactivate',
          displayMessage: 'Reset factor for user',
          legacyEventType: 'core.user.factor.deactivate',
          result: 'SUCCESS',
          actor: ctx.actor,
          targets: [userTarget(user), enrolmentTarget(factor)],
          client: ctx.client,
          requestUri: `/api/v1/users/${user.id}/factors/${factor.id}`,
        });
      }
      return { status: 204 };
    },
    async activateFactor(ctx) {
      const user = userOr404(ctx.params.userId);
      if (isReply(user)) return user;
      const factor = factorOr404(user, ctx.params.factorId);
      if (isReply(factor)) return factor;
      if (factor.status !== 'PENDING_ACTIVATION')
        throw new Unsimulated(`activating a factor in status ${factor.status}`);
      // "Okta enforces a rate limit of five activation attempts within five minutes."
      const now = Date.now();
      factor.activationAttempts = factor.activationAttempts.filter((t) => t > now - 5 * 60_000);
      if (factor.activationAttempts.length >= 5) return ERR.rateLimited();
      factor.activationAttempts.push(now);
      if (factor.factorType === 'webauthn') {
        return recordActivation(ctx, user, factor, await activateWebAuthn(user, factor, ctx.body ?? {}));
      }
      const passCode = ctx.body?.passCode;
      const ok =
        factor.factorType === 'token:software:totp'
          ? checkTotp(factor, passCode) === 'ok'
          : useEmailCode(factor, 'activation', passCode);
      if (!ok) return ERR.invalidPasscode();
      factor.status = 'ACTIVE';
      factor.lastUpdated = iso();
      delete factor.qrToken;
      return recordActivation(ctx, user, factor, {
        status: 200,
        body: factorJson(user, factor, { embedActivation: false }),
      });
    },
    resendEnrollFactor(ctx) {
      const user = userOr404(ctx.params.userId);
      if (isReply(user)) return user;
      const factor = factorOr404(user, ctx.params.factorId);
      if (isReply(factor)) return factor;
      if (ctx.query.has('templateId')) throw new Unsimulated('templateId');
      if (factor.factorType !== 'email' || factor.status !== 'PENDING_ACTIVATION') {
        throw new Unsimulated(`resending for a ${factor.factorType} factor in status ${factor.status}`);
      }
      if (ctx.body?.factorType !== 'email')
        throw new Unsimulated("a resend whose factorType is not the factor's");
      sendEmailCode(user, factor, 'activation', 300);
      return { status: 200, body: factorJson(user, factor, { embedActivation: false }) };
    },
    async verifyFactor(ctx) {
      const user = userOr404(ctx.params.userId);
      if (isReply(user)) return user;
      const factor = factorOr404(user, ctx.params.factorId);
      if (isReply(factor)) return factor;
      if (factor.status !== 'ACTIVE') throw new Unsimulated(`verifying a factor in status ${factor.status}`);
      if (factor.factorType === 'webauthn') {
        const reply = await verifyWebAuthn(user, factor, ctx.body);
        // A new challenge (no body) verifies nothing yet.
        const challenged =
          (reply.body as { factorResult?: unknown } | undefined)?.factorResult === 'CHALLENGE';
        return challenged ? reply : recordVerification(ctx, user, factor, reply);
      }
      const passCode = ctx.body?.passCode;
      if (factor.factorType === 'email') {
        if (passCode === undefined) {
          // "Some factors (call, email, …) must first issue a challenge … by making a request without a body."
          sendEmailCode(user, factor, 'verification', Number(ctx.query.get('tokenLifetimeSeconds') ?? 300));
          return {
            status: 200,
            body: {
              factorResult: 'CHALLENGE',
              _links: {
                verify: link(`${factorHref(user, factor)}/verify`, ['POST']),
                factor: link(factorHref(user, factor), ['GET', 'DELETE']),
              },
            },
          };
        }
        return recordVerification(
          ctx,
          user,
          factor,
          useEmailCode(factor, 'verification', passCode)
            ? { status: 200, body: { factorResult: 'SUCCESS' } }
            : ERR.invalidPasscode(),
        );
      }
      const result = checkTotp(factor, passCode);
      if (result === 'replayed') return recordVerification(ctx, user, factor, ERR.passcodeReplayed());
      return recordVerification(
        ctx,
        user,
        factor,
        result === 'ok' ? { status: 200, body: { factorResult: 'SUCCESS' } } : ERR.invalidPasscode(),
      );
    },
    listLogEvents(ctx) {
      const listing = systemLog.list(ctx.query, `${url}/api/v1/logs?${ctx.query.toString()}`);
      if (listing.kind === 'unsimulated') throw new Unsimulated(listing.detail);
      // Okta documents no answer for an `after` it did not give; a validation refusal is the likely one.
      if (listing.kind === 'unknown-after') {
        return oktaError(400, 'E0000001', 'Api validation failed: after', [
          'after: The cursor is not valid.',
        ]);
      }
      return { status: 200, body: listing.body, headers: { Link: listing.link } };
    },
    listAuthenticators() {
      // The org's authenticators the portal looks for (Okta's example list, without the `aaguids` link its
      // schema does not declare).
      const created = '2020-07-26T21:05:23.000Z';
      const authenticator = (id: string, key: string, name: string, type: string) => ({
        id,
        key,
        name,
        type,
        status: 'ACTIVE',
        created,
        lastUpdated: created,
        _links: {
          self: link(`${url}/api/v1/authenticators/${id}`, ['GET', 'PUT']),
          deactivate: link(`${url}/api/v1/authenticators/${id}/lifecycle/deactivate`, ['POST']),
          methods: link(`${url}/api/v1/authenticators/${id}/methods`, ['GET']),
        },
      });
      return {
        status: 200,
        body: [
          authenticator(randomIdFor('email'), 'okta_email', 'Email', 'email'),
          authenticator(randomIdFor('password'), 'okta_password', 'Password', 'password'),
          authenticator(webauthnAuthenticatorId, 'webauthn', 'Passkey (FIDO2 WebAuthn)', 'security_key'),
        ],
      };
    },
    revokeUserSessions(ctx) {
      const user = userOr404(ctx.params.userId);
      if (isReply(user)) return user;
      user.sessionRevocations.push({
        at: iso(),
        via: 'revokeUserSessions',
        oauthTokens: bool(ctx.query, 'oauthTokens', false),
        forgetDevices: bool(ctx.query, 'forgetDevices', true),
      });
      record({
        eventType: 'user.session.clear',
        displayMessage: 'Clear user session',
        legacyEventType: 'core.user_auth.session_clear',
        result: 'SUCCESS',
        actor: ctx.actor,
        targets: [userTarget(user)],
        client: ctx.client,
        requestUri: `/api/v1/users/${user.id}/sessions`,
      });
      return { status: 204 };
    },
    revokeTokensForUserAndClient(ctx) {
      const user = userOr404(ctx.params.userId);
      if (isReply(user)) return user;
      const clientId = String(ctx.params.clientId);
      // Only the refresh tokens: the user's sessions (and so a silent renewal with their cookie) stay.
      const refreshTokens = authorizationServer?.revokeRefreshTokens(user.id, clientId) ?? 0;
      user.refreshTokenRevocations.push({ at: iso(), clientId, refreshTokens });
      return { status: 204 };
    },
  };

  // -- rate limits ------------------------------------------------------------------------------------------------

  function rateLimitHeaders(bucket: string, method: string, path: string, template: string | undefined) {
    const nowS = Math.floor(Date.now() / 1000);
    const armedIndex = armed.findIndex(
      (a) =>
        (!a.method || a.method.toUpperCase() === method) &&
        (a.path instanceof RegExp ? a.path.test(path) : a.path === path || a.path === template),
    );
    if (armedIndex >= 0) {
      const a = armed[armedIndex] as (typeof armed)[number];
      a.count -= 1;
      if (a.count <= 0) armed.splice(armedIndex, 1);
      return {
        limited: true,
        headers: {
          'X-Rate-Limit-Limit': String(rateLimit.limit),
          'X-Rate-Limit-Remaining': '0',
          'X-Rate-Limit-Reset': String(nowS + a.resetInSeconds),
        },
      };
    }
    let w = windows.get(bucket);
    if (!w || w.start + rateLimit.windowSeconds <= nowS) {
      w = { start: nowS, count: 0 };
      windows.set(bucket, w);
    }
    w.count += 1;
    const remaining = Math.max(0, rateLimit.limit - w.count);
    return {
      limited: w.count > rateLimit.limit,
      headers: {
        'X-Rate-Limit-Limit': String(rateLimit.limit),
        'X-Rate-Limit-Remaining': String(remaining),
        'X-Rate-Limit-Reset': String(w.start + rateLimit.windowSeconds),
      },
    };
  }

  // -- auth -------------------------------------------------------------------------------------------------------

  function wwwAuthenticate(op: OperationSpec, path: string, error: string, description: string): string {
    return (
      `Bearer authorization_uri="${url}/oauth2/v1/authorize", realm="${url}", scope="${op.scopes.join(' ')}", ` +
      `error="${error}", error_description="${description}", resource="${path}"`
    );
  }

  /** The System Log's actor of a Management API call: its Bearer token's service app, or the API token's admin. */
  function callerOf(header: string | undefined): LogActorInput {
    const [scheme, credential] = (header ?? '').split(/\s+/, 2);
    const clientId = scheme === 'Bearer' && credential ? accessTokens.get(credential)?.clientId : undefined;
    return clientId
      ? { id: clientId, type: 'PublicClientApp', alternateId: clientId, displayName: clientId }
      : {
          id: API_TOKEN_ADMIN_ID,
          type: 'User',
          alternateId: 'api-admin@okta-stand-in.example',
          displayName: 'API admin',
        };
  }

  function authorize(op: OperationSpec, path: string, header: string | undefined): Reply | undefined {
    const [scheme, credential] = (header ?? '').split(/\s+/, 2);
    if (scheme === 'SSWS') {
      return apiToken !== undefined && credential === apiToken ? undefined : ERR.invalidToken();
    }
    if (scheme === 'Bearer' && credential) {
      const token = accessTokens.get(credential);
      if (!token || token.expiresAt <= Date.now()) {
        const reply = ERR.invalidToken();
        reply.headers = {
          'WWW-Authenticate': wwwAuthenticate(
            op,
            path,
            'invalid_token',
            'The token is invalid or has expired.',
          ),
        };
        return reply;
      }
      if (!op.scopes.some((s) => scopeSatisfies(token.scopes, s))) {
        const reply = ERR.accessDenied();
        reply.headers = {
          'WWW-Authenticate': wwwAuthenticate(
            op,
            path,
            'insufficient_scope',
            'The access token provided does not contain the required scopes.',
          ),
        };
        return reply;
      }
      return undefined;
    }
    return ERR.invalidToken();
  }

  async function tokenEndpoint(form: URLSearchParams): Promise<Reply> {
    for (const key of form.keys()) {
      if (!TOKEN_FORM_FIELDS.has(key))
        throw new SpecViolation('request', [
          `token request form field "${key}" is not one Okta's service-app flow takes`,
        ]);
    }
    if (form.get('grant_type') !== 'client_credentials') {
      return oauthError(
        400,
        'unauthorized_client',
        'The client is not authorized to use the provided grant type. Configured grant types: [client_credentials].',
      );
    }
    const assertion = form.get('client_assertion');
    if (form.get('client_assertion_type') !== JWT_BEARER || !assertion) return ASSERTION.missing();
    let header: ReturnType<typeof decodeProtectedHeader>;
    let claims: Record<string, unknown>;
    try {
      header = decodeProtectedHeader(assertion);
      const payload = assertion.split('.')[1] ?? '';
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return ASSERTION.unparsable();
    }
    const clientId = typeof claims.iss === 'string' ? claims.iss : undefined;
    const app = clientId === undefined ? undefined : serviceApps.get(clientId);
    if (!app || (form.has('client_id') && form.get('client_id') !== clientId)) return ASSERTION.issuer();
    if (claims.sub !== clientId) return ASSERTION.subject();
    if (header.kid !== undefined && app.publicJwk.kid !== undefined && header.kid !== app.publicJwk.kid) {
      return ASSERTION.kid();
    }
    try {
      const key = await importJWK(app.publicJwk, header.alg);
      await compactVerify(assertion, key, {
        algorithms: ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'],
      });
    } catch {
      return ASSERTION.signature();
    }
    const tokenUrl = `${url}/oauth2/v1/token`;
    const aud = claims.aud;
    if (!(aud === tokenUrl || (Array.isArray(aud) && aud.length === 1 && aud[0] === tokenUrl)))
      return ASSERTION.audience();
    const nowS = Math.floor(Date.now() / 1000);
    if (typeof claims.exp !== 'number') return ASSERTION.expRequired();
    if (claims.exp <= nowS) return ASSERTION.expired();
    if (claims.exp > nowS + 3600) return ASSERTION.tooFar();
    if (typeof claims.iat === 'number' && claims.iat > nowS + 5) return ASSERTION.iatFuture();
    if (typeof claims.jti === 'string') {
      if (usedJtis.has(claims.jti)) return ASSERTION.replayed();
      usedJtis.add(claims.jti);
    }
    const scope = form.get('scope');
    if (!scope) return oauthError(400, 'invalid_scope', 'No scopes were requested.');
    const requested = scope.split(' ').filter(Boolean);
    if (requested.some((s) => !spec.knownScopes.has(s) || !app.scopes.includes(s))) {
      return oauthError(
        400,
        'invalid_scope',
        'The requested scope is invalid, unknown, malformed, or exceeds the scope granted by the resource owner.',
      );
    }
    const accessToken = randomBytes(32).toString('base64url');
    accessTokens.set(accessToken, {
      clientId: clientId as string,
      scopes: requested,
      expiresAt: Date.now() + accessTokenLifetime * 1000,
    });
    return {
      status: 200,
      body: {
        token_type: 'Bearer',
        expires_in: accessTokenLifetime,
        access_token: accessToken,
        scope: requested.join(' '),
      },
      headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
    };
  }

  // -- HTTP -------------------------------------------------------------------------------------------------------

  const flatten = (list: SchemaViolation[]): string[] =>
    list.flatMap((v) => v.errors.map((e) => `${v.where}: ${e}`));

  function send(res: ServerResponse, reply: Reply) {
    const headers: Record<string, string> = { 'X-Okta-Request-Id': randomId('', 27), ...reply.headers };
    if (reply.body === undefined) {
      res.writeHead(reply.status, headers).end();
      return;
    }
    const text = JSON.stringify(reply.body);
    headers['Content-Type'] = 'application/json';
    res.writeHead(reply.status, headers).end(text);
  }

  async function readBody(req: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  function violationReply(kind: Violation['kind'], details: string[]): Reply {
    return {
      status: 500,
      body: {
        errorCode: 'OKTA_STANDIN_VIOLATION',
        errorSummary: `The Okta org stand-in refused this exchange (${kind}): it does not match Okta's published specification or is not simulated.`,
        violations: details,
      },
    };
  }

  async function handleApi(
    req: IncomingMessage,
    path: string,
    query: URLSearchParams,
    raw: Buffer,
    entry: LoggedRequest,
  ): Promise<Reply> {
    const method = req.method ?? 'GET';
    const record = (kind: Violation['kind'], details: string[], status?: number): Reply => {
      violations.push({ kind, method, path, operationId: entry.operationId, status, details });
      return violationReply(kind, details);
    };

    if (path === '/oauth2/v1/token') {
      entry.operationId = 'token';
      const limit = rateLimitHeaders('POST /oauth2/v1/token', method, path, path);
      if (method !== 'POST') return record('unsimulated', [`${method} /oauth2/v1/token`]);
      const contentType = String(req.headers['content-type'] ?? '');
      if (!contentType.startsWith('application/x-www-form-urlencoded')) {
        return record('request', ['the token request is not application/x-www-form-urlencoded']);
      }
      const form = new URLSearchParams(raw.toString('utf8'));
      entry.body = Object.fromEntries(
        [...form.entries()].map(([k, v]) => [k, k === 'client_assertion' ? '(jwt)' : v]),
      );
      // Okta's platform rate limit answers in its API error shape on /oauth2 too.
      if (limit.limited) return { ...ERR.rateLimited(), headers: limit.headers };
      try {
        const reply = await tokenEndpoint(form);
        return { ...reply, headers: { ...reply.headers, ...limit.headers } };
      } catch (error) {
        if (error instanceof SpecViolation) return record(error.kind, error.details);
        throw error;
      }
    }

    const match = spec.match(method, path);
    if (!match)
      return record('unsimulated', [`${method} ${path}: no operation of the vendored subset matches`]);
    const { op, params } = match;
    entry.operationId = op.operationId;
    entry.template = op.template;

    let body: unknown;
    if (raw.length > 0) {
      const contentType = String(req.headers['content-type'] ?? '');
      if (!contentType.startsWith('application/json')) {
        return record('request', [
          `request body sent as "${contentType}", the spec declares application/json`,
        ]);
      }
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        record('malformed', ['the request body is not JSON']);
        return ERR.malformedBody();
      }
      entry.body = body;
    }

    const limit = rateLimitHeaders(`${op.method} ${op.template}`, method, path, op.template);
    const finish = (reply: Reply, component?: string): Reply => {
      const problems = component
        ? spec.validateComponentResponse(component, reply.body)
        : spec.validateResponse(op, reply.status, reply.body);
      if (problems.length > 0)
        return { ...record('response', flatten(problems), reply.status), headers: limit.headers };
      return { ...reply, headers: { ...limit.headers, ...reply.headers } };
    };
    if (limit.limited) return finish(ERR.rateLimited());

    // The union bodies (activate, verify) are checked against the branch of the factor's type.
    let variant: string | undefined;
    if (
      params.userId &&
      params.factorId &&
      (op.operationId === 'activateFactor' || op.operationId === 'verifyFactor')
    ) {
      variant = findUser(params.userId)?.factors.get(params.factorId)?.factorType;
    }
    const problems = spec.validateRequest(op, { params, query, headers: req.headers, body, variant });
    if (problems.length > 0) return record('request', flatten(problems));

    const denied = authorize(op, path, req.headers.authorization);
    const client = { userAgent: req.headers['user-agent'], ipAddress: req.socket.remoteAddress };
    if (denied) return finish(denied, denied.status === 401 ? 'ErrorInvalidToken401' : undefined);

    const handler = handlers[op.operationId];
    if (!handler) return record('unsimulated', [`${op.operationId} has no handler`]);
    try {
      return finish(
        await handler({
          actor: callerOf(req.headers.authorization),
          client,
          op,
          params,
          query,
          headers: req.headers,
          body: body as Record<string, unknown> | undefined,
        }),
      );
    } catch (error) {
      if (error instanceof Unsimulated)
        return record('unsimulated', [`${op.operationId}: ${error.message} is not simulated`]);
      throw error;
    }
  }

  // -- test-only controls (outside /api and /oauth2) ----------------------------------------------------------------

  async function handleTestControl(method: string, path: string, raw: Buffer): Promise<Reply> {
    let json: Record<string, unknown> = {};
    try {
      if (raw.length > 0) json = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return { status: 400, body: { error: 'test controls take JSON' } };
    }
    const parts = path.split('/').filter(Boolean).slice(1).map(decodeURIComponent); // after "__test"
    const [first, id, sub] = parts;
    if (method === 'POST' && first === 'users' && id === undefined) {
      return { status: 201, body: org.addUser(json as unknown as AddUserInput) };
    }
    if (first === 'users' && id !== undefined) {
      const user = org.user(id);
      if (!user) return { status: 404, body: { error: `no user ${id}` } };
      if (method === 'GET' && sub === undefined) return { status: 200, body: user };
      if (method === 'GET' && sub === 'email-codes') return { status: 200, body: org.emailCodes(user.id) };
      if (method === 'POST' && sub === 'status') {
        org.setUserStatus(user.id, json.status as OktaUserStatus);
        return { status: 204 };
      }
      if (method === 'POST' && sub === 'password-check') {
        return { status: 200, body: { matches: org.passwordMatches(user.id, String(json.password)) } };
      }
    }
    if (method === 'GET' && first === 'requests') return { status: 200, body: org.requests() };
    if (method === 'GET' && first === 'violations') return { status: 200, body: org.violations() };
    if (method === 'POST' && first === 'rate-limits') {
      const pathRegex = typeof json.pathRegex === 'string' ? new RegExp(json.pathRegex) : undefined;
      org.armRateLimit({ ...(json as unknown as ArmRateLimitInput), path: pathRegex ?? String(json.path) });
      return { status: 204 };
    }
    if (method === 'POST' && first === 'service-apps') {
      org.registerServiceApp(json as unknown as ServiceAppInput);
      return { status: 204 };
    }
    return { status: 404, body: { error: `no test control ${method} ${path}` } };
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse) {
    const parsed = new URL(req.url ?? '/', 'http://stand-in');
    const path = parsed.pathname;
    const method = req.method ?? 'GET';
    // The authorization server reads its own bodies; neither validated nor logged (not Management traffic).
    if (authorizationServer?.owns(path)) {
      await authorizationServer.handle(req, res);
      return;
    }
    const raw = await readBody(req);
    if (path.startsWith('/__test/')) {
      send(res, await handleTestControl(method, path, raw));
      return;
    }
    // Okta's hosted enrolment page (not Management API traffic): recorded, then straight back to redirect_uri,
    // as if the holder had enrolled there (no ceremony runs on the stand-in's page).
    const hosted = /^\/idp\/bootstrap\/enroll-authenticator\/([^/]+)$/.exec(path);
    if (method === 'GET' && hosted) {
      const authenticatorId = decodeURIComponent(hosted[1] as string);
      const redirectUri = parsed.searchParams.get('redirect_uri');
      hostedEnrolments.push({ authenticatorId, redirectUri });
      if (authenticatorId !== webauthnAuthenticatorId || redirectUri === null) {
        res.writeHead(404, { 'Content-Type': 'text/html' }).end('<p>No such authenticator enrolment.</p>');
        return;
      }
      res
        .writeHead(302, { Location: redirectUri, 'Content-Type': 'text/html' })
        .end(
          `<p>Passkey enrolment (stand-in): back to <a href="${encodeURI(redirectUri)}">the portal</a>.</p>`,
        );
      return;
    }
    if (options.jwks && method === 'GET' && path === '/oauth2/default/v1/keys') {
      send(res, { status: 200, body: options.jwks });
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of LOGGED_HEADERS) {
      const value = req.headers[name];
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const entry: LoggedRequest = {
      seq: ++seq,
      at: iso(),
      method,
      path,
      query: parsed.search,
      authorization: req.headers.authorization?.split(/\s+/, 1)[0],
      headers,
      body: undefined,
      status: 0,
      responseBody: undefined,
    };
    log.push(entry);
    let reply: Reply;
    if (path.startsWith('/api/') || path === '/oauth2/v1/token') {
      reply = await handleApi(req, path, parsed.searchParams, raw, entry);
    } else {
      violations.push({ kind: 'unsimulated', method, path, details: [`${method} ${path} is not simulated`] });
      reply = violationReply('unsimulated', [`${method} ${path} is not simulated`]);
    }
    entry.status = reply.status;
    entry.responseBody = reply.body;
    send(res, reply);
  }

  const server: Server = createServer((req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      const details = [
        `stand-in error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      ];
      violations.push({ kind: 'unsimulated', method: req.method ?? '', path: req.url ?? '', details });
      if (!res.headersSent) send(res, violationReply('unsimulated', details));
      else res.end();
    });
  });
  // Loopback only, on a port the OS picks: tests pass the URL around.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Built once the URL (its issuer) is known; no request can arrive before the URL is handed out.
  let authorizationServer: AuthorizationServer | undefined;
  if (options.authorizationServer) {
    authorizationServer = createAuthorizationServer(
      url,
      options.authorizationServer,
      {
        find: (idOrLogin) => {
          const user = findUser(idOrLogin);
          return (
            user && {
              id: user.id,
              status: user.status,
              profile: clone(user.profile),
              lastUpdated: user.lastUpdated,
            }
          );
        },
        passwordMatches: (userId, password) => org.passwordMatches(userId, password),
        signedIn: (userId, client) => {
          const user = findUser(userId);
          if (!user) return;
          user.lastLogin = iso();
          recordSignIn(user, client, true);
        },
        signInRefused: (userId, client) => {
          const user = findUser(userId);
          if (user) recordSignIn(user, client, false);
        },
        failed: (method, path, error) =>
          violations.push({
            kind: 'unsimulated',
            method,
            path,
            details: [
              `authorization server error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
            ],
          }),
      },
      options.jwks,
    );
  }

  /** A sign-in on the org's own page (user.session.start), in a new Okta session on success. */
  function recordSignIn(user: UserRecord, client: LogClientInput, success: boolean) {
    record({
      eventType: 'user.session.start',
      displayMessage: 'User login to Okta',
      legacyEventType: success ? 'core.user_auth.login_success' : 'core.user_auth.login_failed',
      result: success ? 'SUCCESS' : 'FAILURE',
      ...(success ? { sessionId: randomId('idx', 25) } : { reason: 'INVALID_CREDENTIALS' }),
      credentialType: 'PASSWORD',
      actor: userTarget(user),
      targets: [userTarget(user)],
      client,
      requestUri: '/login/do-login',
    });
  }

  const org: OktaOrg = {
    url,
    tokenUrl: `${url}/oauth2/v1/token`,
    issuer: authorizationServer?.issuer,
    spec,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
    addUser(input) {
      const user = newUserRecord(input, 'ACTIVE');
      const { id } = user;
      if (users.has(id) || findUser(input.profile.login))
        throw new Error(`a user ${id} / ${input.profile.login} exists`);
      // The user the stand-in serves must itself be a valid Okta user.
      const problems = spec.validateSchema('response', 'User', userJson(user));
      if (problems.length > 0)
        throw new Error(`addUser: not a valid Okta user: ${flatten(problems).join('; ')}`);
      users.set(id, user);
      return snapshot(user);
    },
    user(idOrLogin) {
      const user = findUser(idOrLogin);
      return user ? snapshot(user) : undefined;
    },
    passwordMatches(userId, password) {
      const current = findUser(userId)?.passwords[0];
      return current !== undefined && checkPassword(password, current);
    },
    emailCodes(userId) {
      const now = Date.now();
      return emailCodes
        .filter((c) => c.userId === userId)
        .map((c) => ({
          userId: c.userId,
          factorId: c.factorId,
          email: c.email,
          code: c.code,
          purpose: c.purpose,
          sentAt: iso(c.sentAt),
          expiresAt: iso(c.expiresAt),
          usable: !c.consumed && c.expiresAt > now,
        }));
    },
    lastEmailCode(userId) {
      const usable = org.emailCodes(userId).filter((c) => c.usable);
      const last = usable[usable.length - 1];
      if (!last) throw new Error(`no usable email code was sent to user ${userId}`);
      return last.code;
    },
    webauthnAuthenticatorId,
    hostedEnrolments: () => clone(hostedEnrolments),
    requests: () => clone(log),
    violations: () => clone(violations),
    takeViolations: () => violations.splice(0, violations.length),
    armRateLimit(input) {
      if (!(input.count > 0)) throw new Error('armRateLimit: count must be positive');
      armed.push({
        path: input.path,
        method: input.method,
        count: input.count,
        resetInSeconds: input.resetInSeconds ?? 1,
      });
    },
    registerServiceApp(input) {
      const unknown = input.scopes.filter((s) => !spec.knownScopes.has(s));
      if (unknown.length > 0) throw new Error(`registerServiceApp: not Okta scopes: ${unknown.join(', ')}`);
      serviceApps.set(input.clientId, { publicJwk: clone(input.publicJwk), scopes: [...input.scopes] });
    },
    setApiToken(token) {
      apiToken = token;
    },
    expireAccessTokens() {
      accessTokens.clear();
    },
    logEvents: () => systemLog.all(),
    addLogEvent(input) {
      const event = 'uuid' in input ? (input as LogEventJson) : logEventJson(input as LogEventInput);
      const problems = spec.validateSchema('response', 'LogEvent', event);
      if (problems.length > 0)
        throw new Error(`addLogEvent: not a valid LogEvent: ${flatten(problems).join('; ')}`);
      systemLog.append(event);
      return clone(event);
    },
    backdateNextSignIn(idOrLogin, minutes) {
      if (!authorizationServer) throw new Error('backdateNextSignIn: the org has no authorizationServer');
      const user = findUser(idOrLogin);
      if (!user) throw new Error(`backdateNextSignIn: no user ${idOrLogin}`);
      authorizationServer.backdateNextSignIn(user.id, minutes);
    },
    setUserStatus(idOrLogin, status) {
      const user = findUser(idOrLogin);
      if (!user) throw new Error(`setUserStatus: no user ${idOrLogin}`);
      if (!USER_STATUSES.includes(status)) throw new Error(`setUserStatus: not a status: ${String(status)}`);
      user.status = status;
      user.statusChanged = iso();
      user.lastUpdated = user.statusChanged;
    },
  };
  return org;
}
