import type { OktaApiError, ResendUserFactor, UserFactor, UserProfile } from '@okta/okta-sdk-nodejs';
import { API_ERRORS, PASSWORD_CHANGE_ERRORS, type FactorName } from 'shared-auth/contract';
import type { ProfileChanges, User } from '../../directory/store.js';
import { totpUri } from '../../factors/totp.js';
import { refusal, type HttpError } from '../../http/errors.js';
import type {
  Activation,
  AuthenticatorEnrolment,
  IdentityBackend,
  IdentityFactor,
  PasswordChange,
  PasswordCheck,
} from '../types.js';
import { UserCache } from '../user-cache.js';
import { causesOf, isOktaApiError, type OktaOrg } from './client.js';

/**
 * The identity backend in front of an Okta org: the profile, the password and the 2-step factors live in Okta.
 *
 * Every call goes through Okta's **Management API** with the portal's own credentials (OktaOrg), not through the
 * MyAccount API with the user's token. Okta then does not re-verify the end user (only the old password, for a
 * password change), so the portal's guards come first in the services that call this: the caller's access token,
 * the step-up grant, the portal's password policy and its throttles. MyAccount (`../shared/okta-openapi/
 * idp-minimal.yaml`) cannot do the whole job: it needs the user's token to carry `okta.myAccount.*` scopes and
 * Okta's account management policy to allow each change; its profile call is a replace (PUT /idp/myaccount/profile);
 * its password change is Limited GA on Identity Engine orgs only; its /authenticators calls list, read and update
 * enrolments but cannot enrol Google Authenticator or check a code of an active one (the step-up).
 *
 * | operation             | Okta                                                                        |
 * |-----------------------|-----------------------------------------------------------------------------|
 * | findById, findCaller  | GET /api/v1/users/{id} (findCaller: through a 30 s per-instance cache)      |
 * | updateProfile         | POST /api/v1/users/{id} (partial: only the attributes sent change; never PUT) |
 * | verifyPassword        | none: the Management API cannot check a password (refused: no_local_password) |
 * | changePassword        | POST /api/v1/users/{userId}/credentials/change_password                     |
 * | listFactors           | GET /api/v1/users/{userId}/factors                                          |
 * | hasUnmanagedActiveFactor | GET /api/v1/users/{userId}/factors (any other ACTIVE factor)             |
 * | enrollAuthenticator   | POST /api/v1/users/{userId}/factors (token:software:totp, GOOGLE)           |
 * | enrollEmail           | POST …/factors (email, OKTA), or POST …/factors/{factorId}/resend           |
 * | activate              | POST …/factors/{factorId}/lifecycle/activate {passCode}                     |
 * | sendVerificationEmail | POST …/factors/{factorId}/verify (no passCode: Okta sends a code)           |
 * | verify                | POST …/factors/{factorId}/verify {passCode}                                 |
 * | setEnabled (off)      | DELETE …/factors/{factorId}: Okta has no "off" for one factor               |
 * | remove                | DELETE …/factors/{factorId}                                                 |
 * | revokeRefreshTokens   | DELETE /api/v1/users/{userId}/clients/{clientId}/tokens (each client)       |
 * | endSessions           | DELETE /api/v1/users/{userId}/sessions?oauthTokens=true                     |
 */

export interface OktaIdentityOptions {
  /**
   * OKTA_FEDERATED_ATTRIBUTE: a boolean custom profile attribute; `true` marks the user federated. Besides it, a
   * user whose credentials provider is FEDERATION or SOCIAL (signs in at another identity provider, has no Okta
   * password) is federated.
   */
  federatedAttribute?: string | undefined;
  /** The clock of the per-call user cache (findCaller); Date.now by default. */
  now?: () => number;
  /** How long findCaller may answer from the cache (ms); default USER_CACHE_TTL_MS (30 s). */
  userCacheTtlMs?: number;
}

