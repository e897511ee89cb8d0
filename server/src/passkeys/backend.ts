/**
 * Where the holder's passkeys live and who checks their ceremonies: the backend behind PasskeyService. The
 * embedded one keeps them in the portal's storage and verifies every answer itself (embedded-backend.ts); the Okta
 * one keeps them as the org's `webauthn` factors and has Okta verify (okta-backend.ts). The rules around them (the
 * step-up and "Confirm it's you", the wrong-code throttle, the grant, the last-method rule, the cap, ending the
 * other sessions and the notice) are the service's, the same for both.
 */
import type { Passkey, PasskeyList } from 'shared-auth/contract';
import type { Actor } from '../factors/actor.js';
import type { Storage } from '../storage/index.js';
import type { User } from '../storage/users.js';

/** A WebAuthn answer as the contract's bodies carry it (outer shape checked; the rest is verified by the backend). */
export type PasskeyAnswer = { id: string } & Record<string, unknown>;

/** WebAuthn's JSON options (what @simplewebauthn/browser's startRegistration / startAuthentication take). */
export type WebAuthnOptionsJson = { challenge: string } & Record<string, unknown>;

/** A registration the backend accepted: `commit` stores it in the service's write transaction (Okta: nothing left). */
export interface PasskeyRegistration {
  /** The new passkey's name, for the notice. */
  name: string;
  commit(tx: Storage): Promise<Passkey>;
}

/** A verified assertion: `commit` records its use in the service's write transaction; false: a racing use won. */
export interface PasskeyAssertion {
  /** The passkey's holder. */
  userId: string;
  commit(tx: Storage): Promise<boolean>;
}

/** A passkey about to be removed: its name (for the notice) and whether it counted as an active method. */
export interface PasskeyRemoval {
  name: string;
  counted: boolean;
}

export interface PasskeyBackend {
  readonly kind: 'embedded' | 'okta';
  /**
   * Whether the passkeys are the portal's storage's (storage.passkeys): the factors' rules (StepUpService) count
   * them there already, and the removal runs in the portal's write transaction. False (Okta): the service counts
   * them through `countUsable` and removes them outside any transaction.
   */
  readonly inStorage: boolean;
  /** Whether the holder may rename one (false: Okta keeps its own names, from the authenticator's metadata). */
  readonly canRename: boolean;
  /** Whether a step-up with a passkey can run on the portal's pages (Okta: only when its RP ID covers them). */
  readonly stepUp: boolean;
  /** How "Add a passkey" works: the ceremony on the page, or the identity provider's hosted page (its URL). */
  enrolment(): Promise<Pick<PasskeyList, 'enrolment' | 'hostedEnrolmentUrl'>>;
  /** The holder's passkeys, oldest first. */
  list(userId: string): Promise<Passkey[]>;
  /** The holder's passkeys that count as active 2-step methods (`within`: the change's transaction, if any). */
  countUsable(userId: string, within?: Storage): Promise<number>;
  /** The options of navigator.credentials.create(), their challenge kept bound to `binding` for 5 minutes. */
  registrationOptions(user: User, binding: string): Promise<WebAuthnOptionsJson>;
  /** The browser's answer to those options, checked (challenge first); refused with 400 passkey_refused. */
  register(actor: Actor, answer: PasskeyAnswer, binding: string): Promise<PasskeyRegistration>;
  /** Renames one of the holder's passkeys (only when canRename). */
  rename(userId: string, id: string, name: string): Promise<Passkey>;
  /**
   * Removes one of the holder's passkeys: undefined when it is not the holder's. `beforeCommit` runs the
   * service's last-method rule where a refusal still undoes the removal: inside `tx` after the delete (inStorage),
   * or before the delete (Okta, no transaction spans a call to Okta).
   */
  remove(
    userId: string,
    id: string,
    tx: Storage | undefined,
    beforeCommit: (removal: PasskeyRemoval) => Promise<void>,
  ): Promise<PasskeyRemoval | undefined>;
  /**
   * The options of navigator.credentials.get() for `user`'s usable passkeys (null: any discoverable one, the
   * embedded sign-in only), the challenge bound to `binding`.
   */
  authenticationOptions(user: User | null, binding: string): Promise<WebAuthnOptionsJson>;
  /**
   * Takes the answer's challenge (bound to `binding`, issued to `userId`, or to nobody when null) and verifies
   * the answer; refused with 400 passkey_refused.
   */
  verifyAssertion(
    answer: PasskeyAnswer,
    binding: string,
    userId: string | null,
    userAgent: string | undefined,
  ): Promise<PasskeyAssertion>;
}
