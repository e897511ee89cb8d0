import {
  busyWith,
  initialSignOut,
  signOutReducer,
  type SignOutState,
  type SignOutTarget,
} from './signOutFlow.js';

const ONE: SignOutTarget = { scope: 'one', id: 'laptop', name: 'Chrome on Windows' };
const OTHERS: SignOutTarget = { scope: 'others' };
const EVERYWHERE: SignOutTarget = { scope: 'everywhere' };
const at = (status: SignOutState['status'], target: SignOutTarget = ONE, more: Partial<SignOutState> = {}) =>
  ({ status, target, ...more }) as SignOutState;

describe('signOutReducer', () => {
  it('IDLE → SIGNING_OUT at once for one session', () => {
    expect(signOutReducer(initialSignOut, { type: 'START', target: ONE })).toEqual(at('SIGNING_OUT'));
  });

  it.each([OTHERS, EVERYWHERE])('IDLE → CONFIRMING first for a broad sign-out (%o)', (target) => {
    expect(signOutReducer(initialSignOut, { type: 'START', target })).toEqual(at('CONFIRMING', target));
  });

  it('CONFIRMING → SIGNING_OUT on CONFIRM, → IDLE on CANCEL (keeping the target: its button gets the focus back)', () => {
    expect(signOutReducer(at('CONFIRMING', OTHERS), { type: 'CONFIRM' })).toEqual(at('SIGNING_OUT', OTHERS));
    expect(signOutReducer(at('CONFIRMING', OTHERS), { type: 'CANCEL' })).toEqual(at('IDLE', OTHERS));
  });

  it('SIGNING_OUT → DONE with the message', () => {
    expect(signOutReducer(at('SIGNING_OUT'), { type: 'SUCCEEDED', message: 'Signed out.' })).toEqual(
      at('DONE', ONE, { message: 'Signed out.' }),
    );
  });

  it('SIGNING_OUT → FAILED with the message', () => {
    expect(signOutReducer(at('SIGNING_OUT'), { type: 'FAILED', message: 'Gone already.' })).toEqual(
      at('FAILED', ONE, { message: 'Gone already.' }),
    );
  });

  it('SIGNING_OUT everywhere → SIGNED_OUT_EVERYWHERE, which nothing leaves', () => {
    const ended = signOutReducer(at('SIGNING_OUT', EVERYWHERE), { type: 'SIGNED_OUT_EVERYWHERE' });
    expect(ended).toEqual(at('SIGNED_OUT_EVERYWHERE', EVERYWHERE));
    expect(signOutReducer(ended, { type: 'START', target: ONE })).toBe(ended);
    // Only a sign-out everywhere ends this session.
    expect(signOutReducer(at('SIGNING_OUT', OTHERS), { type: 'SIGNED_OUT_EVERYWHERE' })).toEqual(
      at('SIGNING_OUT', OTHERS),
    );
  });

  it('SIGNING_OUT → STEP_UP_LOADING on the first step_up_required', () => {
    expect(signOutReducer(at('SIGNING_OUT'), { type: 'STEP_UP_REQUIRED', message: 'Verify' })).toEqual(
      at('STEP_UP_LOADING'),
    );
  });

  it('SIGNING_OUT → FAILED that offers a new sign-in first (reauthentication_required)', () => {
    expect(
      signOutReducer(at('SIGNING_OUT'), { type: 'FAILED', message: 'Sign in again.', signInAgain: true }),
    ).toEqual(at('FAILED', ONE, { message: 'Sign in again.', signInAgain: true }));
  });

  it('FAILED → FAILED: the new sign-in could not start, said in place of the last message, the offer kept', () => {
    const failed = at('FAILED', ONE, { message: 'Sign in again.', signInAgain: true });
    expect(signOutReducer(failed, { type: 'FAILED', message: 'Unreachable.' })).toEqual(
      at('FAILED', ONE, { message: 'Unreachable.', signInAgain: true }),
    );
    expect(signOutReducer(at('DONE', ONE, { message: 'Done.' }), { type: 'FAILED', message: 'No.' })).toEqual(
      at('DONE', ONE, { message: 'Done.' }),
    );
  });

  it('SIGNING_OUT after a step-up → FAILED on a second step_up_required: said, not looped', () => {
    const again = at('SIGNING_OUT', ONE, { steppedUp: true });
    expect(signOutReducer(again, { type: 'STEP_UP_REQUIRED', message: 'Verify' })).toEqual(
      at('FAILED', ONE, { message: 'Verify' }),
    );
  });

  it('STEP_UP_LOADING → STEPPING_UP with the factors, recovery codes and default method of the challenge', () => {
    const next = signOutReducer(at('STEP_UP_LOADING'), {
      type: 'CHALLENGE_LOADED',
      response: {
        challengeUser: true,
        activeFactorsData: { googleAuth: {}, email: { maskedEmail: 'a***@example.com' } },
        recoveryCodes: { left: 3 },
        preferredMethod: 'email',
      },
    });
    expect(next).toEqual(
      at('STEPPING_UP', ONE, {
        activeFactorsData: { googleAuth: {}, email: { maskedEmail: 'a***@example.com' } },
        recoveryCodes: { left: 3 },
        preferredMethod: 'email',
      }),
    );
  });

  it('STEP_UP_LOADING → SIGNING_OUT again when no challenge is due (verified meanwhile)', () => {
    const next = signOutReducer(at('STEP_UP_LOADING'), {
      type: 'CHALLENGE_LOADED',
      response: { challengeUser: false, activeFactorsData: {} },
    });
    expect(next).toEqual(at('SIGNING_OUT', ONE, { steppedUp: true }));
  });

  it('STEP_UP_LOADING → STEPPING_UP with no factors when the challenge failed (the screens say Error)', () => {
    expect(signOutReducer(at('STEP_UP_LOADING'), { type: 'CHALLENGE_FAILED' })).toEqual(
      at('STEPPING_UP', ONE, { activeFactorsData: {} }),
    );
  });

  it('STEPPING_UP → SIGNING_OUT once verified, → STEP_UP_LOADING on RETRY, → IDLE on CANCEL', () => {
    const stepping = at('STEPPING_UP', OTHERS, { activeFactorsData: {} });
    expect(signOutReducer(stepping, { type: 'STEP_UP_VERIFIED' })).toEqual(
      at('SIGNING_OUT', OTHERS, { steppedUp: true }),
    );
    expect(signOutReducer(stepping, { type: 'RETRY' })).toEqual(at('STEP_UP_LOADING', OTHERS));
    expect(signOutReducer(stepping, { type: 'CANCEL' })).toEqual(at('IDLE', OTHERS));
    expect(signOutReducer(at('STEP_UP_LOADING'), { type: 'CANCEL' })).toEqual(at('IDLE'));
  });

  it('DONE and FAILED take a new START, and drop the last message', () => {
    const done = at('DONE', ONE, { message: 'Signed out.' });
    expect(signOutReducer(done, { type: 'START', target: OTHERS })).toEqual(at('CONFIRMING', OTHERS));
    const failed = at('FAILED', ONE, { message: 'No.' });
    expect(signOutReducer(failed, { type: 'START', target: ONE })).toEqual(at('SIGNING_OUT'));
  });

  it('ignores a second START while one is under way, and stray answers', () => {
    const busy = at('SIGNING_OUT');
    expect(signOutReducer(busy, { type: 'START', target: OTHERS })).toBe(busy);
    expect(signOutReducer(initialSignOut, { type: 'SUCCEEDED', message: 'x' })).toBe(initialSignOut);
    expect(signOutReducer(at('CONFIRMING', OTHERS), { type: 'STEP_UP_VERIFIED' })).toEqual(
      at('CONFIRMING', OTHERS),
    );
  });

  it('busyWith names the target while the sign-out or its step-up is under way only', () => {
    expect(busyWith(at('SIGNING_OUT'))).toEqual(ONE);
    expect(busyWith(at('STEPPING_UP'))).toEqual(ONE);
    expect(busyWith(at('CONFIRMING', OTHERS))).toBeUndefined();
    expect(busyWith(at('DONE'))).toBeUndefined();
  });
});
