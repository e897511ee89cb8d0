import {
  factorsOf,
  initialStepUpFlow,
  stepUpFlowReducer,
  type StepUpFlow,
  type StepUpFlowAction,
  type StepUpFlowStatus,
} from './stepUpFlow.js';

const both = ['googleAuth', 'email'] as const;
const flow = (
  state: StepUpFlowStatus,
  factors: StepUpFlow['factors'] = [...both],
  selectionLoading = false,
): StepUpFlow => ({
  status: state,
  factors,
  selectionLoading,
});
const run = (start: StepUpFlow, ...actions: StepUpFlowAction[]) => actions.reduce(stepUpFlowReducer, start);

describe('step-up flow: start', () => {
  it('lists the active factors in a fixed order', () => {
    expect(factorsOf({ email: { maskedEmail: 'a....e@x.org' }, googleAuth: {} })).toEqual([
      'googleAuth',
      'email',
    ]);
    expect(factorsOf({})).toEqual([]);
  });

  it('starts at START, or CHALLENGE_ERROR when there are no factors', () => {
    expect(initialStepUpFlow([...both]).status).toBe('START');
    expect(initialStepUpFlow([]).status).toBe('CHALLENGE_ERROR');
  });

  it('resumes a stored state that still fits the factors, and restarts otherwise', () => {
    expect(initialStepUpFlow([...both], 'EMAIL_VERIFY').status).toBe('EMAIL_VERIFY');
    expect(initialStepUpFlow([...both], 'FACTOR_SELECTION').status).toBe('FACTOR_SELECTION');
    expect(initialStepUpFlow(['googleAuth'], 'EMAIL_VERIFY').status).toBe('START');
    expect(initialStepUpFlow(['googleAuth'], 'FACTOR_SELECTION').status).toBe('START');
    expect(initialStepUpFlow([], 'START').status).toBe('CHALLENGE_ERROR');
  });
});

describe('step-up flow: transitions', () => {
  it('START + Verify with several factors: the 0.5 s loading dialog, then FACTOR_SELECTION', () => {
    const loading = stepUpFlowReducer(flow('START'), { type: 'VERIFY' });
    expect(loading).toEqual(flow('START', [...both], true));
    expect(stepUpFlowReducer(loading, { type: 'VERIFY' })).toBe(loading);
    expect(stepUpFlowReducer(loading, { type: 'SELECTION_LOADED' })).toEqual(flow('FACTOR_SELECTION'));
  });

  it("START + Verify with exactly one factor goes to that factor's screen", () => {
    expect(stepUpFlowReducer(flow('START', ['googleAuth']), { type: 'VERIFY' }).status).toBe('GA_VERIFY');
    expect(stepUpFlowReducer(flow('START', ['email']), { type: 'VERIFY' }).status).toBe('EMAIL_VERIFY');
    expect(stepUpFlowReducer(flow('START', ['sms']), { type: 'VERIFY' }).status).toBe('SMS_VERIFY');
  });

  it('START + Verify with no factors goes to CHALLENGE_ERROR', () => {
    expect(stepUpFlowReducer(flow('START', []), { type: 'VERIFY' }).status).toBe('CHALLENGE_ERROR');
  });

  it('SELECTION_LOADED without the loading dialog does nothing', () => {
    const start = flow('START');
    expect(stepUpFlowReducer(start, { type: 'SELECTION_LOADED' })).toBe(start);
  });

  it('FACTOR_SELECTION goes to GA_VERIFY or EMAIL_VERIFY; Back returns to START', () => {
    expect(stepUpFlowReducer(flow('FACTOR_SELECTION'), { type: 'SELECT', factor: 'googleAuth' }).status).toBe(
      'GA_VERIFY',
    );
    expect(stepUpFlowReducer(flow('FACTOR_SELECTION'), { type: 'SELECT', factor: 'email' }).status).toBe(
      'EMAIL_VERIFY',
    );
    expect(stepUpFlowReducer(flow('FACTOR_SELECTION'), { type: 'BACK' }).status).toBe('START');
    // A factor that is not active cannot be selected.
    const gaOnly = flow('FACTOR_SELECTION', ['googleAuth']);
    expect(stepUpFlowReducer(gaOnly, { type: 'SELECT', factor: 'email' })).toBe(gaOnly);
  });

  it.each(['GA_VERIFY', 'EMAIL_VERIFY', 'SMS_VERIFY'] as const)(
    'Cancel from %s returns to FACTOR_SELECTION with several factors, otherwise to START',
    (state) => {
      expect(stepUpFlowReducer(flow(state), { type: 'CANCEL' }).status).toBe('FACTOR_SELECTION');
      expect(stepUpFlowReducer(flow(state, ['googleAuth']), { type: 'CANCEL' }).status).toBe('START');
    },
  );

  it('a failed email send goes from EMAIL_VERIFY to CHALLENGE_ERROR', () => {
    expect(stepUpFlowReducer(flow('EMAIL_VERIFY'), { type: 'EMAIL_SEND_FAILED' }).status).toBe(
      'CHALLENGE_ERROR',
    );
    const ga = flow('GA_VERIFY');
    expect(stepUpFlowReducer(ga, { type: 'EMAIL_SEND_FAILED' })).toBe(ga);
  });

  it('CHALLENGE_ERROR leaves only by Try again', () => {
    const error = flow('CHALLENGE_ERROR');
    for (const action of [{ type: 'VERIFY' }, { type: 'BACK' }, { type: 'CANCEL' }] as const) {
      expect(stepUpFlowReducer(error, action)).toBe(error);
    }
  });

  it('CHALLENGE_ERROR + Try again returns to START; without factors it stays (the page checks again)', () => {
    expect(stepUpFlowReducer(flow('CHALLENGE_ERROR'), { type: 'RETRY' })).toEqual(flow('START'));
    const none = flow('CHALLENGE_ERROR', []);
    expect(stepUpFlowReducer(none, { type: 'RETRY' })).toBe(none);
  });

  it.each(['START', 'FACTOR_SELECTION', 'GA_VERIFY', 'EMAIL_VERIFY'] as const)(
    'Try again does nothing in %s',
    (state) => {
      const current = flow(state);
      expect(stepUpFlowReducer(current, { type: 'RETRY' })).toBe(current);
    },
  );

  it('ignores actions that do not apply', () => {
    const start = flow('START');
    expect(stepUpFlowReducer(start, { type: 'BACK' })).toBe(start);
    expect(stepUpFlowReducer(start, { type: 'CANCEL' })).toBe(start);
    const selection = flow('FACTOR_SELECTION');
    expect(stepUpFlowReducer(selection, { type: 'CANCEL' })).toBe(selection);
  });

  it('a whole path: Verify → selection → email → Cancel → Back', () => {
    expect(
      run(
        flow('START'),
        { type: 'VERIFY' },
        { type: 'SELECTION_LOADED' },
        { type: 'SELECT', factor: 'email' },
        { type: 'CANCEL' },
        { type: 'BACK' },
      ),
    ).toEqual(flow('START'));
  });
});