const FACTOR_LABELS: Record<FactorName, string> = {
  googleAuth: 'Google Authenticator',
  email: 'Email verification',
};

/** Credentials providers whose users have no Okta password: their home identity provider holds it. */
const FEDERATED_PROVIDERS = new Set(['FEDERATION', 'SOCIAL']);

/** Users Okta keeps but who may no longer act: deactivated (DEPROVISIONED) or suspended. */
const GONE_STATUSES = new Set(['DEPROVISIONED', 'SUSPENDED']);

/** An Okta user as the SDK answers it (getUser, updateUser). */
interface OktaUser {
  id?: string;
  status?: string;
  created?: Date | string;
  lastUpdated?: Date | string;
  profile?: UserProfile;
  credentials?: { provider?: { type?: string } };
}

/** One of the user's Okta factors that the portal knows. */
interface KnownFactor {
  type: FactorName;
  id: string;
  status: string;
  created: string | null;
  email: string | undefined;
}

const isStatus = (error: unknown, status: number, ...codes: string[]): error is OktaApiError =>
  isOktaApiError(error) &&
  error.status === status &&
  (codes.length === 0 || codes.includes(String(error.errorCode)));

/** Okta's "not found" (E0000007) for the user or the factor. */
const notFound = (error: unknown) => isStatus(error, 404);

/** A wrong passcode (E0000068) or a TOTP code whose time step was already used (E0000082). */
const wrongCode = (error: unknown) => isStatus(error, 403, 'E0000068', 'E0000082');

function iso(value: Date | string | undefined): string {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' ? value : '';
}

/** Okta's cause text without the attribute it names ("password: Password requirements were not met…"). */
function causeText(error: OktaApiError): string {
  return causesOf(error)
    .map((cause) => cause.replace(/^(?:password|newPassword|oldPassword)\s*:\s*/, ''))
    .join(' ');
}

/**
 * A refused password change as the portal answers it, or undefined when Okta's answer is not a refusal it knows:
 * - 403 E0000014 "Update of credentials failed" with the cause `oldPassword: …`, or no cause: the current password
 *   is wrong (the contract's text). With another cause (third-party reports show "Password has been used too
 *   recently" under E0000014) it is the policy's refusal, with Okta's text.
 * - 400 E0000001 "Api validation failed: password" (the Management API's declared answer), or 403 E0000080 (the
 *   Authentication API's answer for the same check): the org's password policy, with its requirements text, which
 *   the page shows in its dialog.
 * - 403 E0000035: the user's password is not Okta's to change (federated).
 * - 404: the user is gone.
 */
export function passwordChangeRefusal(error: unknown): HttpError | undefined {
  if (!isOktaApiError(error)) return undefined;
  const policy = () =>
    refusal(
      API_ERRORS.passwordPolicy,
      causeText(error) || "The new password does not meet your organization's password policy.",
    );
  if (isStatus(error, 403, 'E0000014')) {
    const causes = causesOf(error);
    return causes.length === 0 || causes.some((cause) => /^oldPassword\b/.test(cause))
      ? refusal(API_ERRORS.wrongPassword, PASSWORD_CHANGE_ERRORS.wrongCurrentPassword)
      : policy();
  }
  if (isStatus(error, 400, 'E0000001') || isStatus(error, 403, 'E0000080')) return policy();
  if (isStatus(error, 403, 'E0000035'))
    return refusal(API_ERRORS.federatedUser, PASSWORD_CHANGE_ERRORS.federated);
  if (notFound(error)) return refusal(API_ERRORS.notFound, 'The account no longer exists');
  return undefined;
}

/** Okta's answer for a user id the portal was given (the access token's `uid`). */
function requireId(userId: string): string {
  // The SDK leaves an empty path parameter as the literal `{userId}`.
  if (userId === '') throw refusal(API_ERRORS.notFound, 'The account no longer exists');
  return userId;
}

