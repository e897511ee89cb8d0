/**
 * The factors page's state (spec sections 3 and 4): the factors data and its tracked count, each kind's view
 * (enrolment, switch, busy), and the confirmation dialog. Kinds differ only through their descriptors (kinds/).
 */
import type { FactorTurnOff } from 'shared-auth';
import { enrolmentReducer, type EnrolmentAction, type EnrolmentStatus } from './enrolment.js';
import { countActive, type FactorsData } from './factors.js';
import {
  factorKind,
  perKind,
  type AccountFacts,
  type CodeSentFirstKind,
  type FactorKind,
} from './kinds/index.js';

export interface FactorView {
  enrolment: EnrolmentStatus;
  /** The switch was turned on for a factor that is not set up: its enrolment form shows. */
  enrolling: boolean;
  /** A toggle or removal is under way. */
  busy: boolean;
  /** Kept while the factor is turned off, so turning it back on shows its date again. */
  enrolledDate: string | null;
  /** What turning it off does, as the server said: keeps it set up (the spec), or removes it (Okta mode). */
  turnOff: FactorTurnOff;
  /**
   * The set-up shows to finish what the holder started before 'Sign in again': a kind whose set-up sends a code
   * first sends it by itself (the send was the call that asked for the new sign-in).
   */
  sendOnShow: boolean;
}

export type ConfirmDialog =
  | { kind: 'turnOff'; factor: FactorKind; turnOff: FactorTurnOff }
  | { kind: 'remove'; factor: FactorKind }
  | null;

export interface FactorsState {
  data: FactorsData;
  /** Tracked count of active factors (spec section 3). */
  factorsCount: number;
  /** Each registered kind's view. */
  views: Record<FactorKind, FactorView>;
  dialog: ConfirmDialog;
}

export type FactorsAction =
  | {
      type: 'DETAILS_LOADED';
      factor: FactorKind;
      active: boolean;
      enrolled: boolean;
      enrolledDate: string | null;
      maskedEmail: string;
      /** The details' `turnOff`; a server of the spec sends none ('keeps'). */
      turnOff: FactorTurnOff;
    }
  | { type: 'DETAILS_FAILED'; factor: FactorKind }
  /** The switch turned on; `resumed`: by the page, finishing what was started before 'Sign in again'. */
  | { type: 'SWITCH_ON'; factor: FactorKind; resumed?: boolean }
  | { type: 'SWITCH_OFF'; factor: FactorKind }
  | { type: 'OPT_IN_SUCCEEDED'; factor: FactorKind; enrolledDate: string | null; maskedEmail: string }
  | { type: 'REMOVE'; factor: FactorKind }
  | { type: 'DIALOG_CANCEL' }
  | { type: 'DIALOG_CONFIRM' }
  | { type: 'OPT_OUT_SUCCEEDED'; factor: FactorKind }
  | { type: 'RESET_SUCCEEDED'; factor: FactorKind }
  | { type: 'CODE_SENT'; factor: CodeSentFirstKind }
  | { type: 'ACTIVATED'; factor: FactorKind; enrolledDate: string | null; maskedEmail: string }
  /** A toggle, removal or enrolment call failed (not a wrong code): the factor's error view. */
  | { type: 'FAILED'; factor: FactorKind }
  /** Turning the factor on was given up ("Confirm it's you" cancelled): it stays off, with no error. */
  | { type: 'TURN_ON_CANCELLED'; factor: FactorKind };

const initialView: FactorView = {
  enrolment: 'INITIAL',
  enrolling: false,
  busy: false,
  enrolledDate: null,
  turnOff: 'keeps',
  sendOnShow: false,
};

export const initialFactorsState: FactorsState = {
  data: {},
  factorsCount: 0,
  views: perKind(() => initialView),
  dialog: null,
};

function withView(
  state: FactorsState,
  factor: FactorKind,
  change: Partial<FactorView>,
  enrolment?: EnrolmentAction,
) {
  const view = state.views[factor];
  const next = enrolment ? enrolmentReducer(factor, view.enrolment, enrolment) : view.enrolment;
  return { ...state, views: { ...state.views, [factor]: { ...view, ...change, enrolment: next } } };
}

/** The data with the factor's entry set: its status and date, and what its kind keeps of the account. */
function setEntry(
  data: FactorsData,
  factor: FactorKind,
  active: boolean,
  enrolledDate: string | null,
  account: AccountFacts,
): FactorsData {
  const status = active ? ('ACTIVE' as const) : ('INACTIVE' as const);
  const entry = { status, enrolledDate, ...factorKind(factor).entryDetail(account) };
  // A computed key loses the link between the kind and its detail; the descriptor's entryDetail keeps it.
  return { ...data, [factor]: entry } as FactorsData;
}

