/** Who asks for a change of the account's password or 2-step factors, from which session and browser. */
import type { User } from '../storage/users.js';

/**
 * Who asks for a change: the user, their sign-in session (the step-up grant key, and the provider session's uid
 * that stays signed in when the others end), when it signed in, and the browser (for the notice mail).
 */
export interface Actor {
  user: User;
  grantKey: string;
  sessionUid: string | undefined;
  /**
   * Where the caller's step-up waits when a change ends its grant chain (carriedGrantKey), for the next grant
   * its provider session creates; undefined when the change leaves the caller's grant alone (Okta).
   */
  carryKey?: string | undefined;
  signedInAt: number | undefined;
  /** The caller's access token (`jti`): Okta mode spares it when a change refuses the account's older tokens. */
  tokenId?: string | undefined;
  userAgent: string | undefined;
  /** The caller's address (`request.ip`), for the account's activity (kept there coarse only). */
  ip?: string | undefined;
}
