import { ApiError, type Passkey, type PasskeyList } from 'shared-auth';
import {
  addFailureNotice,
  addMode,
  callFailureNotice,
  initialPasskeysState,
  nameError,
  passkeyDates,
  passkeysReducer,
  type PasskeysAction,
  type PasskeysState,
} from './passkeys.js';

const LAPTOP: Passkey = {
  id: 'pk1',
  name: 'MacBook Pro',
  createdAt: '2026-03-07T12:00:00.000Z',
  lastUsedAt: null,
  synced: true,
};
const KEY: Passkey = { ...LAPTOP, id: 'pk2', name: 'YubiKey 5', synced: false };
const LIST: PasskeyList = { available: true, canRename: true, enrolment: 'ceremony', passkeys: [LAPTOP] };
const NO_NAMES: PasskeyList = { ...LIST, canRename: false };

const ready = (list: PasskeyList = LIST, more: Partial<PasskeysState> = {}): PasskeysState => ({
  view: 'READY',
  list,
  ...more,
});
const at = (view: PasskeysState['view'], more: Partial<PasskeysState> = {}): PasskeysState => ({
  ...ready(),
  view,
  ...more,
});
const run = (start: PasskeysState, ...actions: PasskeysAction[]) => actions.reduce(passkeysReducer, start);

