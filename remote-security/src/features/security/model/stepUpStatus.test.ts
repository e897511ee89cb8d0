import { initialStepUpState, stepUpReducer, type StepUpState } from './stepUpStatus.js';

const loading: StepUpState = { status: 'LOADING', activeFactorsData: {} };
const factors = { googleAuth: {} };

describe('step-up status (outer state)', () => {
  it('START → LOADING', () => {
    expect(stepUpReducer(initialStepUpState, { type: 'LOAD' }).status).toBe('LOADING');
    expect(stepUpReducer(loading, { type: 'LOAD' })).toBe(loading);
  });

  it("LOADING → CHALLENGE or NO_CHALLENGE keeps the challenge's default method (issue 22)", () => {
    const response = {
      activeFactorsData: { ...factors, passkey: { count: 1 } },
      preferredMethod: 'passkey' as const,
    };
    expect(
      stepUpReducer(loading, { type: 'CHALLENGE_LOADED', response: { challengeUser: true, ...response } }),
    ).toEqual({ status: 'CHALLENGE', ...response });
    expect(
      stepUpReducer(loading, { type: 'CHALLENGE_LOADED', response: { challengeUser: false, ...response } }),
    ).toEqual({ status: 'NO_CHALLENGE', ...response });
  });

  it('LOADING → CHALLENGE when the server asks for it, with the factors', () => {
    expect(
      stepUpReducer(loading, {
        type: 'CHALLENGE_LOADED',
        response: { challengeUser: true, activeFactorsData: factors },
      }),
    ).toEqual({ status: 'CHALLENGE', activeFactorsData: factors });
  });

  it("LOADING → CHALLENGE keeps the challenge's recovery codes (the screens offer them); a new check drops them", () => {
    const challenge = stepUpReducer(loading, {
      type: 'CHALLENGE_LOADED',
      response: { challengeUser: true, activeFactorsData: factors, recoveryCodes: { left: 4 } },
    });
    expect(challenge).toEqual({
      status: 'CHALLENGE',
      activeFactorsData: factors,
      recoveryCodes: { left: 4 },
    });
    const again = stepUpReducer(stepUpReducer(challenge, { type: 'LOAD' }), {
      type: 'CHALLENGE_LOADED',
      response: { challengeUser: true, activeFactorsData: factors },
    });
    expect(again).toEqual({ status: 'CHALLENGE', activeFactorsData: factors });
  });

  it('LOADING → NO_CHALLENGE otherwise', () => {
    expect(
      stepUpReducer(loading, {
        type: 'CHALLENGE_LOADED',
        response: { challengeUser: false, activeFactorsData: factors },
      }).status,
    ).toBe('NO_CHALLENGE');
  });

  it('a failed check is a challenge with no factors', () => {
    expect(stepUpReducer({ ...loading, activeFactorsData: factors }, { type: 'CHALLENGE_FAILED' })).toEqual({
      status: 'CHALLENGE',
      activeFactorsData: {},
    });
  });

  it('CHALLENGE → NO_CHALLENGE on a successful verify', () => {
    expect(stepUpReducer({ status: 'CHALLENGE', activeFactorsData: factors }, { type: 'VERIFIED' })).toEqual({
      status: 'NO_CHALLENGE',
      activeFactorsData: factors,
    });
  });

  it('NO_CHALLENGE → LOADING when the verification ran out; stray answers are ignored', () => {
    const done: StepUpState = { status: 'NO_CHALLENGE', activeFactorsData: factors };
    expect(stepUpReducer(done, { type: 'LOAD' }).status).toBe('LOADING');
    expect(stepUpReducer(done, { type: 'CHALLENGE_FAILED' })).toBe(done);
    expect(stepUpReducer(done, { type: 'VERIFIED' })).toBe(done);
    expect(stepUpReducer(initialStepUpState, { type: 'VERIFIED' })).toBe(initialStepUpState);
  });

  it('CHALLENGE → LOADING on Try again (the check again); stray answers are ignored', () => {
    const challenge: StepUpState = { status: 'CHALLENGE', activeFactorsData: {} };
    expect(stepUpReducer(challenge, { type: 'LOAD' }).status).toBe('LOADING');
    expect(stepUpReducer(challenge, { type: 'CHALLENGE_FAILED' })).toBe(challenge);
    expect(
      stepUpReducer(challenge, {
        type: 'CHALLENGE_LOADED',
        response: { challengeUser: false, activeFactorsData: factors },
      }),
    ).toBe(challenge);
  });

  it('LOADING ignores a verify', () => {
    expect(stepUpReducer(loading, { type: 'VERIFIED' })).toBe(loading);
  });
});
