/**
 * What the Security page needs to know of one kind of 2-step factor, where kinds differ: one module per kind,
 * registered in index.ts (as the server's kinds are in server/src/identity/kinds/). The reducers, rules and hooks
 * read these parts instead of branching on the kind's name, so a new kind is its descriptor, its registration and
 * its section component (components/sections.ts).
 */
import type { FactorName } from 'shared-auth';

/** A kind of factor, by the contract's name (the key of its calls, of its step-up data and of the page's state). */
export type FactorKind = FactorName;

/**
 * How the kind's set-up goes from NOT_STARTED: the code is checked in the set-up form itself and the factor is
 * active at once ('activatedAtOnce', the authenticator app), or a code is sent first and the factor waits in
 * PENDING_ACTIVATION for it ('codeSentFirst', email).
 */
export type EnrolmentStart = 'activatedAtOnce' | 'codeSentFirst';

/**
 * Which counts keep an active factor's switch from turning off (spec section 4: fewer than 2 active factors): the
 * count the page tracks, or for email either that count or the one recomputed from the data.
 */
export type LastFactorCounts = 'tracked' | 'trackedOrRecomputed';

/** What the page knows of the account that a kind may keep in its entry. */
export interface AccountFacts {
  /** The account's address as the page shows it (a....e@example.com). */
  maskedEmail: string;
}

export interface ConfirmTexts {
  title: string;
  text: string;
}

/** The kind's notices and confirmations: the product's texts (spec section 4), word for word. */
export interface FactorKindTexts {
  toasts: {
    turnedOn: string;
    turnedOff: string;
    removed: string;
    activated: string;
  };
  dialogs: {
    turnOff: ConfirmTexts;
    remove: ConfirmTexts;
  };
  /**
   * The turn-off dialog's text where turning off removes the factor (the server says `turnOff: 'removes'`: Okta
   * mode, whose sign-in has no "off" for one factor). The spec's title stays; its text would not be true there.
   */
  turnOffRemovesText: string;
}

export interface FactorKindDescriptor<N extends FactorKind = FactorKind, D extends object = object> {
  readonly name: N;
  /**
   * Whether the factors data lists the kind before it is set up (as INACTIVE): the authenticator app always has
   * an entry; email only once enrolled (spec section 3).
   */
  readonly listedBeforeEnrolment: boolean;
  readonly enrolmentStart: EnrolmentStart;
  readonly lastFactorCounts: LastFactorCounts;
  /** What the kind's entry keeps besides its status and date (email: the masked address); `{}` for none. */
  entryDetail(account: AccountFacts): D;
  readonly texts: FactorKindTexts;
}
