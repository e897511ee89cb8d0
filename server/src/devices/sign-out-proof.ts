/**
 * The proof a sign-out from the Devices list needs: the holder's step-up (their 2-step methods, passkeys counted).
 * A federated account (Okta mode, where the page is theirs) cannot use the portal's step-up screens: /stepup refuses
 * them (spec section 6). Their organization's sign-in is what asks for their methods, so a sign-in within the
 * step-up window is their proof; without one, 403 reauthentication_required ('sign-in') says to sign in again.
 */
import { API_ERROR_CODES, REAUTHENTICATION_REQUIRED_ERROR, STEP_UP_TTL_MS } from 'shared-auth/contract';
import { HttpError } from '../http/errors.js';
import type { Actor } from '../factors/actor.js';

export const FEDERATED_SIGN_IN_AGAIN_ERROR = `${REAUTHENTICATION_REQUIRED_ERROR}: your 2-step verification is managed by your organization. Sign in again, then sign out your devices within 5 minutes.`;

export function signOutProof(
  requireStepUp: (actor: Actor) => Promise<void>,
  now: () => number,
): (actor: Actor) => Promise<void> {
  return async (actor) => {
    if (!actor.user.isFederated) return requireStepUp(actor);
    const recentSignIn = actor.signedInAt !== undefined && now() - actor.signedInAt <= STEP_UP_TTL_MS;
    if (recentSignIn) return;
    try {
      await requireStepUp(actor);
    } catch (error) {
      if (!(error instanceof HttpError) || error.code !== API_ERROR_CODES.stepUpRequired) throw error;
      throw new HttpError(403, FEDERATED_SIGN_IN_AGAIN_ERROR, {}, API_ERROR_CODES.reauthenticationRequired, {
        proof: 'sign-in',
      });
    }
  };
}