export class OktaIdentity implements IdentityBackend {
  readonly kind = 'okta' as const;
  // The Management API has no "off" for one factor (setEnabled removes it), and cannot check a password.
  readonly factorTurnOff = 'removes' as const;
  readonly canCheckPasswords = false;
  private readonly federatedAttribute: string | undefined;
  private readonly users: UserCache;

  constructor(
    private readonly org: OktaOrg,
    options: OktaIdentityOptions = {},
  ) {
    this.federatedAttribute = options.federatedAttribute;
    this.users = new UserCache(options.now ?? Date.now, options.userCacheTtlMs);
  }

  // ---- The account ----------------------------------------------------------------------------------------

  /**
   * Undefined for an unknown id, and for a deactivated or suspended user (their tokens may outlive the change).
   * Always asks Okta; what it answers also refreshes the per-call cache.
   */
  async findById(userId: string): Promise<User | undefined> {
    let found: User | undefined;
    try {
      const user = await this.org.call('getUser', 'repeatable', (c) =>
        c.userApi.getUser({ userId: requireId(userId) }),
      );
      found = this.toUser(user);
    } catch (error) {
      if (!notFound(error)) throw this.org.unexpected('getUser', error);
    }
    this.users.put(userId, found);
    return found;
  }

  /** The per-call read: from this instance's cache when Okta answered for the user within the last 30 s. */
  findCaller(userId: string): Promise<{ user: User | undefined; cached: boolean }> {
    return this.users.get(userId, () => this.findById(userId));
  }

  /**
   * POST /api/v1/users/{id} with only the attributes that change: Okta merges them, so the profile's other
   * attributes (whatever the org keeps there) stay as they are; PUT would delete every attribute not sent.
   * An empty country clears countryCode. Okta's validation refusal (E0000001) answers 400 with its cause text.
   */
  async updateProfile(userId: string, changes: ProfileChanges): Promise<User | undefined> {
    const profile: { firstName?: string; lastName?: string; countryCode?: string | null } = {};
    if (changes.givenName !== undefined) profile.firstName = changes.givenName;
    if (changes.familyName !== undefined) profile.lastName = changes.familyName;
    if (changes.country !== undefined) profile.countryCode = changes.country === '' ? null : changes.country;
    if (Object.keys(profile).length === 0) return this.findById(userId);
    // Whatever happens, the cached user is no longer known to be current.
    this.users.forget(userId);
    try {
      const user = await this.org.call('updateUser', 'once', (c) =>
        c.userApi.updateUser({ userId: requireId(userId), user: { profile } }),
      );
      const saved = this.toUser(user);
      this.users.put(userId, saved);
      return saved;
    } catch (error) {
      if (notFound(error)) return undefined;
      if (isStatus(error, 400, 'E0000001')) {
        throw refusal(API_ERRORS.invalidRequest, causesOf(error).join(' ') || 'The profile was refused.');
      }
      throw this.org.unexpected('updateUser', error);
    }
  }

  /**
   * The Management API has no call that checks a password without changing it (Okta's Authentication API would,
   * but acts as a sign-in, outside the Management API and its specification): "Confirm it's you" is refused, and
   * signing in again (a fresh `auth_time`) is the proof a first factor needs in Okta mode.
   */
  async verifyPassword(
    _userId: string,
    _password: string,
    _beforeCheck: () => Promise<void>,
  ): Promise<PasswordCheck> {
    throw refusal(
      API_ERRORS.noLocalPassword,
      'Your password is kept by your organization and cannot be checked here. Sign in again, then turn on 2-step verification within 5 minutes.',
    );
  }

