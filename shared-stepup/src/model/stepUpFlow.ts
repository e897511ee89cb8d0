import type { ActiveFactorsData, StepUpFactorType } from 'shared-auth';

/** The step-up screens' states (spec section 4), by their spec names. */
export const STEP_UP_FLOW_STATUSES = [
  'START',
  'FACTOR_SELECTION',
  'SMS_VERIFY',
  'GA_VERIFY',
  'EMAIL_VERIFY',
  /** Not in the spec: step-up with one of the holder's recovery codes (offered only when the challenge says so). */
  'RECOVERY_CODE_VERIFY',
  /** Not in the spec: step-up with one of the holder's passkeys (the challenge's `activeFactorsData.passkey`). */
  'PASSKEY_VERIFY',
  'CHALLENGE_ERROR',
] as const;
export type StepUpFlowStatus = (typeof STEP_UP_FLOW_STATUSES)[number];

export function isStepUpFlowStatus(value: unknown): value is StepUpFlowStatus {
  return typeof value === 'string' && (STEP_UP_FLOW_STATUSES as readonly string[]).includes(value);
}

export interface StepUpFlow {
  status: StepUpFlowStatus;
  /** The user's active factors, in the order the selection lists them. */
  factors: StepUpFactorType[];
  /** From START with several factors, a loading dialog shows for 0.5 s before the selection. */
  selectionLoading: boolean;
  /** The holder has unused recovery codes (the challenge's `recoveryCodes`): 'Use a recovery code' is offered. */
  recoveryCodes: boolean;
  /** The screen 'Use a recovery code' was chosen on: where Back returns to (unknown after a reload). */
  recoveryFrom?: RecoveryCodeOrigin;
  /**
   * The holder's default method (issue 22, the challenge's `preferredMethod`), when it is among `factors`: Verify
   * opens its screen directly, and 'Use another method' there leads to the selection.
   */
  preferred?: StepUpFactorType;
}

/** The screens that offer 'Use a recovery code'. */
export type RecoveryCodeOrigin =
  'FACTOR_SELECTION' | 'SMS_VERIFY' | 'GA_VERIFY' | 'EMAIL_VERIFY' | 'PASSKEY_VERIFY';

export type StepUpFlowAction =
  /** The Verify button of the start screen. */
  | { type: 'VERIFY' }
  /** The 0.5 s loading dialog is over. */
  | { type: 'SELECTION_LOADED' }
  | { type: 'SELECT'; factor: StepUpFactorType }
  | { type: 'BACK' }
  | { type: 'CANCEL' }
  | { type: 'EMAIL_SEND_FAILED' }
  /** 'Use a recovery code' on the selection or a code screen. */
  | { type: 'USE_RECOVERY_CODE' }
  /** 'Use another method' on the default method's screen: the selection of every method. */
  | { type: 'OTHER_METHODS' }
  /** 'Try again' on the error screen: back to the start (with factors; without, the page checks again). */
  | { type: 'RETRY' };

/** The loading dialog before the factor selection (spec section 9). */
export const SELECTION_LOADING_MS = 500;

// A passkey, not in the spec, comes after the spec's factors.
const FACTOR_ORDER: StepUpFactorType[] = ['googleAuth', 'email', 'sms', 'passkey'];

/**
 * The active factors in the order the selection lists them: the fixed order, with the holder's default method
 * (`preferred`, when active) first.
 */
export function factorsOf(data: ActiveFactorsData, preferred?: StepUpFactorType): StepUpFactorType[] {
  const active = FACTOR_ORDER.filter((factor) => data[factor] !== undefined);
  if (preferred === undefined || !active.includes(preferred)) return active;
  return [preferred, ...active.filter((factor) => factor !== preferred)];
}

const SCREEN_OF: Record<StepUpFactorType, StepUpFlowStatus> = {
  sms: 'SMS_VERIFY',
  googleAuth: 'GA_VERIFY',
  email: 'EMAIL_VERIFY',
  passkey: 'PASSKEY_VERIFY',
};

/**
 * Where the flow starts: a resumed stored state, otherwise START (CHALLENGE_ERROR with neither a factor nor a
 * recovery code to verify with). `preferred`: the holder's default method, kept only when it is among `factors`.
 */
