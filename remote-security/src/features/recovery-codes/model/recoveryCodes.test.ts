import type { RecoveryCodesStatus } from 'shared-auth';
import {
  codesFileText,
  codesLeftLabel,
  hasCodes,
  initialRecoveryCodesState,
  isLow,
  lowCodesWarning,
  recoveryCodesReducer,
  type RecoveryCodesAction,
  type RecoveryCodesState,
  type RecoveryCodesView,
} from './recoveryCodes.js';

const DATE = '2026-03-07T12:00:00.000Z';
const CODES = Array.from({ length: 10 }, (_, index) => `ABCDE-FGH${index}K`);
const NONE: RecoveryCodesStatus = { available: true, left: 0, total: 0, generatedAt: null };
const SOME: RecoveryCodesStatus = { available: true, left: 7, total: 10, generatedAt: DATE };
const UNAVAILABLE: RecoveryCodesStatus = { available: false, left: 0, total: 0, generatedAt: null };

const at = (
  view: RecoveryCodesView,
  status: RecoveryCodesStatus = SOME,
  extra: Partial<RecoveryCodesState> = {},
) => ({ ...initialRecoveryCodesState, view, status, ...extra }) as RecoveryCodesState;
const run = (start: RecoveryCodesState, ...actions: RecoveryCodesAction[]) =>
  actions.reduce(recoveryCodesReducer, start);

describe('recovery codes: status', () => {
  it('starts LOADING; LOADED → READY with the status; LOAD_FAILED → ERROR; ERROR + LOAD → LOADING', () => {
    expect(initialRecoveryCodesState.view).toBe('LOADING');
    expect(recoveryCodesReducer(initialRecoveryCodesState, { type: 'LOADED', status: SOME })).toEqual(
      at('READY'),
    );
    const error = recoveryCodesReducer(initialRecoveryCodesState, { type: 'LOAD_FAILED' });
    expect(error.view).toBe('ERROR');
    expect(recoveryCodesReducer(error, { type: 'LOAD' }).view).toBe('LOADING');
  });

  it('READY + LOAD → LOADING (a factor changed); a new status forgets a refusal for want of a factor', () => {
    const refused = at('READY', NONE, { noActiveFactor: true });
    expect(run(refused, { type: 'LOAD' }, { type: 'LOADED', status: NONE })).toEqual(at('READY', NONE));
  });

  it('knows whether a set exists and when it is low (3 or fewer left)', () => {
    expect(hasCodes(NONE)).toBe(false);
    expect(hasCodes(SOME)).toBe(true);
    expect(hasCodes(undefined)).toBe(false);
    expect(isLow(SOME)).toBe(false);
    expect(isLow({ ...SOME, left: 3 })).toBe(true);
    expect(isLow({ ...SOME, left: 0 })).toBe(true);
    expect(isLow(NONE)).toBe(false);
  });
});