  /**
   * The Management API's change_password: Okta checks the old password and the org's password policy (history
   * included). It is the server acting with its own credentials, not the user under Okta's account management
   * policy (MyAccount's /idp/myaccount/password would need the user's token with okta.myAccount.password.manage):
   * the portal's step-up grant, its own password policy and its wrong-password throttle are the guard, checked
   * before this is called (`beforeCheck` counts the attempt). A wrong old password is `{ matches: false }`; the
   * other refusals are thrown (passwordChangeRefusal). Okta's sessions are left alone (no revokeSessions): Okta
   * cannot spare the caller's own, so ending them would sign the caller out too (see endSessions).
   */
  async changePassword(
    userId: string,
    oldPassword: string,
    newPassword: string,
    beforeCheck: () => Promise<void>,
  ): Promise<PasswordChange> {
    await beforeCheck();
    try {
      await this.org.call('changePassword', 'once', (c) =>
        c.userApi.changePassword({
          userId: requireId(userId),
          changePasswordRequest: { oldPassword: { value: oldPassword }, newPassword: { value: newPassword } },
        }),
      );
    } catch (error) {
      const refused = passwordChangeRefusal(error);
      if (refused?.code === API_ERRORS.wrongPassword.code) return { matches: false };
      throw refused ?? this.org.unexpected('changePassword', error);
    }
    // Made in Okta already: nothing left to store with the portal's own writes.
    return { matches: true, commit: async () => undefined };
  }

  /**
   * Ends the user's Okta sessions and, with `oauthTokens`, revokes the OAuth tokens Okta issued to them (refresh
   * and access tokens of every app). Okta cannot spare one session: this also ends the caller's own Okta session
   * and the portal's tokens, so the caller is signed out too. The portal's own records (its sessions, step-up
   * grants) are not touched. Not part of IdentityBackend and not called by the portal today: a password or
   * factor change keeps the caller signed in, and so leaves Okta's sessions alone (README, "Embedded mode and
   * Okta mode").
   */
  async endSessions(userId: string): Promise<void> {
    try {
      await this.org.call('revokeUserSessions', 'repeatable', (c) =>
        c.userApi.revokeUserSessions({ userId: requireId(userId), oauthTokens: true }),
      );
    } catch (error) {
      if (notFound(error)) return;
      throw this.org.unexpected('revokeUserSessions', error);
    }
  }

  /**
   * Revokes the user's refresh tokens for each client (okta.users.manage): another browser's, or a copied one,
   * can then mint no access token whose new `iat` would pass the account's "not before". The Okta sessions stay,
   * so the caller's page renews silently with its own. A deletion, so repeatable under Okta's rate limit.
   */
  async revokeRefreshTokens(userId: string, clientIds: readonly string[]): Promise<void> {
    for (const clientId of clientIds) {
      try {
        await this.org.call('revokeTokensForUserAndClient', 'repeatable', (c) =>
          c.userApi.revokeTokensForUserAndClient({ userId: requireId(userId), clientId }),
        );
      } catch (error) {
        // The user is gone, or the org has no such client: no refresh token of it to end.
        if (notFound(error)) continue;
        throw this.org.unexpected('revokeTokensForUserAndClient', error);
      }
    }
  }

  // ---- Factors --------------------------------------------------------------------------------------------

  /**
   * Okta's Google Authenticator (token:software:totp, provider GOOGLE) and email (email, OKTA) factors, pending or
   * active. Other factors the org may have enrolled (Okta Verify, SMS, …) and other statuses are not the portal's
   * to show (an active one still counts as 2-step verification: hasUnmanagedActiveFactor). `enrolledAt` is the
   * factor's `created` ("when the factor was enrolled"), null while pending.
   */
  async listFactors(userId: string): Promise<IdentityFactor[]> {
    return (await this.knownFactors(userId))
      .filter((f) => f.status === 'ACTIVE' || f.status === 'PENDING_ACTIVATION')
      .map((f) => ({
        type: f.type,
        status: f.status as IdentityFactor['status'],
        enrolledAt: f.status === 'ACTIVE' ? f.created : null,
      }));
  }