function withoutEntry(data: FactorsData, factor: FactorKind): FactorsData {
  const next = { ...data };
  delete next[factor];
  return next;
}

const isOn = (state: FactorsState, factor: FactorKind) => state.data[factor]?.status === 'ACTIVE';
/** Whether the kind has an entry with these details (some kinds are listed before they are set up). */
const isListed = (factor: FactorKind, active: boolean, enrolled: boolean) =>
  factorKind(factor).listedBeforeEnrolment || active || enrolled;

export function factorsReducer(state: FactorsState, action: FactorsAction): FactorsState {
  switch (action.type) {
    case 'DETAILS_LOADED': {
      const { factor, active, enrolled, enrolledDate, maskedEmail, turnOff } = action;
      const data = isListed(factor, active, enrolled)
        ? setEntry(state.data, factor, active, enrolledDate, { maskedEmail })
        : state.data;
      const next = withView(
        { ...state, data },
        factor,
        { enrolledDate, turnOff },
        { type: 'DETAILS_LOADED', active, enrolled },
      );
      return { ...next, factorsCount: countActive(data) };
    }
    case 'DETAILS_FAILED':
    case 'FAILED':
      return withView({ ...state, dialog: null }, action.factor, { busy: false }, { type: 'FAILED' });
    case 'SWITCH_ON': {
      const view = state.views[action.factor];
      if (view.busy || isOn(state, action.factor)) return state;
      // Set up already (turned off): opt-in. Not set up: the enrolment form shows.
      if (view.enrolment === 'ACTIVE') return withView(state, action.factor, { busy: true });
      const sendOnShow =
        action.resumed === true && factorKind(action.factor).enrolmentStart === 'codeSentFirst';
      return withView(state, action.factor, { enrolling: true, sendOnShow });
    }
    case 'OPT_IN_SUCCEEDED': {
      const view = state.views[action.factor];
      const enrolledDate = action.enrolledDate ?? view.enrolledDate;
      // The opt-in answers no detail, and a factor turned off has left the data: its detail comes from the account.
      return {
        ...withView(state, action.factor, { busy: false, enrolledDate }),
        data: setEntry(state.data, action.factor, true, enrolledDate, { maskedEmail: action.maskedEmail }),
        factorsCount: state.factorsCount + 1,
      };
    }
    case 'SWITCH_OFF':
      if (isOn(state, action.factor)) {
        const { turnOff } = state.views[action.factor];
        return { ...state, dialog: { kind: 'turnOff', factor: action.factor, turnOff } };
      }
      if (state.views[action.factor].enrolling) return withView(state, action.factor, { enrolling: false });
      return state;
    case 'REMOVE':
      return { ...state, dialog: { kind: 'remove', factor: action.factor } };
    case 'TURN_ON_CANCELLED':
      return withView(state, action.factor, { busy: false, enrolling: false });
    case 'DIALOG_CANCEL':
      return { ...state, dialog: null };
    case 'DIALOG_CONFIRM':
      return state.dialog ? withView({ ...state, dialog: null }, state.dialog.factor, { busy: true }) : state;
    case 'OPT_OUT_SUCCEEDED':
      // Where off removes (Okta mode), the factor is gone as after removal: it can be set up again.
      if (state.views[action.factor].turnOff === 'removes')
        return factorsReducer(state, { type: 'RESET_SUCCEEDED', factor: action.factor });
      // The factor leaves the data (no longer active); it stays set up and can be turned back on.
      return {
        ...withView(state, action.factor, { busy: false }),
        data: withoutEntry(state.data, action.factor),
        factorsCount: state.factorsCount - 1,
      };
    case 'RESET_SUCCEEDED': {
      const wasOn = isOn(state, action.factor);
      return {
        ...withView(
          state,
          action.factor,
          { busy: false, enrolling: false, enrolledDate: null },
          { type: 'REMOVED' },
        ),
        data: withoutEntry(state.data, action.factor),
        factorsCount: state.factorsCount - (wasOn ? 1 : 0),
      };
    }
    case 'CODE_SENT':
      return withView(state, action.factor, {}, { type: 'CODE_SENT' });
    case 'ACTIVATED': {
      const { factor, enrolledDate, maskedEmail } = action;
      return {
        ...withView(state, factor, { enrolling: false, enrolledDate }, { type: 'ACTIVATED' }),
        data: setEntry(state.data, factor, true, enrolledDate, { maskedEmail }),
        factorsCount: state.factorsCount + 1,
      };
    }
  }
}
