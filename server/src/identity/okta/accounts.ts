/** The Okta backend's accounts: the org's users (Management API), read through a short per-instance cache. */
import type { UserProfile } from '@okta/okta-sdk-nodejs';
import { API_ERRORS } from 'shared-auth/contract';
import { refusal } from '../../http/errors.js';
import type { ProfileChanges, User } from '../../storage/users.js';
import type { IdentityAccounts } from '../accounts.js';
import { UserCache } from '../user-cache.js';
import { iso, isStatus, notFound, requireId } from './answers.js';
import { causesOf, type OktaOrg } from './client.js';

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

export class OktaAccounts implements IdentityAccounts {
  private readonly federatedAttribute: string | undefined;
  private readonly users: UserCache;

  constructor(
    private readonly org: OktaOrg,
    options: OktaIdentityOptions = {},
  ) {
    this.federatedAttribute = options.federatedAttribute;
    this.users = new UserCache(options.now ?? Date.now, options.userCacheTtlMs);
  }

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
   * Ends the user's Okta sessions and, with `oauthTokens`, revokes the OAuth tokens Okta issued to them (refresh
   * and access tokens of every app). Okta cannot spare one session: this also ends the caller's own Okta session
   * and the portal's tokens, so the caller is signed out too. The portal's own records (its sessions, step-up
   * grants) are not touched here. Called only by the Devices list's "sign out everywhere" (IdentityAccounts'
   * endAllSessions): a password or factor change keeps the caller signed in, and so leaves Okta's sessions alone
   * (README, "Embedded mode and Okta mode").
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
}