  /**
   * Any ACTIVE factor of another kind than the portal's two (Okta Verify push or TOTP, SMS, voice, a security key,
   * Google Authenticator under another provider…): the holder has 2-step verification, which the portal can
   * neither show nor check.
   */
  async hasUnmanagedActiveFactor(userId: string): Promise<boolean> {
    return (await this.allFactors(userId)).some(
      (factor) => String(factor.status) === 'ACTIVE' && factorNameOf(factor) === undefined,
    );
  }

  /**
   * Enrols Google Authenticator: Okta makes the secret and answers it in the factor's activation data
   * (`_embedded.activation.sharedSecret`, base32, 30-second steps). Okta's own QR link is an image URL on the org
   * (`_links.qrcode`, which needs the portal's credentials to fetch), so the page gets the otpauth:// URI built
   * from the shared secret instead and draws the QR itself. A pending enrolment is removed first, so the secret
   * shown is always the one Okta will check.
   */
  async enrollAuthenticator(user: User): Promise<AuthenticatorEnrolment> {
    const existing = await this.knownFactors(user.id, 'googleAuth');
    this.refuseIfActive(existing, 'googleAuth');
    for (const factor of existing) await this.unenroll(user.id, factor.id);
    let factor: UserFactor;
    try {
      factor = await this.org.call('enrollFactor', 'once', (c) =>
        c.userFactorApi.enrollFactor({
          userId: requireId(user.id),
          body: { factorType: 'token:software:totp', provider: 'GOOGLE' },
        }),
      );
    } catch (error) {
      throw this.enrolRefusal(error, 'googleAuth') ?? this.org.unexpected('enrollFactor', error);
    }
    const activation = (factor._embedded as { activation?: { sharedSecret?: unknown } } | undefined)
      ?.activation;
    const secret = activation?.sharedSecret;
    if (typeof secret !== 'string' || !/^[A-Z2-7]+=*$/i.test(secret)) {
      throw this.org.unexpected('enrollFactor', new Error('the TOTP enrolment has no base32 sharedSecret'));
    }
    return { secret, qrLink: totpUri(secret, user.email) };
  }

  /**
   * Enrols email verification for the account's email: Okta sends the activation code. A pending enrolment for
   * the same address gets a new code (resend) instead.
   */
  async enrollEmail(user: User): Promise<void> {
    const existing = await this.knownFactors(user.id, 'email');
    this.refuseIfActive(existing, 'email');
    const pending = existing.find((f) => f.status === 'PENDING_ACTIVATION' && f.email === user.email);
    try {
      if (pending) {
        await this.org.call('resendEnrollFactor', 'once', (c) =>
          c.userFactorApi.resendEnrollFactor({
            userId: requireId(user.id),
            factorId: pending.id,
            // The spec maps ResendUserFactor's `email` to UserFactorEmail (provider, profile); the SDK's type
            // has factorType only.
            resendUserFactor: {
              factorType: 'email',
              provider: 'OKTA',
              profile: { email: user.email },
            } as ResendUserFactor,
          }),
        );
        return;
      }
      for (const factor of existing) await this.unenroll(user.id, factor.id);
      await this.org.call('enrollFactor', 'once', (c) =>
        c.userFactorApi.enrollFactor({
          userId: requireId(user.id),
          body: { factorType: 'email', provider: 'OKTA', profile: { email: user.email } },
        }),
      );
    } catch (error) {
      throw this.enrolRefusal(error, 'email') ?? this.org.unexpected('enrollFactor', error);
    }
  }

