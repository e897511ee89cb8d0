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
  recoveryCodes: false,
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

describe('step-up flow: recovery codes', () => {
  /** A flow whose holder has unused recovery codes (the challenge's `recoveryCodes`). */
  const withCodes = (state: StepUpFlowStatus, factors: StepUpFlow['factors'] = [...both]): StepUpFlow => ({
    ...flow(state, factors),
    recoveryCodes: true,
  });
  const recovery = (from: StepUpFlow['recoveryFrom'], factors: StepUpFlow['factors'] = [...both]) => ({
    ...withCodes('RECOVERY_CODE_VERIFY', factors),
    recoveryFrom: from,
  });

  it('the initial flow knows whether the holder has codes; without a factor, codes alone still start', () => {
    expect(initialStepUpFlow([...both], undefined, true)).toEqual(withCodes('START'));
    expect(initialStepUpFlow([...both]).recoveryCodes).toBe(false);
    expect(initialStepUpFlow([], undefined, true).status).toBe('START');
  });

  it('resumes the recovery-code screen only while the holder has codes', () => {
    expect(initialStepUpFlow([...both], 'RECOVERY_CODE_VERIFY', true)).toEqual(
      withCodes('RECOVERY_CODE_VERIFY'),
    );
    expect(initialStepUpFlow([...both], 'RECOVERY_CODE_VERIFY').status).toBe('START');
    expect(initialStepUpFlow(['googleAuth'], 'RECOVERY_CODE_VERIFY', true).status).toBe(
      'RECOVERY_CODE_VERIFY',
    );
  });

  it('FACTOR_SELECTION + Use a recovery code → RECOVERY_CODE_VERIFY, remembering where it came from', () => {
    expect(stepUpFlowReducer(withCodes('FACTOR_SELECTION'), { type: 'USE_RECOVERY_CODE' })).toEqual(
      recovery('FACTOR_SELECTION'),
    );
  });

  it.each(['GA_VERIFY', 'EMAIL_VERIFY', 'SMS_VERIFY'] as const)(
    '%s + Use a recovery code → RECOVERY_CODE_VERIFY',
    (state) => {
      expect(stepUpFlowReducer(withCodes(state), { type: 'USE_RECOVERY_CODE' })).toEqual(recovery(state));
    },
  );

  it.each(['FACTOR_SELECTION', 'GA_VERIFY', 'EMAIL_VERIFY'] as const)(
    'Use a recovery code does nothing in %s when the holder has no codes',
    (state) => {
      const current = flow(state);
      expect(stepUpFlowReducer(current, { type: 'USE_RECOVERY_CODE' })).toBe(current);
    },
  );

  it.each(['START', 'CHALLENGE_ERROR', 'RECOVERY_CODE_VERIFY'] as const)(
    'Use a recovery code does nothing in %s',
    (state) => {
      const current = withCodes(state);
      expect(stepUpFlowReducer(current, { type: 'USE_RECOVERY_CODE' })).toBe(current);
    },
  );

  it('Back returns to the screen the code was chosen on', () => {
    expect(stepUpFlowReducer(recovery('FACTOR_SELECTION'), { type: 'BACK' })).toEqual(
      withCodes('FACTOR_SELECTION'),
    );
    expect(stepUpFlowReducer(recovery('GA_VERIFY'), { type: 'BACK' })).toEqual(withCodes('GA_VERIFY'));
    expect(stepUpFlowReducer(recovery('EMAIL_VERIFY', ['email']), { type: 'BACK' })).toEqual(
      withCodes('EMAIL_VERIFY', ['email']),
    );
  });

  it('Back after a reload (origin unknown) and Cancel go where Cancel goes on a code screen', () => {
    expect(stepUpFlowReducer(withCodes('RECOVERY_CODE_VERIFY'), { type: 'BACK' }).status).toBe(
      'FACTOR_SELECTION',
    );
    expect(stepUpFlowReducer(recovery('GA_VERIFY'), { type: 'CANCEL' })).toEqual(
      withCodes('FACTOR_SELECTION'),
    );
    expect(stepUpFlowReducer(recovery('GA_VERIFY', ['googleAuth']), { type: 'CANCEL' })).toEqual(
      withCodes('START', ['googleAuth']),
    );
  });

  it('RECOVERY_CODE_VERIFY ignores the actions of other screens', () => {
    const current = recovery('GA_VERIFY');
    for (const action of [
      { type: 'VERIFY' },
      { type: 'SELECTION_LOADED' },
      { type: 'SELECT', factor: 'email' },
      { type: 'EMAIL_SEND_FAILED' },
      { type: 'RETRY' },
    ] as const) {
      expect(stepUpFlowReducer(current, action)).toBe(current);
    }
  });

  it('with codes and no factor: Verify goes to the recovery code; Try again on Error returns to START', () => {
    expect(stepUpFlowReducer(withCodes('START', []), { type: 'VERIFY' }).status).toBe('RECOVERY_CODE_VERIFY');
    expect(stepUpFlowReducer(withCodes('CHALLENGE_ERROR', []), { type: 'RETRY' })).toEqual(
      withCodes('START', []),
    );
  });

  it('a whole path: Verify → the only factor → Use a recovery code → Back → Use a recovery code → Cancel', () => {
    expect(
      run(
        withCodes('START', ['googleAuth']),
        { type: 'VERIFY' },
        { type: 'USE_RECOVERY_CODE' },
        { type: 'BACK' },
        { type: 'USE_RECOVERY_CODE' },
        { type: 'CANCEL' },
      ),
    ).toEqual(withCodes('START', ['googleAuth']));
  });
});

