/** The accounts part of an identity backend: reading the account, changing its profile, ending its tokens. */
import type { ProfileChanges, User } from '../storage/users.js';

export interface IdentityAccounts {
  /** The account as the backend holds it now, or undefined when the id is unknown (or may no longer act). */
  findById(userId: string): Promise<User | undefined>;

  /**
   * The account on the per-call path (the /api auth hook, on every authenticated call): `cached` when it came from
   * a short per-instance cache instead of the backend (Okta mode, so a call does not cost a Management API call);
   * a route that shows the account's data reads `findById` then.
   */
  findCaller(userId: string): Promise<{ user: User | undefined; cached: boolean }>;

  /**
   * Revokes the account's refresh tokens for these OAuth clients where the backend's authorization server keeps
   * them, leaving its sign-in sessions (Okta: DELETE /api/v1/users/{userId}/clients/{clientId}/tokens). Called
   * after a password or 2-step change, outside any transaction. Absent when the portal's own provider holds the
   * tokens (embedded: they end in the change's transaction).
   */
  revokeRefreshTokens?(userId: string, clientIds: readonly string[]): Promise<void>;

  /**
   * Ends every sign-in session of the account where the backend's sign-in keeps them, with the OAuth tokens issued
   * in them, the caller's included (Okta: DELETE /api/v1/users/{userId}/sessions?oauthTokens=true): the Devices
   * list's "sign out everywhere". Called outside any transaction. Absent when the portal's own provider holds the
   * sessions (embedded: devices/ ends them in the portal's storage).
   */
  endAllSessions?(userId: string): Promise<void>;

  /** Changes only the fields given (a partial update); the account as stored after it, undefined when unknown. */
  updateProfile(userId: string, changes: ProfileChanges): Promise<User | undefined>;
}
