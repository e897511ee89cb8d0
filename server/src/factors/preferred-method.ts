/**
 * The preferred 2-step method (issue 22): the one the sign-in's 2-step page and the step-up screens open with,
 * chosen on the Security page ("Use by default"). It counts only while it is one of the methods the step-up offers
 * the account (its `activeFactorsData`); turning it off or removing it forgets it, and the fixed order
 * (authenticator app, email, passkey) applies again.
 */
import {
  API_ERRORS,
  PREFERRED_METHODS,
  type ActiveFactorsData,
  type PreferredMethod,
} from 'shared-auth/contract';
import { refusal } from '../http/errors.js';
import type { Storage } from '../storage/index.js';
import type { Actor } from './actor.js';

/** The refusal of a method that is not active: it cannot lead the sign-in. */
export const PREFERRED_METHOD_NOT_ACTIVE =
  'This 2-step method is not turned on for your account, so it cannot be your default.';

/** The methods the step-up offers, in the fixed order (what applies when the holder chose none). */
export function offeredMethods(data: ActiveFactorsData): PreferredMethod[] {
  return PREFERRED_METHODS.filter((method) => data[method] !== undefined);
}

/** The stored choice while the step-up offers it; undefined otherwise (the fixed order then). */
export function preferredAmong(
  stored: PreferredMethod | undefined,
  data: ActiveFactorsData,
): PreferredMethod | undefined {
  return stored !== undefined && offeredMethods(data).includes(stored) ? stored : undefined;
}

/**
 * In the transaction of a change that turned `method` off or removed it (the last passkey, for `passkey`): it is no
 * default any more, so a method set up again later does not come back as the default by itself.
 */
export async function forgetPreferredMethod(
  tx: Storage,
  userId: string,
  method: PreferredMethod,
): Promise<void> {
  await tx.preferredMethods.clear(userId, method);
}

export interface PreferredMethodsOptions {
  storage: Storage;
  /**
   * The step-up every 2-step change needs, the passkeys the portal does not hold included (Okta's):
   * PasskeyService.requireStepUp.
   */
  requireStepUp: (actor: Actor) => Promise<void>;
  /** The methods the step-up offers the account now (PasskeyService.challenge's `activeFactorsData`). */
  activeMethods: (actor: Actor) => Promise<ActiveFactorsData>;
  now: () => number;
}

/**
 * Choosing the account's default method (PUT /api/v1/users/:sub/multifactor/preferred). Reading it is the step-up's
 * (StepUpService.preferredMethod): the challenge and the sign-in's 2-step page.
 */
export class PreferredMethods {
  constructor(private readonly options: PreferredMethodsOptions) {}

  /**
   * "Use by default": under step-up (403 step_up_required without this session's grant), and only for a method
   * the step-up offers now (409 factor_state otherwise). Parallel choices: the last one stored wins. A method
   * removed between the check and the write is never offered as the default (StepUpService.preferredMethod reads it against the methods).
   */
  async choose(actor: Actor, method: PreferredMethod): Promise<PreferredMethod> {
    const { storage, requireStepUp, activeMethods, now } = this.options;
    await requireStepUp(actor);
    if (!offeredMethods(await activeMethods(actor)).includes(method)) {
      throw refusal(API_ERRORS.factorState, PREFERRED_METHOD_NOT_ACTIVE);
    }
    await storage.preferredMethods.set(actor.user.id, method, now());
    return method;
  }
}
