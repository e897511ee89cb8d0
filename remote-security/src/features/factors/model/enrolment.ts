/** A factor's enrolment (spec section 4) as a reducer, and the label of the email set-up's send button. */
import { resendLabel } from 'shared-stepup';
import { factorKind, type EnrolmentStart, type FactorKind } from './kinds/index.js';

/** INITIAL → ACTIVE / NOT_STARTED → (PENDING_ACTIVATION) → ACTIVE. */
export type EnrolmentStatus = 'INITIAL' | 'NOT_STARTED' | 'PENDING_ACTIVATION' | 'ACTIVE' | 'ERROR';

export type EnrolmentAction =
  | { type: 'DETAILS_LOADED'; active: boolean; enrolled: boolean }
  /** A kind whose set-up sends a code first: the code was sent (again). */
  | { type: 'CODE_SENT' }
  | { type: 'ACTIVATED' }
  | { type: 'REMOVED' }
  /** Any failure other than a wrong code: the factor shows the error view. */
  | { type: 'FAILED' };

/** What moves a set-up on from NOT_STARTED, and where to, by how the kind's set-up starts. */
const FIRST_STEP: Record<EnrolmentStart, { on: EnrolmentAction['type']; to: EnrolmentStatus }> = {
  activatedAtOnce: { on: 'ACTIVATED', to: 'ACTIVE' },
  codeSentFirst: { on: 'CODE_SENT', to: 'PENDING_ACTIVATION' },
};

export function enrolmentReducer(
  factor: FactorKind,
  state: EnrolmentStatus,
  action: EnrolmentAction,
): EnrolmentStatus {
  if (action.type === 'FAILED') return 'ERROR';
  switch (state) {
    case 'INITIAL':
      if (action.type === 'DETAILS_LOADED')
        return action.active || action.enrolled ? 'ACTIVE' : 'NOT_STARTED';
      return state;
    case 'NOT_STARTED': {
      const step = FIRST_STEP[factorKind(factor).enrolmentStart];
      return action.type === step.on ? step.to : state;
    }
    case 'PENDING_ACTIVATION':
      if (action.type === 'ACTIVATED') return 'ACTIVE';
      return state;
    case 'ACTIVE':
      return action.type === 'REMOVED' ? 'NOT_STARTED' : state;
    case 'ERROR':
      return state;
  }
}

/** 'Send Code' before the first send, then the resend countdown's 'Resend ({n}s)' and 'Resend Code'. */
export function sendCodeLabel(sent: boolean, remaining: number): string {
  return sent ? resendLabel(remaining) : 'Send Code';
}