  /**
   * Activates the pending factor with its code (Okta makes it ACTIVE at once); undefined when Okta says the code
   * is wrong or used. `commit` has nothing left to store.
   */
  async activate(userId: string, type: FactorName, code: string): Promise<Activation | undefined> {
    const factors = await this.knownFactors(userId, type);
    const pending = factors.find((f) => f.status === 'PENDING_ACTIVATION');
    const notPending = () =>
      refusal(
        API_ERRORS.factorState,
        factors.some((f) => f.status === 'ACTIVE')
          ? `${FACTOR_LABELS[type]} is already set up`
          : `Start setting up ${FACTOR_LABELS[type]} first`,
      );
    if (!pending) throw notPending();
    const passCode = normaliseCode(code);
    if (passCode === undefined) return undefined;
    let activated: UserFactor;
    try {
      activated = await this.org.call('activateFactor', 'once', (c) =>
        c.userFactorApi.activateFactor({
          userId: requireId(userId),
          factorId: pending.id,
          body: { passCode },
        }),
      );
    } catch (error) {
      if (wrongCode(error)) return undefined;
      if (notFound(error)) throw notPending();
      throw this.org.unexpected('activateFactor', error);
    }
    const factor: IdentityFactor = {
      type,
      status: 'ACTIVE',
      enrolledAt:
        activated.created === undefined ? (pending.created ?? iso(new Date())) : iso(activated.created),
    };
    return { commit: async () => factor };
  }

  /** Asks Okta to send a verification code to the account's active email factor (a challenge). */
  async sendVerificationEmail(user: User): Promise<void> {
    const userId = user.id;
    const factor = await this.activeFactor(userId, 'email');
    try {
      const answer = await this.org.call('verifyFactor', 'once', (c) =>
        c.userFactorApi.verifyFactor({ userId: requireId(userId), factorId: factor.id }),
      );
      if (answer.factorResult !== 'CHALLENGE') {
        throw new Error(`an email challenge answered factorResult ${String(answer.factorResult)}`);
      }
    } catch (error) {
      if (notFound(error)) throw notSetUp('email');
      throw this.org.unexpected('verifyFactor', error);
    }
  }

  /** Checks a code of the active factor with Okta: true on SUCCESS, false when the code is wrong or used. */
  async verify(userId: string, type: FactorName, code: string): Promise<boolean> {
    const factor = await this.activeFactor(userId, type);
    const passCode = normaliseCode(code);
    if (passCode === undefined) return false;
    try {
      const answer = await this.org.call('verifyFactor', 'once', (c) =>
        c.userFactorApi.verifyFactor({ userId: requireId(userId), factorId: factor.id, body: { passCode } }),
      );
      return answer.factorResult === 'SUCCESS';
    } catch (error) {
      if (wrongCode(error)) return false;
      if (notFound(error)) throw notSetUp(type);
      throw this.org.unexpected('verifyFactor', error);
    }
  }

  /**
   * Okta's Management API has no "off" for one factor (a factor is enrolled or not; only the org's policies decide
   * when Okta asks for it). Off removes the enrolment, so Okta's own sign-in stops asking for it too; turning it
   * on again means setting it up again (refused here: there is no turned-off factor to turn on).
   */
  async setEnabled(userId: string, type: FactorName, enabled: boolean): Promise<IdentityFactor | undefined> {
    if (!enabled) {
      await this.remove(userId, type);
      return undefined;
    }
    const active = (await this.listFactors(userId)).find((f) => f.type === type && f.status === 'ACTIVE');
    if (!active) throw refusal(API_ERRORS.factorState, `Set up ${FACTOR_LABELS[type]} before turning it on`);
    return active;
  }

  /** Unenrols the factor (active or pending) in Okta. */
  async remove(userId: string, type: FactorName): Promise<void> {
    for (const factor of await this.knownFactors(userId, type)) await this.unenroll(userId, factor.id);
  }

  // ---- Helpers --------------------------------------------------------------------------------------------

  private toUser(user: OktaUser): User | undefined {
    if (user.id === undefined || GONE_STATUSES.has(String(user.status))) return undefined;
    const profile = user.profile ?? {};
    const providerType = user.credentials?.provider?.type;
    const attribute = this.federatedAttribute;
    return {
      id: user.id,
      email: profile.email ?? '',
      givenName: profile.firstName ?? '',
      familyName: profile.lastName ?? '',
      country: (profile.countryCode ?? '').toUpperCase(),
      isFederated:
        (providerType !== undefined && FEDERATED_PROVIDERS.has(providerType)) ||
        (attribute !== undefined && profile[attribute] === true),
      createdAt: iso(user.created),
      updatedAt: iso(user.lastUpdated),
    };
  }

