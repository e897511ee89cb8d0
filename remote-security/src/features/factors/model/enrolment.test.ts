import { enrolmentReducer, sendCodeLabel } from './enrolment.js';

describe('enrolment state', () => {
  it('INITIAL → ACTIVE when the factor is active or the details say enrolled, else NOT_STARTED', () => {
    const loaded = (active: boolean, enrolled: boolean) =>
      enrolmentReducer('googleAuth', 'INITIAL', { type: 'DETAILS_LOADED', active, enrolled });
    expect(loaded(true, false)).toBe('ACTIVE');
    expect(loaded(false, true)).toBe('ACTIVE');
    expect(loaded(false, false)).toBe('NOT_STARTED');
  });

  it('Google: NOT_STARTED → ACTIVE on a correct code', () => {
    expect(enrolmentReducer('googleAuth', 'NOT_STARTED', { type: 'ACTIVATED' })).toBe('ACTIVE');
    expect(enrolmentReducer('googleAuth', 'NOT_STARTED', { type: 'CODE_SENT' })).toBe('NOT_STARTED');
  });

  it('Email: NOT_STARTED → PENDING_ACTIVATION once sent, → ACTIVE on a correct code', () => {
    expect(enrolmentReducer('email', 'NOT_STARTED', { type: 'ACTIVATED' })).toBe('NOT_STARTED');
    expect(enrolmentReducer('email', 'NOT_STARTED', { type: 'CODE_SENT' })).toBe('PENDING_ACTIVATION');
    expect(enrolmentReducer('email', 'PENDING_ACTIVATION', { type: 'CODE_SENT' })).toBe('PENDING_ACTIVATION');
    expect(enrolmentReducer('email', 'PENDING_ACTIVATION', { type: 'ACTIVATED' })).toBe('ACTIVE');
  });

  it('ACTIVE → NOT_STARTED after removal', () => {
    expect(enrolmentReducer('email', 'ACTIVE', { type: 'REMOVED' })).toBe('NOT_STARTED');
    expect(enrolmentReducer('googleAuth', 'ACTIVE', { type: 'REMOVED' })).toBe('NOT_STARTED');
    expect(enrolmentReducer('googleAuth', 'ACTIVE', { type: 'ACTIVATED' })).toBe('ACTIVE');
  });

  it('any failure leads to ERROR, which stays', () => {
    for (const state of ['INITIAL', 'NOT_STARTED', 'PENDING_ACTIVATION', 'ACTIVE'] as const) {
      expect(enrolmentReducer('email', state, { type: 'FAILED' })).toBe('ERROR');
    }
    expect(enrolmentReducer('email', 'ERROR', { type: 'DETAILS_LOADED', active: true, enrolled: true })).toBe(
      'ERROR',
    );
  });
});

describe('the email enrolment send button', () => {
  it("labels: 'Send Code', then 'Resend ({n}s)', then 'Resend Code'", () => {
    expect(sendCodeLabel(false, 0)).toBe('Send Code');
    expect(sendCodeLabel(true, 30)).toBe('Resend (30s)');
    expect(sendCodeLabel(true, 1)).toBe('Resend (1s)');
    expect(sendCodeLabel(true, 0)).toBe('Resend Code');
  });
});
