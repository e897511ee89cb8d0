/**
 * The Security page's Passkeys section: the holder's passkeys, adding one (the server's options, the browser's
 * ceremony, the server's check, then a name), renaming and removing. The server decides (step-up, the last 2-step
 * method, what a name may be); this state only drives the section.
 */
import {
  API_ERROR_CODES,
  isApiError,
  passkeyRenameBodySchema,
  type Passkey,
  type PasskeyList,
} from 'shared-auth';
import { classifyFailure } from 'shared-auth/async';
import { ceremonyFailureOf } from 'shared-stepup';
import { PASSKEYS_TEXTS as TEXTS } from './texts.js';

/**
 * - LOADING: the list is being read;
 * - READY: the list shows, with its buttons (and the last add's or remove's message, if any);
 * - ERROR: the list could not be read;
 * - ADDING: the server's options, the browser's ceremony, the server's check of its answer;
 * - CREATE_READY: the options came after a verification (step-up, "Confirm it's you", a new sign-in), so the
 *   ceremony waits for the holder's click in 'Create your passkey' (Safari refuses one without a fresh gesture);
 * - NAMING: the name dialog, for the passkey just added (Skip keeps the server's name) or a rename (Cancel);
 * - SAVING_NAME: the name is being sent;
 * - CONFIRM_REMOVE: 'Remove this passkey?';
 * - REMOVING: the removal is under way.
 */
export type PasskeysView =
  | 'LOADING'
  | 'READY'
  | 'ERROR'
  | 'ADDING'
  | 'CREATE_READY'
  | 'NAMING'
  | 'SAVING_NAME'
  | 'CONFIRM_REMOVE'
  | 'REMOVING';

export interface PasskeysState {
  view: PasskeysView;
  /** The server's last word on the holder's passkeys. */
  list?: PasskeyList;
  /** The passkey a dialog is (or was last) about: named, renamed or removed. Where the focus goes back. */
  target?: string;
  /** Who opened the name dialog: the passkey just added, or Rename. */
  naming?: 'NEW' | 'RENAME';
  /** The section's message after an add, a rename or a removal that did not happen. */
  notice?: string;
  /** A name the server refused, under the dialog's field. */
  nameError?: string;
}

export type PasskeysAction =
  | { type: 'LOAD' }
  | { type: 'LOADED'; list: PasskeyList }
  | { type: 'LOAD_FAILED' }
  /** 'Add a passkey' (again by itself after the step-up it asked for). */
  | { type: 'ADD' }
  /** The options came after a verification: the ceremony waits for 'Create passkey'. */
  | { type: 'READY_TO_CREATE' }
  /** 'Create passkey': the ceremony starts, on the holder's click. */
  | { type: 'CREATE' }
  /** Cancel in 'Create your passkey': nothing added. */
  | { type: 'CANCEL_CREATE' }
  | { type: 'ADDED'; passkey: Passkey }
  /** The ceremony or a call failed: the section says why. */
  | { type: 'ADD_FAILED'; notice: string }
  /** Nothing to say: "Confirm it's you" was cancelled, or the page runs the step-up screens. */
  | { type: 'ADD_STOPPED' }
  | { type: 'RENAME'; id: string }
  | { type: 'SAVE_NAME' }
  | { type: 'NAME_SAVED'; passkey: Passkey }
  /** A name the server refused (400): under the field, the dialog stays. */
  | { type: 'NAME_REFUSED'; error: string }
  /** Any other failure: the dialog closes and the section says why. */
  | { type: 'NAME_FAILED'; notice: string }
  /** Skip (a new passkey keeps the server's name) or Cancel (a rename). */
  | { type: 'CLOSE_NAME' }
  | { type: 'REMOVE'; id: string }
  | { type: 'CANCEL_REMOVE' }
  | { type: 'CONFIRM_REMOVE' }
  /** The removal confirmed before the step-up it asked for: again by itself, no second confirmation. */
  | { type: 'REMOVE_AFTER_STEP_UP'; id: string }
  | { type: 'REMOVED'; list: PasskeyList }
  /** 409 last_factor and other refusals: the section shows the server's text. */
  | { type: 'REMOVE_FAILED'; notice: string }
  /** The page runs the step-up screens. */
  | { type: 'REMOVE_STOPPED' };

