import type { PasswordChangeRequest } from 'shared-auth/contract';
import type { Actor } from '../factors/actor.js';
import { changePassword, type PasswordChangeDeps, type PasswordChangeOutcome } from './change-password.js';
import { reauthenticate } from './reauthenticate.js';

/** The password rules the routes call (`app.passwords`), over one set of collaborators and one throttle. */
export interface PasswordService {
  /** PUT /api/password/:sub/change: see changePassword. */
  change(actor: Actor, request: PasswordChangeRequest): Promise<PasswordChangeOutcome>;
  /** POST /api/stepup/:sub/reauthenticate ("Confirm it's you"): see reauthenticate. */
  reauthenticate(
    actor: Actor,
    password: string,
  ): Promise<{ expiresAt: number; verifyMs: number | undefined }>;
}

export function passwordService(deps: PasswordChangeDeps): PasswordService {
  return {
    change: (actor, request) => changePassword(deps, actor, request),
    reauthenticate: (actor, password) => reauthenticate(deps, actor, password),
  };
}
