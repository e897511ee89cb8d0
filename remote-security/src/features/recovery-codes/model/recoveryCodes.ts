/**
 * The Security page's recovery-codes section (issue 20): its view, the server's status, and the set just made,
 * which the "Save your recovery codes" dialog shows once. The server decides (whether codes can be used here,
 * whether a 2-step method is on, step-up); this state only drives the section.
 */
import { RECOVERY_CODES_LOW, type RecoveryCodesGenerated, type RecoveryCodesStatus } from 'shared-auth';

/**
 * - LOADING: the status is being read (at the start, again after a factor change);
 * - READY: the status shows, with its button;
 * - CONFIRM_NEW: 'Generate new codes' asks first (the old set stops working);
 * - GENERATING: the call is under way;
 * - SAVING: the new set shows in its dialog, which stays until the holder says it is saved;
 * - ERROR: the status could not be read, or the codes could not be made.
 */
export type RecoveryCodesView = 'LOADING' | 'READY' | 'CONFIRM_NEW' | 'GENERATING' | 'SAVING' | 'ERROR';

export interface RecoveryCodesState {
  view: RecoveryCodesView;
  /** The server's last word: available here, codes left of the set, when it was made. */
  status?: RecoveryCodesStatus;
  /** Generate was refused for want of a 2-step method turned on (until the status is read again). */
  noActiveFactor: boolean;
  /** The set just made: only while its dialog shows (SAVING). Never kept, never shown again. */
  generated?: RecoveryCodesGenerated;
  /** 'I have saved my recovery codes' is ticked. */
  saved: boolean;
}

export type RecoveryCodesAction =
  | { type: 'LOAD' }
  | { type: 'LOADED'; status: RecoveryCodesStatus }
  | { type: 'LOAD_FAILED' }
  /** 'Generate recovery codes', or 'Generate new codes' (which asks first). */
  | { type: 'GENERATE' }
  | { type: 'CONFIRM' }
  | { type: 'CANCEL' }
  /** Generate again, once step-up is done: it was asked for (and confirmed) before the step-up screens. */
  | { type: 'GENERATE_AFTER_STEP_UP' }
  | { type: 'GENERATED'; generated: RecoveryCodesGenerated }
  /** 409 no_active_factor / recovery_codes_unavailable: the section says why instead of an error. */
  | { type: 'GENERATE_REFUSED'; reason: 'noActiveFactor' | 'unavailable' }
  /** 403 step_up_required: the page runs the step-up screens (and this section starts again after them). */
  | { type: 'STEP_UP_REQUIRED' }
  | { type: 'GENERATE_FAILED' }
  | { type: 'SAVED_CHANGED'; saved: boolean }
  /** Done in the dialog, which only closes once the codes are saved. */
  | { type: 'DONE' };

export const initialRecoveryCodesState: RecoveryCodesState = {
  view: 'LOADING',
  noActiveFactor: false,
  saved: false,
};

/** A set exists (made and not removed with the last 2-step method). */
export function hasCodes(status: RecoveryCodesStatus | undefined): boolean {
  return status !== undefined && status.generatedAt !== null && status.total > 0;
}

/** At RECOVERY_CODES_LOW codes left or fewer, the page warns. */
export function isLow(status: RecoveryCodesStatus | undefined): boolean {
  return status !== undefined && hasCodes(status) && status.left <= RECOVERY_CODES_LOW;
}

export function recoveryCodesReducer(
  state: RecoveryCodesState,
  action: RecoveryCodesAction,
): RecoveryCodesState {
  switch (state.view) {
    case 'LOADING':
      if (action.type === 'LOADED')
        return { ...state, view: 'READY', status: action.status, noActiveFactor: false };
      if (action.type === 'LOAD_FAILED') return { ...state, view: 'ERROR' };
      return state;
    case 'READY':
      if (action.type === 'LOAD') return { ...state, view: 'LOADING' };
      if (state.status?.available !== true || state.noActiveFactor) return state;
      if (action.type === 'GENERATE')
        return { ...state, view: hasCodes(state.status) ? 'CONFIRM_NEW' : 'GENERATING' };
      if (action.type === 'GENERATE_AFTER_STEP_UP') return { ...state, view: 'GENERATING' };
      return state;
    case 'CONFIRM_NEW':
      if (action.type === 'CONFIRM') return { ...state, view: 'GENERATING' };
      if (action.type === 'CANCEL') return { ...state, view: 'READY' };
      return state;
    case 'GENERATING':
      switch (action.type) {
        case 'GENERATED':
          return { ...state, view: 'SAVING', generated: action.generated, saved: false };
        case 'GENERATE_REFUSED':
          return action.reason === 'noActiveFactor'
            ? { ...state, view: 'READY', noActiveFactor: true }
            : { ...state, view: 'READY', status: { available: false, left: 0, total: 0, generatedAt: null } };
        case 'STEP_UP_REQUIRED':
          return { ...state, view: 'READY' };
        case 'GENERATE_FAILED':
          return { ...state, view: 'ERROR' };
        default:
          return state;
      }
    case 'SAVING':
      if (action.type === 'SAVED_CHANGED') return { ...state, saved: action.saved };
      if (action.type === 'DONE' && state.saved && state.generated) {
        const { codes, generatedAt } = state.generated;
        // The new set, as the status will say it; the codes themselves are dropped.
        return {
          view: 'READY',
          status: { available: true, left: codes.length, total: codes.length, generatedAt },
          noActiveFactor: false,
          saved: false,
        };
      }
      return state;
    case 'ERROR':
      return action.type === 'LOAD' ? { ...state, view: 'LOADING' } : state;
  }
}

const SHORT_DATE = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric' });

/** A date in en-US short form (Mar 7, 2026), as the factors' 'Added {date}'; '' when unreadable. */
export function shortDate(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : SHORT_DATE.format(date);
}

/** '{n} of 10 codes left · generated {date}' */
export function codesLeftLabel(status: RecoveryCodesStatus): string {
  const date = shortDate(status.generatedAt);
  return `${status.left} of ${status.total} codes left${date ? ` · generated ${date}` : ''}`;
}

/** The warning at RECOVERY_CODES_LOW codes left or fewer. */
export function lowCodesWarning(left: number): string {
  const count =
    left === 0 ? 'No recovery codes' : left === 1 ? 'Only 1 recovery code' : `Only ${left} recovery codes`;
  return `${count} left. Generate new ones so you don't get locked out.`;
}

/** The downloaded file's name. */
export const CODES_FILE_NAME = 'recovery-codes.txt';

/** The downloaded file: whose codes, when they were made, the codes one per line. */
/** What a saved copy says above the codes (the file, the printed sheet): whose, when, and how they work. */
export function codesHeading(email: string, generated: RecoveryCodesGenerated): string[] {
  return [
    `Recovery codes for ${email}`,
    `Generated ${shortDate(generated.generatedAt) || generated.generatedAt}`,
    'Each code works once.',
  ];
}

export function codesFileText(email: string, generated: RecoveryCodesGenerated): string {
  return [...codesHeading(email, generated), '', ...generated.codes, ''].join('\n');
}
