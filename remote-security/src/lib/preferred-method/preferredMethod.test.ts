import {
  initialPreferredMethod,
  preferredMethodReducer,
  type PreferredMethodAction,
  type PreferredMethodState,
} from './preferredMethod.js';

const idle = (preferred?: PreferredMethodState['preferred']) => initialPreferredMethod(preferred);
const saving = (target: PreferredMethodState['target'], preferred?: PreferredMethodState['preferred']) => ({
  ...idle(preferred),
  status: 'SAVING' as const,
  target,
});

describe('the default method: IDLE', () => {
  it('starts from the challenge’s default, or none', () => {
    expect(idle('email')).toEqual({ status: 'IDLE', preferred: 'email' });
    expect(idle()).toEqual({ status: 'IDLE' });
  });

  it('CHOOSE another method: SAVING it; the default itself: nothing', () => {
    expect(preferredMethodReducer(idle('email'), { type: 'CHOOSE', method: 'passkey' })).toEqual(
      saving('passkey', 'email'),
    );
    const state = idle('email');
    expect(preferredMethodReducer(state, { type: 'CHOOSE', method: 'email' })).toBe(state);
  });

  it('CHOOSE clears the last refusal', () => {
    const refused: PreferredMethodState = { ...idle(), target: 'email', error: 'No.' };
    expect(preferredMethodReducer(refused, { type: 'CHOOSE', method: 'googleAuth' })).toEqual(
      saving('googleAuth'),
    );
  });

  it('METHOD_GONE forgets the default only when it is that method', () => {
    expect(preferredMethodReducer(idle('email'), { type: 'METHOD_GONE', method: 'email' })).toEqual(idle());
    expect(preferredMethodReducer(idle('email'), { type: 'METHOD_GONE', method: 'passkey' })).toEqual(
      idle('email'),
    );
  });

  it('ignores the answers of a call it is not waiting for', () => {
    const state = idle('email');
    const stray: PreferredMethodAction[] = [
      { type: 'CHOSEN', method: 'passkey' },
      { type: 'FAILED', error: 'No.' },
      { type: 'STEP_UP' },
    ];
    for (const action of stray) expect(preferredMethodReducer(state, action)).toBe(state);
  });
});

describe('the default method: SAVING', () => {
  it('CHOSEN: IDLE with the new default', () => {
    expect(preferredMethodReducer(saving('passkey', 'email'), { type: 'CHOSEN', method: 'passkey' })).toEqual(
      idle('passkey'),
    );
  });

  it('FAILED: IDLE with the old default and the refusal beside the method', () => {
    expect(preferredMethodReducer(saving('passkey', 'email'), { type: 'FAILED', error: 'No.' })).toEqual({
      ...idle('email'),
      target: 'passkey',
      error: 'No.',
    });
  });

  it('STEP_UP: IDLE with the old default and nothing to show (the page runs the step-up)', () => {
    expect(preferredMethodReducer(saving('passkey', 'email'), { type: 'STEP_UP' })).toEqual(idle('email'));
  });

  it('METHOD_GONE of the old default: still SAVING, with no default until the answer', () => {
    expect(
      preferredMethodReducer(saving('passkey', 'email'), { type: 'METHOD_GONE', method: 'email' }),
    ).toEqual(saving('passkey'));
    const state = saving('passkey', 'email');
    expect(preferredMethodReducer(state, { type: 'METHOD_GONE', method: 'googleAuth' })).toBe(state);
  });

  it('a second CHOOSE waits for the first answer', () => {
    const state = saving('passkey', 'email');
    expect(preferredMethodReducer(state, { type: 'CHOOSE', method: 'googleAuth' })).toBe(state);
  });
});
