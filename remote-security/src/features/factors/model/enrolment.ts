import { resendLabel } from 'shared-stepup';

/** A factor's enrolment (spec section 4): INITIAL → ACTIVE / NOT_STARTED → (PENDING_ACTIVATION) → ACTIVE. */
export type EnrolmentStatus = 'INITIAL' | 'NOT_STARTED' | 'PENDING_ACTIVATION' | 'ACTIVE' | 'ERROR';
export type FactorKind = 'googleAuth' | 'email';

export type EnrolmentAction =
  | { type: 'DETAILS_LOADED'; active: boolean; enrolled: boolean }
  /** Email only: the activation code was sent (again). */
  | { type: 'CODE_SENT' }
  | { type: 'ACTIVATED' }
  | { type: 'REMOVED' }
  /** Any failure other than a wrong code: the factor shows the error view. */
  | { type: 'FAILED' };

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
    case 'NOT_STARTED':
      if (factor === 'googleAuth' && action.type === 'ACTIVATED') return 'ACTIVE';
      if (factor === 'email' && action.type === 'CODE_SENT') return 'PENDING_ACTIVATION';
      return state;
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