  /** Every factor Okta holds for the user, of any kind and status; [] for an unknown user. */
  private async allFactors(userId: string): Promise<UserFactor[]> {
    try {
      return await this.org.call('listFactors', 'repeatable', async (c) => {
        const all: UserFactor[] = [];
        for await (const factor of await c.userFactorApi.listFactors({ userId: requireId(userId) })) {
          if (factor) all.push(factor);
        }
        return all;
      });
    } catch (error) {
      if (notFound(error)) return [];
      throw this.org.unexpected('listFactors', error);
    }
  }

  /** The user's factors of the portal's two kinds (of one kind when `type` is given); [] for an unknown user. */
  private async knownFactors(userId: string, type?: FactorName): Promise<KnownFactor[]> {
    const known: KnownFactor[] = [];
    for (const factor of await this.allFactors(userId)) {
      const name = factorNameOf(factor);
      if (name === undefined || factor.id === undefined || (type !== undefined && name !== type)) continue;
      const email = (factor.profile as { email?: unknown } | undefined)?.email;
      known.push({
        type: name,
        id: factor.id,
        status: String(factor.status),
        created: factor.created === undefined ? null : iso(factor.created),
        email: typeof email === 'string' ? email : undefined,
      });
    }
    return known;
  }

  private async activeFactor(userId: string, type: FactorName): Promise<KnownFactor> {
    const active = (await this.knownFactors(userId, type)).find((f) => f.status === 'ACTIVE');
    if (!active) throw notSetUp(type);
    return active;
  }

  private refuseIfActive(factors: KnownFactor[], type: FactorName): void {
    if (factors.some((f) => f.status === 'ACTIVE')) {
      throw refusal(
        API_ERRORS.factorState,
        `${FACTOR_LABELS[type]} is already set up; remove it first to set it up again`,
      );
    }
  }

  /** An enrolment Okta refused because the factor is set up meanwhile (E0000001), or the user is gone. */
  private enrolRefusal(error: unknown, type: FactorName): HttpError | undefined {
    if (isStatus(error, 400, 'E0000001')) {
      return refusal(
        API_ERRORS.factorState,
        `${FACTOR_LABELS[type]} is already set up; remove it first to set it up again`,
      );
    }
    if (notFound(error)) return refusal(API_ERRORS.notFound, 'The account no longer exists');
    return undefined;
  }

  /** DELETE of one factor: repeatable (the end state is the same), and a factor already gone is fine. */
  private async unenroll(userId: string, factorId: string): Promise<void> {
    try {
      await this.org.call('unenrollFactor', 'repeatable', (c) =>
        c.userFactorApi.unenrollFactor({ userId: requireId(userId), factorId }),
      );
    } catch (error) {
      if (notFound(error)) return;
      throw this.org.unexpected('unenrollFactor', error);
    }
  }
}

function factorNameOf(factor: UserFactor): FactorName | undefined {
  if (factor.factorType === 'token:software:totp' && factor.provider === 'GOOGLE') return 'googleAuth';
  if (factor.factorType === 'email' && factor.provider === 'OKTA') return 'email';
  return undefined;
}

function notSetUp(type: FactorName): HttpError {
  return refusal(API_ERRORS.factorState, `${FACTOR_LABELS[type]} is not set up`);
}

/** The code as typed, without spaces; undefined when it cannot be a code (Okta is not asked). */
function normaliseCode(code: string): string | undefined {
  const digits = code.replace(/\s+/g, '');
  return /^\d{6,8}$/.test(digits) ? digits : undefined;
}