describe('step-up flow: passkeys', () => {
  const withPasskey = ['googleAuth', 'email', 'passkey'] as const;

  it('lists a passkey after the spec factors', () => {
    expect(
      factorsOf({ passkey: { count: 2 }, email: { maskedEmail: 'a....e@x.org' }, googleAuth: {} }),
    ).toEqual(['googleAuth', 'email', 'passkey']);
    expect(factorsOf({ passkey: { count: 1 } })).toEqual(['passkey']);
  });

  it('START + Verify with the passkey as the only method goes straight to PASSKEY_VERIFY', () => {
    expect(stepUpFlowReducer(flow('START', ['passkey']), { type: 'VERIFY' })).toEqual(
      flow('PASSKEY_VERIFY', ['passkey']),
    );
  });

  it('FACTOR_SELECTION + Select passkey → PASSKEY_VERIFY, only when the holder has one', () => {
    expect(
      stepUpFlowReducer(flow('FACTOR_SELECTION', [...withPasskey]), { type: 'SELECT', factor: 'passkey' }),
    ).toEqual(flow('PASSKEY_VERIFY', [...withPasskey]));
    const without = flow('FACTOR_SELECTION');
    expect(stepUpFlowReducer(without, { type: 'SELECT', factor: 'passkey' })).toBe(without);
  });

  it('PASSKEY_VERIFY + Cancel → FACTOR_SELECTION with several methods, START with the passkey alone', () => {
    expect(stepUpFlowReducer(flow('PASSKEY_VERIFY', [...withPasskey]), { type: 'CANCEL' }).status).toBe(
      'FACTOR_SELECTION',
    );
    expect(stepUpFlowReducer(flow('PASSKEY_VERIFY', ['passkey']), { type: 'CANCEL' }).status).toBe('START');
  });

  it('PASSKEY_VERIFY + Use a recovery code → RECOVERY_CODE_VERIFY, and Back returns to the passkey', () => {
    const start = { ...flow('PASSKEY_VERIFY', [...withPasskey]), recoveryCodes: true };
    const codes = stepUpFlowReducer(start, { type: 'USE_RECOVERY_CODE' });
    expect(codes).toEqual({ ...start, status: 'RECOVERY_CODE_VERIFY', recoveryFrom: 'PASSKEY_VERIFY' });
    expect(stepUpFlowReducer(codes, { type: 'BACK' })).toEqual(start);
    // Without codes, nothing happens.
    const noCodes = flow('PASSKEY_VERIFY', [...withPasskey]);
    expect(stepUpFlowReducer(noCodes, { type: 'USE_RECOVERY_CODE' })).toBe(noCodes);
  });

  it.each<StepUpFlowAction>([
    { type: 'VERIFY' },
    { type: 'SELECTION_LOADED' },
    { type: 'SELECT', factor: 'email' },
    { type: 'BACK' },
    { type: 'EMAIL_SEND_FAILED' },
    { type: 'RETRY' },
  ])('PASSKEY_VERIFY ignores $type', (action) => {
    const start = flow('PASSKEY_VERIFY', [...withPasskey]);
    expect(stepUpFlowReducer(start, action)).toBe(start);
  });

  it('resumes the stored passkey screen only while the holder has a passkey', () => {
    expect(initialStepUpFlow([...withPasskey], 'PASSKEY_VERIFY').status).toBe('PASSKEY_VERIFY');
    expect(initialStepUpFlow(['passkey'], 'PASSKEY_VERIFY').status).toBe('PASSKEY_VERIFY');
    expect(initialStepUpFlow([...both], 'PASSKEY_VERIFY').status).toBe('START');
    expect(initialStepUpFlow(['passkey'], 'FACTOR_SELECTION').status).toBe('START');
  });
});

