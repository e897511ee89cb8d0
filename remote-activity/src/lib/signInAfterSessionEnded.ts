/**
 * After a call that ended every session of the account, this one included ("Sign out everywhere", "This wasn't
 * me"): the holder's tokens are dead, so the page hands them back to the sign-in. PortalAuth offers a remote two
 * ways, and no sign-out of its own: `signInAgain({ returnTo })` (a new sign-in at the identity provider, then back
 * to `returnTo` on the host's origin), and `onSessionEnded` (the host drops its tokens and signs in again, back to
 * the page it is on). The first is used when the holder must land somewhere else (the Password page); the second
 * otherwise, or when the host gave no signInAgain.
 *
 * Never both: the shell's onSessionEnded sends to sign-in with the current page as the return path, which would
 * overwrite the one signInAgain set.
 */
import type { PortalAuth } from 'shared-auth';

/** What happened: the host took over (the page leaves), or the host offers neither way (the page says so). */
export type SignInHandOver = 'LEAVING' | 'NO_WAY';

export async function signInAfterSessionEnded(
  auth: Pick<PortalAuth, 'signInAgain' | 'onSessionEnded'>,
  returnTo?: string,
): Promise<SignInHandOver> {
  const { signInAgain, onSessionEnded } = auth;
  // A return path of its own needs signInAgain; without one, the host's own way comes first.
  if (signInAgain && (returnTo !== undefined || !onSessionEnded)) {
    try {
      await signInAgain({ returnTo: returnTo ?? window.location.pathname });
      return 'LEAVING';
    } catch (error) {
      // The redirect could not start (the provider unreachable): the host's own way, if it has one.
      console.error('Sign-in could not start:', error);
    }
  }
  if (onSessionEnded) {
    onSessionEnded();
    return 'LEAVING';
  }
  return 'NO_WAY';
}