describe('passkeysReducer', () => {
  it.each<[string, PasskeysState, PasskeysAction, PasskeysState]>([
    ['LOADING → READY with the list', initialPasskeysState, { type: 'LOADED', list: LIST }, ready()],
    [
      'LOADING → ERROR when the list cannot be read',
      initialPasskeysState,
      { type: 'LOAD_FAILED' },
      { view: 'ERROR' },
    ],
    ['ERROR → LOADING on Try again', { view: 'ERROR' }, { type: 'LOAD' }, { view: 'LOADING' }],
    ['READY → LOADING when read again', ready(), { type: 'LOAD' }, at('LOADING')],
    [
      'READY → ADDING on Add, the last message gone',
      ready(LIST, { notice: 'x' }),
      { type: 'ADD' },
      at('ADDING'),
    ],
    [
      'ADDING → NAMING the new passkey (its default name) where names are ours',
      at('ADDING'),
      { type: 'ADDED', passkey: KEY },
      at('NAMING', { list: { ...LIST, passkeys: [LAPTOP, KEY] }, naming: 'NEW', target: 'pk2' }),
    ],
    [
      'ADDING → READY with the new passkey where the backend keeps no names of ours',
      at('ADDING', { list: NO_NAMES }),
      { type: 'ADDED', passkey: KEY },
      ready({ ...NO_NAMES, passkeys: [LAPTOP, KEY] }, { target: 'pk2' }),
    ],
    [
      'ADDING → READY with why it failed',
      at('ADDING'),
      { type: 'ADD_FAILED', notice: 'why' },
      ready(LIST, { notice: 'why' }),
    ],
    [
      'ADDING → READY with nothing to say (cancelled, step-up)',
      at('ADDING'),
      { type: 'ADD_STOPPED' },
      ready(),
    ],
    [
      'ADDING → CREATE_READY when the options came after a verification',
      at('ADDING'),
      { type: 'READY_TO_CREATE' },
      at('CREATE_READY'),
    ],
    ['CREATE_READY → ADDING on Create passkey', at('CREATE_READY'), { type: 'CREATE' }, at('ADDING')],
    ['CREATE_READY → READY on Cancel, nothing said', at('CREATE_READY'), { type: 'CANCEL_CREATE' }, ready()],
    [
      'READY → NAMING on Rename',
      ready(),
      { type: 'RENAME', id: 'pk1' },
      at('NAMING', { naming: 'RENAME', target: 'pk1' }),
    ],
    [
      'NAMING → SAVING_NAME on Save',
      at('NAMING', { naming: 'NEW', target: 'pk1', nameError: 'x' }),
      { type: 'SAVE_NAME' },
      at('SAVING_NAME', { naming: 'NEW', target: 'pk1' }),
    ],
    [
      'NAMING → READY on Skip or Cancel, the name kept',
      at('NAMING', { naming: 'NEW', target: 'pk1' }),
      { type: 'CLOSE_NAME' },
      ready(LIST, { target: 'pk1' }),
    ],
    [
      'SAVING_NAME → READY with the new name',
      at('SAVING_NAME', { naming: 'RENAME', target: 'pk1' }),
      { type: 'NAME_SAVED', passkey: { ...LAPTOP, name: 'Work laptop' } },
      ready({ ...LIST, passkeys: [{ ...LAPTOP, name: 'Work laptop' }] }, { target: 'pk1' }),
    ],
    [
      'SAVING_NAME → NAMING with a refused name under the field',
      at('SAVING_NAME', { naming: 'RENAME', target: 'pk1' }),
      { type: 'NAME_REFUSED', error: 'Enter a name' },
      at('NAMING', { naming: 'RENAME', target: 'pk1', nameError: 'Enter a name' }),
    ],
    [
      'SAVING_NAME → READY with why, on any other failure',
      at('SAVING_NAME', { naming: 'RENAME', target: 'pk1' }),
      { type: 'NAME_FAILED', notice: 'why' },
      ready(LIST, { target: 'pk1', notice: 'why' }),
    ],
    [
      'READY → CONFIRM_REMOVE on Remove',
      ready(),
      { type: 'REMOVE', id: 'pk1' },
      at('CONFIRM_REMOVE', { target: 'pk1' }),
    ],
    [
      'CONFIRM_REMOVE → READY on Cancel',
      at('CONFIRM_REMOVE', { target: 'pk1' }),
      { type: 'CANCEL_REMOVE' },
      ready(LIST, { target: 'pk1' }),
    ],
    [
      'CONFIRM_REMOVE → REMOVING on Confirm',
      at('CONFIRM_REMOVE', { target: 'pk1' }),
      { type: 'CONFIRM_REMOVE' },
      at('REMOVING', { target: 'pk1' }),
    ],
    [
      'READY → REMOVING at once after the step-up the removal asked for',
      ready(),
      { type: 'REMOVE_AFTER_STEP_UP', id: 'pk1' },
      at('REMOVING', { target: 'pk1' }),
    ],
    [
      'REMOVING → READY with the server list',
      at('REMOVING', { target: 'pk1' }),
      { type: 'REMOVED', list: { ...LIST, passkeys: [] } },
      ready({ ...LIST, passkeys: [] }, { target: 'pk1' }),
    ],
    [
      'REMOVING → READY with the server text (409 last_factor)',
      at('REMOVING', { target: 'pk1' }),
      { type: 'REMOVE_FAILED', notice: 'last' },
      ready(LIST, { target: 'pk1', notice: 'last' }),
    ],
    [
      'REMOVING → READY when the page runs step-up',
      at('REMOVING', { target: 'pk1' }),
      { type: 'REMOVE_STOPPED' },
      ready(LIST, { target: 'pk1' }),
    ],
  ])('%s', (_name, state, action, next) => {
    expect(passkeysReducer(state, action)).toEqual(next);
  });

  it.each<[string, PasskeysState, PasskeysAction]>([
    [
      'Add where the identity provider adds passkeys (hosted)',
      ready({ ...LIST, enrolment: 'hosted' }),
      { type: 'ADD' },
    ],
    ['Add where passkeys are not available', ready({ ...LIST, available: false }), { type: 'ADD' }],
    ['Rename where the backend keeps no names of ours', ready(NO_NAMES), { type: 'RENAME', id: 'pk1' }],
    ['Rename of an unknown passkey', ready(), { type: 'RENAME', id: 'nope' }],
    ['Remove of an unknown passkey', ready(), { type: 'REMOVE', id: 'nope' }],
    [
      'a removal after step-up of a passkey gone meanwhile',
      ready(),
      { type: 'REMOVE_AFTER_STEP_UP', id: 'nope' },
    ],
    ['a second Add while adding', at('ADDING'), { type: 'ADD' }],
    ['Add while the ceremony waits for its click', at('CREATE_READY'), { type: 'ADD' }],
    ['Create passkey when nothing waits for it', ready(), { type: 'CREATE' }],
    ['Create passkey while adding', at('ADDING'), { type: 'CREATE' }],
    ['an answer of the ceremony before its click', at('CREATE_READY'), { type: 'ADDED', passkey: KEY }],
    ['Remove while naming', at('NAMING', { naming: 'NEW', target: 'pk1' }), { type: 'REMOVE', id: 'pk1' }],
    ['Save while saving', at('SAVING_NAME', { naming: 'NEW', target: 'pk1' }), { type: 'SAVE_NAME' }],
    ['Confirm while removing', at('REMOVING', { target: 'pk1' }), { type: 'CONFIRM_REMOVE' }],
    ['an answer while loading', initialPasskeysState, { type: 'REMOVED', list: LIST }],
    ['Add on the error view', { view: 'ERROR' }, { type: 'ADD' }],
  ])('ignores %s', (_name, state, action) => {
    expect(passkeysReducer(state, action)).toBe(state);
  });

  it('a whole path: load → add → name → rename → remove', () => {
    const end = run(
      initialPasskeysState,
      { type: 'LOADED', list: LIST },
      { type: 'ADD' },
      { type: 'ADDED', passkey: KEY },
      { type: 'SAVE_NAME' },
      { type: 'NAME_SAVED', passkey: { ...KEY, name: 'Desk key' } },
      { type: 'RENAME', id: 'pk1' },
      { type: 'CLOSE_NAME' },
      { type: 'REMOVE', id: 'pk1' },
      { type: 'CONFIRM_REMOVE' },
      { type: 'REMOVED', list: { ...LIST, passkeys: [{ ...KEY, name: 'Desk key' }] } },
    );
    expect(end).toEqual(ready({ ...LIST, passkeys: [{ ...KEY, name: 'Desk key' }] }, { target: 'pk1' }));
  });
});