describe('recovery codes: generating', () => {
  it('READY without a set + GENERATE → GENERATING (nothing to confirm)', () => {
    expect(recoveryCodesReducer(at('READY', NONE), { type: 'GENERATE' }).view).toBe('GENERATING');
  });

  it('READY with a set + GENERATE → CONFIRM_NEW; CANCEL → READY; CONFIRM → GENERATING', () => {
    const confirm = recoveryCodesReducer(at('READY'), { type: 'GENERATE' });
    expect(confirm.view).toBe('CONFIRM_NEW');
    expect(recoveryCodesReducer(confirm, { type: 'CANCEL' })).toEqual(at('READY'));
    expect(recoveryCodesReducer(confirm, { type: 'CONFIRM' }).view).toBe('GENERATING');
  });

  it('GENERATE does nothing where codes are unavailable, or once refused for want of a factor', () => {
    const unavailable = at('READY', UNAVAILABLE);
    expect(recoveryCodesReducer(unavailable, { type: 'GENERATE' })).toBe(unavailable);
    expect(recoveryCodesReducer(unavailable, { type: 'GENERATE_AFTER_STEP_UP' })).toBe(unavailable);
    const refused = at('READY', NONE, { noActiveFactor: true });
    expect(recoveryCodesReducer(refused, { type: 'GENERATE' })).toBe(refused);
  });

  it('READY + GENERATE_AFTER_STEP_UP → GENERATING without asking again', () => {
    expect(recoveryCodesReducer(at('READY'), { type: 'GENERATE_AFTER_STEP_UP' }).view).toBe('GENERATING');
  });

  it('GENERATING + GENERATED → SAVING with the set, not yet ticked', () => {
    const generated = { codes: CODES, generatedAt: DATE };
    expect(
      recoveryCodesReducer(at('GENERATING', NONE, { saved: true }), { type: 'GENERATED', generated }),
    ).toEqual(at('SAVING', NONE, { generated, saved: false }));
  });

  it('GENERATING refused: no active factor → READY flagged; unavailable → READY unavailable', () => {
    expect(
      recoveryCodesReducer(at('GENERATING', NONE), { type: 'GENERATE_REFUSED', reason: 'noActiveFactor' }),
    ).toEqual(at('READY', NONE, { noActiveFactor: true }));
    expect(
      recoveryCodesReducer(at('GENERATING', NONE), { type: 'GENERATE_REFUSED', reason: 'unavailable' }).status
        ?.available,
    ).toBe(false);
  });

  it('GENERATING + STEP_UP_REQUIRED → READY (the page takes over); GENERATE_FAILED → ERROR', () => {
    expect(recoveryCodesReducer(at('GENERATING'), { type: 'STEP_UP_REQUIRED' })).toEqual(at('READY'));
    expect(recoveryCodesReducer(at('GENERATING'), { type: 'GENERATE_FAILED' }).view).toBe('ERROR');
  });

  it.each(['LOADING', 'CONFIRM_NEW', 'GENERATING', 'SAVING'] as const)('%s ignores LOAD', (view) => {
    const current = at(view);
    expect(recoveryCodesReducer(current, { type: 'LOAD' })).toBe(current);
  });
});

describe('recovery codes: the dialog', () => {
  const generated = { codes: CODES, generatedAt: '2026-11-27T09:00:00.000Z' };
  const saving = at('SAVING', NONE, { generated });

  it('DONE does nothing until the box is ticked', () => {
    expect(recoveryCodesReducer(saving, { type: 'DONE' })).toBe(saving);
    const ticked = recoveryCodesReducer(saving, { type: 'SAVED_CHANGED', saved: true });
    expect(ticked.saved).toBe(true);
    expect(recoveryCodesReducer(ticked, { type: 'SAVED_CHANGED', saved: false }).saved).toBe(false);
  });

  it('ticked + DONE → READY with 10 of 10 left, and the codes are dropped', () => {
    const done = run(saving, { type: 'SAVED_CHANGED', saved: true }, { type: 'DONE' });
    expect(done).toEqual({
      view: 'READY',
      status: { available: true, left: 10, total: 10, generatedAt: generated.generatedAt },
      noActiveFactor: false,
      saved: false,
    });
    expect(done.generated).toBeUndefined();
  });
});

describe('recovery codes: texts', () => {
  it("'{n} of 10 codes left · generated {date}'", () => {
    expect(codesLeftLabel(SOME)).toBe('7 of 10 codes left · generated Mar 7, 2026');
  });

  it('the low-count warning', () => {
    expect(lowCodesWarning(3)).toBe(
      "Only 3 recovery codes left. Generate new ones so you don't get locked out.",
    );
    expect(lowCodesWarning(1)).toBe(
      "Only 1 recovery code left. Generate new ones so you don't get locked out.",
    );
    expect(lowCodesWarning(0)).toBe("No recovery codes left. Generate new ones so you don't get locked out.");
  });

  it('the downloaded file names the account and the date, then lists the codes', () => {
    const text = codesFileText('alice@example.com', { codes: CODES, generatedAt: DATE });
    expect(text.split('\n')).toEqual([
      'Recovery codes for alice@example.com',
      'Generated Mar 7, 2026',
      'Each code works once.',
      '',
      ...CODES,
      '',
    ]);
  });
});