export const initialPasskeysState: PasskeysState = { view: 'LOADING' };

/** The section shows (the identity backend can hold passkeys for the portal). */
export const isAvailable = (list: PasskeyList | undefined): boolean => list?.available === true;

/** 'Add a passkey' runs the browser's ceremony here; 'hosted': the identity provider's page adds them instead. */
export const canAddHere = (list: PasskeyList | undefined): boolean =>
  isAvailable(list) && list?.enrolment === 'ceremony';

/**
 * What 'Add a passkey' does: the ceremony here; or (hosted, Okta mode) a plain navigation to the identity
 * provider's enrolment page, which sends the holder back to the Security page; null: no Add (hosted, no page).
 */
export function addMode(
  list: PasskeyList | undefined,
): { type: 'ceremony' } | { type: 'hosted'; url: string } | null {
  if (canAddHere(list)) return { type: 'ceremony' };
  if (isAvailable(list) && list?.enrolment === 'hosted' && list.hostedEnrolmentUrl)
    return { type: 'hosted', url: list.hostedEnrolmentUrl };
  return null;
}

const has = (list: PasskeyList | undefined, id: string) =>
  list?.passkeys.some((passkey) => passkey.id === id);

const withPasskey = (list: PasskeyList, passkey: Passkey): PasskeyList => ({
  ...list,
  passkeys: has(list, passkey.id)
    ? list.passkeys.map((each) => (each.id === passkey.id ? passkey : each))
    : [...list.passkeys, passkey],
});

/** Back to the list, keeping `target` (where the focus goes back) and no dialog state. */
function ready(state: PasskeysState, changes: Partial<PasskeysState> = {}): PasskeysState {
  const next: PasskeysState = { ...state, view: 'READY', ...changes };
  delete next.naming;
  delete next.nameError;
  return next;
}

/** A new action of the holder's: the last message goes. */
function acting(state: PasskeysState, changes: Partial<PasskeysState>): PasskeysState {
  const next: PasskeysState = { ...state, ...changes };
  delete next.notice;
  return next;
}