describe('addMode', () => {
  const URL = 'https://example.okta.com/enduser/settings/passkeys';
  it("the ceremony here; the identity provider's page where it adds them (hosted); none otherwise", () => {
    expect(addMode(LIST)).toEqual({ type: 'ceremony' });
    expect(addMode({ ...LIST, enrolment: 'hosted', hostedEnrolmentUrl: URL })).toEqual({
      type: 'hosted',
      url: URL,
    });
    expect(addMode({ ...LIST, enrolment: 'hosted' })).toBeNull();
    expect(addMode({ ...LIST, available: false })).toBeNull();
    expect(addMode({ ...LIST, available: false, enrolment: 'hosted', hostedEnrolmentUrl: URL })).toBeNull();
    expect(addMode(undefined)).toBeNull();
  });
});

describe('passkey texts', () => {
  it("'Added {date}', 'Last used {date}' or 'Never used'", () => {
    expect(passkeyDates(LAPTOP)).toEqual({ added: 'Added Mar 7, 2026', used: 'Never used' });
    expect(passkeyDates({ ...LAPTOP, lastUsedAt: '2026-04-01T08:00:00.000Z' })).toEqual({
      added: 'Added Mar 7, 2026',
      used: 'Last used Apr 1, 2026',
    });
  });

  it('a name is required and at most 64 characters (the contract rule)', () => {
    expect(nameError('')).toBe('Enter a name');
    expect(nameError('   ')).toBe('Enter a name');
    expect(nameError('x'.repeat(65))).toBe('The name must be at most 64 characters');
    expect(nameError('x'.repeat(64))).toBeUndefined();
    expect(nameError(' Work laptop ')).toBeUndefined();
  });

  const browser = (name: string, code = 'ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY') =>
    Object.assign(new Error('browser'), { name, code });

  it.each<[string, unknown, string]>([
    [
      'cancelled or timed out',
      browser('NotAllowedError'),
      'Adding the passkey was cancelled or timed out. Try again.',
    ],
    [
      'an authenticator that cannot verify the user',
      browser('ConstraintError', 'ERROR_AUTHENTICATOR_MISSING_USER_VERIFICATION_SUPPORT'),
      'Your passkey could not be verified.',
    ],
    [
      'already on this device',
      browser('InvalidStateError', 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED'),
      'This device already has a passkey for your account.',
    ],
    [
      'refused by the server',
      new ApiError('The passkey was not accepted.', 400, 'passkey_refused'),
      'The passkey was not accepted.',
    ],
    [
      'too many passkeys (409)',
      new ApiError('You have 10 passkeys already.', 409, 'factor_state'),
      'You have 10 passkeys already.',
    ],
    [
      'the server failed',
      new ApiError('The account service answered 500', 500),
      'An Unexpected Error happened...',
    ],
  ])('adding: %s', (_name, error, notice) => {
    expect(addFailureNotice(error)).toBe(notice);
  });

  it("a removal refused as the last 2-step method shows the server's text", () => {
    expect(callFailureNotice(new ApiError('Keep one 2-step method.', 409, 'last_factor'))).toBe(
      'Keep one 2-step method.',
    );
    expect(callFailureNotice(new ApiError('The account service could not be reached', 0))).toBe(
      'An Unexpected Error happened...',
    );
  });
});
