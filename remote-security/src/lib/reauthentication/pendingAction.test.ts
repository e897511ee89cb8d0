import {
  NO_RESUME,
  PENDING_ACTION_MAX_AGE_MS,
  pendingActionStorageKey,
  pendingKeyFor,
  readPendingAction,
  resumeReducer,
  serializePendingAction,
  type PendingAction,
  type ResumeAction,
  type ResumeState,
} from './pendingAction.js';

const NOW = Date.parse('2026-03-07T10:00:00.000Z');
const SAVED: PendingAction = {
  feature: 'factors',
  key: 'googleAuth',
  sub: '00u1alice',
  savedAt: NOW - 60_000,
};
const stored = (action: Partial<PendingAction> = {}) => serializePendingAction({ ...SAVED, ...action });
const isFactor = (key: string): key is 'email' | 'googleAuth' => key === 'email' || key === 'googleAuth';

describe('the remembered action', () => {
  it('is kept per holder', () => {
    expect(pendingActionStorageKey('00u1alice')).not.toBe(pendingActionStorageKey('00u2bob'));
  });

  it("reads back what was saved, for the same holder within 10 minutes (the limit's edge included)", () => {
    expect(readPendingAction(stored(), '00u1alice', NOW)).toEqual(SAVED);
    expect(readPendingAction(stored({ savedAt: NOW - PENDING_ACTION_MAX_AGE_MS }), '00u1alice', NOW)).toEqual(
      {
        ...SAVED,
        savedAt: NOW - PENDING_ACTION_MAX_AGE_MS,
      },
    );
  });

  it.each<[string, string | null]>([
    ['nothing saved', null],
    ['text that is not JSON', '{oops'],
    ['JSON that is not a record', '"factors"'],
    ['null', 'null'],
    ['a record without a key', JSON.stringify({ feature: 'factors', sub: '00u1alice', savedAt: NOW })],
    ['a time that is not a number', stored({ savedAt: 'yesterday' as unknown as number })],
    ["another holder's", stored({ sub: '00u2bob' })],
    ['older than 10 minutes', stored({ savedAt: NOW - PENDING_ACTION_MAX_AGE_MS - 1 })],
    ['from the future (a clock put back)', stored({ savedAt: NOW + 1000 })],
  ])('ignores %s', (_case, raw) => {
    expect(readPendingAction(raw, '00u1alice', NOW)).toBeNull();
  });

  it("gives a feature its own key only: not another feature's, not a key it does not know", () => {
    expect(pendingKeyFor(stored(), 'factors', isFactor, '00u1alice', NOW)).toBe('googleAuth');
    expect(pendingKeyFor(stored(), 'passkeys', isFactor, '00u1alice', NOW)).toBeNull();
    expect(pendingKeyFor(stored({ key: 'sms' }), 'factors', isFactor, '00u1alice', NOW)).toBeNull();
    expect(pendingKeyFor(stored(), 'factors', isFactor, '00u2bob', NOW)).toBeNull();
  });
});

describe('resumeReducer', () => {
  const pending: ResumeState<string> = { status: 'PENDING', key: 'googleAuth' };
  const resuming: ResumeState<string> = { status: 'RESUMING', key: 'googleAuth' };

  it.each<[string, ResumeState<string>, ResumeAction<string>, ResumeState<string>]>([
    [
      'NONE → PENDING when the page loads with a record',
      NO_RESUME,
      { type: 'FOUND', key: 'googleAuth' },
      pending,
    ],
    ['PENDING → RESUMING once the feature is ready', pending, { type: 'READY' }, resuming],
  ])('%s', (_name, state, action, expected) => {
    expect(resumeReducer(state, action)).toEqual(expected);
  });

  it.each<[string, ResumeState<string>, ResumeAction<string>]>([
    ['readiness with nothing to resume', NO_RESUME, { type: 'READY' }],
    ['a second record while one waits', pending, { type: 'FOUND', key: 'email' }],
    ['readiness again once resumed (once only)', resuming, { type: 'READY' }],
    ['a record again once resumed', resuming, { type: 'FOUND', key: 'googleAuth' }],
  ])('ignores %s', (_name, state, action) => {
    expect(resumeReducer(state, action)).toBe(state);
  });
});