export function initialStepUpFlow(
  factors: StepUpFactorType[],
  stored?: StepUpFlowStatus,
  recoveryCodes = false,
  preferred?: StepUpFactorType,
): StepUpFlow {
  const fresh: StepUpFlowStatus = factors.length === 0 && !recoveryCodes ? 'CHALLENGE_ERROR' : 'START';
  return {
    status: stored && isResumable(stored, factors, recoveryCodes) ? stored : fresh,
    factors,
    selectionLoading: false,
    recoveryCodes,
    ...(preferred !== undefined && factors.includes(preferred) ? { preferred } : {}),
  };
}

/**
 * A stored screen resumes only while it still fits the factors (e.g. not the email screen once email is off), and
 * the recovery-code screen only while the holder has codes left.
 */
function isResumable(stored: StepUpFlowStatus, factors: StepUpFactorType[], recoveryCodes: boolean): boolean {
  const factor = (Object.keys(SCREEN_OF) as StepUpFactorType[]).find((key) => SCREEN_OF[key] === stored);
  if (factor) return factors.includes(factor);
  if (stored === 'FACTOR_SELECTION') return factors.length > 1;
  if (stored === 'RECOVERY_CODE_VERIFY') return recoveryCodes;
  return factors.length > 0 || recoveryCodes;
}

/** Cancel on a code screen: the selection with several factors, otherwise the start. */
const cancelled = (flow: StepUpFlow): StepUpFlowStatus =>
  flow.factors.length > 1 ? 'FACTOR_SELECTION' : 'START';

const at = (flow: StepUpFlow, status: StepUpFlowStatus): StepUpFlow => {
  const next: StepUpFlow = { ...flow, status, selectionLoading: false };
  delete next.recoveryFrom;
  return next;
};

/** 'Use a recovery code' from `origin`, when the holder has codes. */
function toRecoveryCode(flow: StepUpFlow, origin: RecoveryCodeOrigin): StepUpFlow {
  return flow.recoveryCodes ? { ...at(flow, 'RECOVERY_CODE_VERIFY'), recoveryFrom: origin } : flow;
}

export function stepUpFlowReducer(flow: StepUpFlow, action: StepUpFlowAction): StepUpFlow {
  switch (flow.status) {
    case 'START': {
      if (action.type === 'VERIFY' && !flow.selectionLoading) {
        // The holder's default opens first; the others are one click away ('Use another method').
        if (flow.preferred !== undefined) return at(flow, SCREEN_OF[flow.preferred]);
        const [only] = flow.factors;
        if (flow.factors.length > 1) return { ...flow, selectionLoading: true };
        if (only) return at(flow, SCREEN_OF[only]);
        // No factor to verify with (codes outlive no factor on the server; a defensive branch): the codes, if any.
        return at(flow, flow.recoveryCodes ? 'RECOVERY_CODE_VERIFY' : 'CHALLENGE_ERROR');
      }
      if (action.type === 'SELECTION_LOADED' && flow.selectionLoading) return at(flow, 'FACTOR_SELECTION');
      return flow;
    }
    case 'FACTOR_SELECTION':
      if (action.type === 'SELECT' && flow.factors.includes(action.factor))
        return at(flow, SCREEN_OF[action.factor]);
      if (action.type === 'BACK') return at(flow, 'START');
      if (action.type === 'USE_RECOVERY_CODE') return toRecoveryCode(flow, 'FACTOR_SELECTION');
      return flow;
    case 'SMS_VERIFY':
    case 'GA_VERIFY':
    case 'EMAIL_VERIFY':
    case 'PASSKEY_VERIFY':
      if (action.type === 'CANCEL') return at(flow, cancelled(flow));
      if (action.type === 'EMAIL_SEND_FAILED' && flow.status === 'EMAIL_VERIFY')
        return at(flow, 'CHALLENGE_ERROR');
      if (action.type === 'USE_RECOVERY_CODE') return toRecoveryCode(flow, flow.status);
      if (action.type === 'OTHER_METHODS' && flow.factors.length > 1) return at(flow, 'FACTOR_SELECTION');
      return flow;
    case 'RECOVERY_CODE_VERIFY':
      // Back: the screen it was chosen on (after a reload, unknown: as Cancel). Cancel: as on the code screens.
      if (action.type === 'BACK') return at(flow, flow.recoveryFrom ?? cancelled(flow));
      if (action.type === 'CANCEL') return at(flow, cancelled(flow));
      return flow;
    case 'CHALLENGE_ERROR':
      return action.type === 'RETRY' && (flow.factors.length > 0 || flow.recoveryCodes)
        ? at(flow, 'START')
        : flow;
  }
}
