import {
  clearStepUpState,
  LEGACY_STEP_UP_STORAGE_KEY,
  loadStepUpState,
  saveStepUpState,
  stepUpStorageKey,
} from './stepUpStorage.js';

const ALICE = '00u1alice';
const BOB = '00u2bob';

describe('step-up flow storage (5-minute expiry, one entry per user)', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2026-03-07T10:00:00Z') });
    localStorage.clear();
  });
  afterEach(() => jest.useRealTimers());

  it("stores the state under the user's step-up key with an expiry 5 minutes ahead", () => {
    saveStepUpState(ALICE, 'GA_VERIFY');
    expect(localStorage.getItem(`stepUp:${ALICE}`)).not.toBeNull();
    expect(JSON.parse(localStorage.getItem(stepUpStorageKey(ALICE))!)).toEqual({
      value: 'GA_VERIFY',
      expiry: Date.now() + 300_000,
    });
  });

  it('keeps and resumes the passkey screen like the code screens', () => {
    saveStepUpState(ALICE, 'PASSKEY_VERIFY');
    jest.advanceTimersByTime(299_999);
    expect(loadStepUpState(ALICE)).toBe('PASSKEY_VERIFY');
  });

  it('resumes the stored state before it expires', () => {
    saveStepUpState(ALICE, 'EMAIL_VERIFY');
    jest.advanceTimersByTime(299_999);
    expect(loadStepUpState(ALICE)).toBe('EMAIL_VERIFY');
  });

  it("never gives one user another user's state", () => {
    saveStepUpState(ALICE, 'EMAIL_VERIFY');
    expect(loadStepUpState(BOB)).toBeUndefined();
    saveStepUpState(BOB, 'FACTOR_SELECTION');
    expect(loadStepUpState(ALICE)).toBe('EMAIL_VERIFY');
    expect(loadStepUpState(BOB)).toBe('FACTOR_SELECTION');
    clearStepUpState(BOB);
    expect(loadStepUpState(ALICE)).toBe('EMAIL_VERIFY');
  });

  it('ignores and removes the old key that named no user', () => {
    localStorage.setItem(
      LEGACY_STEP_UP_STORAGE_KEY,
      JSON.stringify({ value: 'GA_VERIFY', expiry: Date.now() + 60_000 }),
    );
    expect(loadStepUpState(ALICE)).toBeUndefined();
    expect(localStorage.getItem(LEGACY_STEP_UP_STORAGE_KEY)).toBeNull();
  });

  it('forgets it once expired, and removes it', () => {
    saveStepUpState(ALICE, 'EMAIL_VERIFY');
    jest.advanceTimersByTime(300_000);
    expect(loadStepUpState(ALICE)).toBeUndefined();
    expect(localStorage.getItem(stepUpStorageKey(ALICE))).toBeNull();
  });

  it('a later save renews the expiry', () => {
    saveStepUpState(ALICE, 'START');
    jest.advanceTimersByTime(200_000);
    saveStepUpState(ALICE, 'FACTOR_SELECTION');
    jest.advanceTimersByTime(200_000);
    expect(loadStepUpState(ALICE)).toBe('FACTOR_SELECTION');
  });

  it('treats missing, unreadable and unknown values as missing', () => {
    const key = stepUpStorageKey(ALICE);
    expect(loadStepUpState(ALICE)).toBeUndefined();
    localStorage.setItem(key, '{not json');
    expect(loadStepUpState(ALICE)).toBeUndefined();
    localStorage.setItem(key, JSON.stringify({ value: 'HACKED', expiry: Date.now() + 1000 }));
    expect(loadStepUpState(ALICE)).toBeUndefined();
  });

  it('does not keep CHALLENGE_ERROR, and clears on demand', () => {
    saveStepUpState(ALICE, 'GA_VERIFY');
    saveStepUpState(ALICE, 'CHALLENGE_ERROR');
    expect(loadStepUpState(ALICE)).toBeUndefined();
    saveStepUpState(ALICE, 'GA_VERIFY');
    clearStepUpState(ALICE);
    expect(localStorage.getItem(stepUpStorageKey(ALICE))).toBeNull();
  });
});