describe('step-up flow: the default method (issue 22)', () => {
  const withDefault = (state: StepUpFlowStatus, preferred: StepUpFlow['preferred']): StepUpFlow => ({
    ...flow(state),
    ...(preferred ? { preferred } : {}),
  });

  it('lists the default first, then the fixed order; a default that is not active changes nothing', () => {
    const data = { googleAuth: {}, email: { maskedEmail: 'a....e@x.org' }, passkey: { count: 1 } };
    expect(factorsOf(data, 'passkey')).toEqual(['passkey', 'googleAuth', 'email']);
    expect(factorsOf(data, 'email')).toEqual(['email', 'googleAuth', 'passkey']);
    expect(factorsOf({ googleAuth: {} }, 'email')).toEqual(['googleAuth']);
  });

  it('keeps the default only when it is among the factors', () => {
    expect(initialStepUpFlow([...both], undefined, false, 'email')).toEqual(withDefault('START', 'email'));
    expect(initialStepUpFlow(['googleAuth'], undefined, false, 'email')).toEqual(
      flow('START', ['googleAuth']),
    );
  });

  it("START + Verify opens the default's screen, with no loading dialog", () => {
    expect(stepUpFlowReducer(withDefault('START', 'email'), { type: 'VERIFY' })).toEqual(
      withDefault('EMAIL_VERIFY', 'email'),
    );
    expect(stepUpFlowReducer(withDefault('START', 'googleAuth'), { type: 'VERIFY' }).status).toBe(
      'GA_VERIFY',
    );
    const passkeyFirst = {
      ...withDefault('START', 'passkey'),
      factors: ['passkey', 'googleAuth'],
    } as StepUpFlow;
    expect(stepUpFlowReducer(passkeyFirst, { type: 'VERIFY' }).status).toBe('PASSKEY_VERIFY');
  });

  it("'Use another method' on a code screen: the selection with several factors; nothing with one", () => {
    expect(stepUpFlowReducer(withDefault('EMAIL_VERIFY', 'email'), { type: 'OTHER_METHODS' })).toEqual(
      withDefault('FACTOR_SELECTION', 'email'),
    );
    expect(stepUpFlowReducer(withDefault('GA_VERIFY', 'email'), { type: 'OTHER_METHODS' }).status).toBe(
      'FACTOR_SELECTION',
    );
    const alone = { ...flow('GA_VERIFY', ['googleAuth']), preferred: 'googleAuth' } as StepUpFlow;
    expect(stepUpFlowReducer(alone, { type: 'OTHER_METHODS' })).toBe(alone);
  });

  it("'Use another method' does nothing on the start, the selection or the recovery code's screen", () => {
    for (const state of ['START', 'FACTOR_SELECTION', 'RECOVERY_CODE_VERIFY', 'CHALLENGE_ERROR'] as const) {
      const at = withDefault(state, 'email');
      expect(stepUpFlowReducer(at, { type: 'OTHER_METHODS' })).toBe(at);
    }
  });

  it('from the selection, a method is chosen as before; Back returns to START, and Verify opens the default again', () => {
    const selection = withDefault('FACTOR_SELECTION', 'email');
    expect(stepUpFlowReducer(selection, { type: 'SELECT', factor: 'googleAuth' }).status).toBe('GA_VERIFY');
    expect(run(selection, { type: 'BACK' }, { type: 'VERIFY' }).status).toBe('EMAIL_VERIFY');
  });
});
