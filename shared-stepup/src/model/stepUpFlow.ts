import type { ActiveFactorsData, StepUpFactorType } from 'shared-auth';

/** The step-up screens' states (spec section 4), by their spec names. */
export const STEP_UP_FLOW_STATUSES = [
  'START',
  'FACTOR_SELECTION',
  'SMS_VERIFY',
  'GA_VERIFY',
  'EMAIL_VERIFY',
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
}

export type StepUpFlowAction =
  /** The Verify button of the start screen. */
  | { type: 'VERIFY' }
  /** The 0.5 s loading dialog is over. */
  | { type: 'SELECTION_LOADED' }
  | { type: 'SELECT'; factor: StepUpFactorType }
  | { type: 'BACK' }
  | { type: 'CANCEL' }
  | { type: 'EMAIL_SEND_FAILED' }
  /** 'Try again' on the error screen: back to the start (with factors; without, the page checks again). */
  | { type: 'RETRY' };

/** The loading dialog before the factor selection (spec section 9). */
export const SELECTION_LOADING_MS = 500;

const FACTOR_ORDER: StepUpFactorType[] = ['googleAuth', 'email', 'sms'];

export function factorsOf(data: ActiveFactorsData): StepUpFactorType[] {
  return FACTOR_ORDER.filter((factor) => data[factor] !== undefined);
}

const SCREEN_OF: Record<StepUpFactorType, StepUpFlowStatus> = {
  sms: 'SMS_VERIFY',
  googleAuth: 'GA_VERIFY',
  email: 'EMAIL_VERIFY',
};

/** Where the flow starts: a resumed stored state, otherwise START (CHALLENGE_ERROR without factors). */
export function initialStepUpFlow(factors: StepUpFactorType[], stored?: StepUpFlowStatus): StepUpFlow {
  const fresh: StepUpFlowStatus = factors.length === 0 ? 'CHALLENGE_ERROR' : 'START';
  return {
    status: stored && isResumable(stored, factors) ? stored : fresh,
    factors,
    selectionLoading: false,
  };
}

/** A stored screen resumes only while it still fits the factors (e.g. not the email screen once email is off). */
function isResumable(stored: StepUpFlowStatus, factors: StepUpFactorType[]): boolean {
  const factor = (Object.keys(SCREEN_OF) as StepUpFactorType[]).find((key) => SCREEN_OF[key] === stored);
  if (factor) return factors.includes(factor);
  if (stored === 'FACTOR_SELECTION') return factors.length > 1;
  return factors.length > 0;
}

const at = (flow: StepUpFlow, status: StepUpFlowStatus): StepUpFlow => ({
  ...flow,
  status,
  selectionLoading: false,
});

export function stepUpFlowReducer(flow: StepUpFlow, action: StepUpFlowAction): StepUpFlow {
  switch (flow.status) {
    case 'START': {
      if (action.type === 'VERIFY' && !flow.selectionLoading) {
        const [only] = flow.factors;
        if (flow.factors.length > 1) return { ...flow, selectionLoading: true };
        return only ? at(flow, SCREEN_OF[only]) : at(flow, 'CHALLENGE_ERROR');
      }
      if (action.type === 'SELECTION_LOADED' && flow.selectionLoading) return at(flow, 'FACTOR_SELECTION');
      return flow;
    }
    case 'FACTOR_SELECTION':
      if (action.type === 'SELECT' && flow.factors.includes(action.factor))
        return at(flow, SCREEN_OF[action.factor]);
      if (action.type === 'BACK') return at(flow, 'START');
      return flow;
    case 'SMS_VERIFY':
    case 'GA_VERIFY':
    case 'EMAIL_VERIFY':
      if (action.type === 'CANCEL') return at(flow, flow.factors.length > 1 ? 'FACTOR_SELECTION' : 'START');
      if (action.type === 'EMAIL_SEND_FAILED' && flow.status === 'EMAIL_VERIFY')
        return at(flow, 'CHALLENGE_ERROR');
      return flow;
    case 'CHALLENGE_ERROR':
      return action.type === 'RETRY' && flow.factors.length > 0 ? at(flow, 'START') : flow;
  }
}