export function passkeysReducer(state: PasskeysState, action: PasskeysAction): PasskeysState {
  switch (state.view) {
    case 'LOADING':
      if (action.type === 'LOADED') return ready(state, { list: action.list });
      if (action.type === 'LOAD_FAILED') return { ...state, view: 'ERROR' };
      return state;
    case 'ERROR':
      return action.type === 'LOAD' ? { ...state, view: 'LOADING' } : state;
    case 'READY':
      switch (action.type) {
        case 'LOAD':
          return { ...state, view: 'LOADING' };
        case 'ADD':
          return canAddHere(state.list) ? acting(state, { view: 'ADDING' }) : state;
        case 'RENAME':
          return state.list?.canRename && has(state.list, action.id)
            ? acting(state, { view: 'NAMING', naming: 'RENAME', target: action.id })
            : state;
        case 'REMOVE':
          return has(state.list, action.id)
            ? acting(state, { view: 'CONFIRM_REMOVE', target: action.id })
            : state;
        case 'REMOVE_AFTER_STEP_UP':
          return has(state.list, action.id) ? acting(state, { view: 'REMOVING', target: action.id }) : state;
        default:
          return state;
      }
    case 'ADDING':
      switch (action.type) {
        case 'ADDED': {
          const list = state.list ? withPasskey(state.list, action.passkey) : state.list;
          // Where the backend keeps no names of ours, the new passkey keeps the one it has.
          return state.list?.canRename
            ? { ...state, view: 'NAMING', naming: 'NEW', target: action.passkey.id, list }
            : ready(state, { target: action.passkey.id, ...(list ? { list } : {}) });
        }
        case 'ADD_FAILED':
          return ready(state, { notice: action.notice });
        case 'ADD_STOPPED':
          return ready(state);
        case 'READY_TO_CREATE':
          return { ...state, view: 'CREATE_READY' };
        default:
          return state;
      }
    case 'CREATE_READY':
      if (action.type === 'CREATE') return { ...state, view: 'ADDING' };
      if (action.type === 'CANCEL_CREATE') return ready(state);
      return state;
    case 'NAMING':
      if (action.type === 'SAVE_NAME') {
        const next: PasskeysState = { ...state, view: 'SAVING_NAME' };
        delete next.nameError;
        return next;
      }
      if (action.type === 'CLOSE_NAME') return ready(state);
      return state;
    case 'SAVING_NAME':
      switch (action.type) {
        case 'NAME_SAVED':
          return ready(state, state.list ? { list: withPasskey(state.list, action.passkey) } : {});
        case 'NAME_REFUSED':
          return { ...state, view: 'NAMING', nameError: action.error };
        case 'NAME_FAILED':
          return ready(state, { notice: action.notice });
        default:
          return state;
      }
    case 'CONFIRM_REMOVE':
      if (action.type === 'CONFIRM_REMOVE') return { ...state, view: 'REMOVING' };
      if (action.type === 'CANCEL_REMOVE') return ready(state);
      return state;
    case 'REMOVING':
      switch (action.type) {
        case 'REMOVED':
          return ready(state, { list: action.list });
        case 'REMOVE_FAILED':
          return ready(state, { notice: action.notice });
        case 'REMOVE_STOPPED':
          return ready(state);
        default:
          return state;
      }
  }
}

/** The passkey a dialog is about. */
export function targetOf(state: PasskeysState): Passkey | undefined {
  return state.list?.passkeys.find((passkey) => passkey.id === state.target);
}

const SHORT_DATE = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric' });

/** A date in en-US short form (Mar 7, 2026), as the factors' 'Added {date}'; '' when unreadable. */
export function shortDate(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : SHORT_DATE.format(date);
}

/** 'Added {date}' · 'Last used {date}' or 'Never used' */
export function passkeyDates(passkey: Passkey): { added: string; used: string } {
  const created = shortDate(passkey.createdAt);
  const used = shortDate(passkey.lastUsedAt);
  return {
    added: created ? `Added ${created}` : '',
    used: passkey.lastUsedAt === null ? TEXTS.neverUsed : used ? `Last used ${used}` : '',
  };
}

/** What the name dialog says of a name before sending it (the contract's rule: required, at most 64). */
export function nameError(name: string): string | undefined {
  const checked = passkeyRenameBodySchema.safeParse({ name });
  return checked.success ? undefined : checked.error.issues[0]?.message;
}

/** The name as the server keeps it. */
export const cleanName = (name: string) => name.trim();

/**
 * What the section says when adding a passkey fails: the browser's cancel or time-out; an authenticator that
 * cannot verify the holder, or a passkey the server refused (its text); one already on this device; the server's
 * text for any other refusal (too many passkeys, a wait); otherwise the page's generic error.
 */
export function addFailureNotice(error: unknown): string {
  switch (ceremonyFailureOf(error)) {
    case 'cancelled':
      return TEXTS.addCancelled;
    case 'already_registered':
      return TEXTS.alreadyRegistered;
    case 'unverified':
    case 'other':
      return TEXTS.unverified;
    case undefined:
      break;
  }
  if (isApiError(error) && error.code === API_ERROR_CODES.passkeyRefused)
    return error.message || TEXTS.unverified;
  return callFailureNotice(error);
}

/** A rename's or a removal's failure (409 last_factor among them): the server's text, else the generic error. */
export function callFailureNotice(error: unknown): string {
  const failure = classifyFailure(error);
  switch (failure.kind) {
    case 'throttled':
    case 'refused':
    case 'invalid_code':
      return failure.message;
    default:
      return TEXTS.unexpectedError;
  }
}
