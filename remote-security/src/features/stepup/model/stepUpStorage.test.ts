import { clearStepUpState, loadStepUpState, saveStepUpState, STEP_UP_STORAGE_KEY } from './stepUpStorage.js';

describe('step-up flow storage (5-minute expiry)', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2026-03-07T10:00:00Z') });
    localStorage.clear();
  });
  afterEach(() => jest.useRealTimers());

  it('stores the state under the step-up key with an expiry 5 minutes ahead', () => {
    saveStepUpState('GA_VERIFY');
    expect(JSON.parse(localStorage.getItem(STEP_UP_STORAGE_KEY)!)).toEqual({
      value: 'GA_VERIFY',
      expiry: Date.now() + 300_000,
    });
  });

  it('resumes the stored state before it expires', () => {
    saveStepUpState('EMAIL_VERIFY');
    jest.advanceTimersByTime(299_999);
    expect(loadStepUpState()).toBe('EMAIL_VERIFY');
  });

  it('forgets it once expired, and removes it', () => {
    saveStepUpState('EMAIL_VERIFY');
    jest.advanceTimersByTime(300_000);
    expect(loadStepUpState()).toBeUndefined();
    expect(localStorage.getItem(STEP_UP_STORAGE_KEY)).toBeNull();
  });

  it('a later save renews the expiry', () => {
    saveStepUpState('START');
    jest.advanceTimersByTime(200_000);
    saveStepUpState('FACTOR_SELECTION');
    jest.advanceTimersByTime(200_000);
    expect(loadStepUpState()).toBe('FACTOR_SELECTION');
  });

  it('treats missing, unreadable and unknown values as missing', () => {
    expect(loadStepUpState()).toBeUndefined();
    localStorage.setItem(STEP_UP_STORAGE_KEY, '{not json');
    expect(loadStepUpState()).toBeUndefined();
    localStorage.setItem(STEP_UP_STORAGE_KEY, JSON.stringify({ value: 'HACKED', expiry: Date.now() + 1000 }));
    expect(loadStepUpState()).toBeUndefined();
  });

  it('does not keep CHALLENGE_ERROR, and clears on demand', () => {
    saveStepUpState('GA_VERIFY');
    saveStepUpState('CHALLENGE_ERROR');
    expect(loadStepUpState()).toBeUndefined();
    saveStepUpState('GA_VERIFY');
    clearStepUpState();
    expect(localStorage.getItem(STEP_UP_STORAGE_KEY)).toBeNull();
  });
});
