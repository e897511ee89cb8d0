import {
  factorsReducer,
  initialFactorsState,
  type FactorsAction,
  type FactorsState,
} from './factorsReducer.js';

const MASKED = 'a....e@example.com';
const DATE = '2026-03-07T12:00:00.000Z';
const run = (start: FactorsState, ...actions: FactorsAction[]) => actions.reduce(factorsReducer, start);

const loaded = (
  google: { active: boolean; enrolled: boolean },
  email: { active: boolean; enrolled: boolean },
  turnOff: 'keeps' | 'removes' = 'keeps',
) =>
  run(
    initialFactorsState,
    {
      type: 'DETAILS_LOADED',
      factor: 'googleAuth',
      ...google,
      enrolledDate: google.enrolled ? DATE : null,
      maskedEmail: MASKED,
      turnOff,
    },
    {
      type: 'DETAILS_LOADED',
      factor: 'email',
      ...email,
      enrolledDate: email.enrolled ? DATE : null,
      maskedEmail: MASKED,
      turnOff,
    },
  );

describe('factors page state', () => {
  it('builds the data from the details: email exists only once enrolled; the count is recomputed', () => {
    const none = loaded({ active: false, enrolled: false }, { active: false, enrolled: false });
    expect(none.data).toEqual({ googleAuth: { status: 'INACTIVE', enrolledDate: null } });
    expect(none.factorsCount).toBe(0);
    expect(none.views.googleAuth.enrolment).toBe('NOT_STARTED');
    expect(none.views.email.enrolment).toBe('NOT_STARTED');

    const both = loaded({ active: true, enrolled: true }, { active: true, enrolled: true });
    expect(both.data.email).toEqual({ status: 'ACTIVE', enrolledDate: DATE, maskedEmail: MASKED });
    expect(both.factorsCount).toBe(2);
    expect(both.views.email.enrolment).toBe('ACTIVE');
  });

  it("switched on again after 'Sign in again': email's set-up sends its code as it shows; the app's has no send", () => {
    const none = loaded({ active: false, enrolled: false }, { active: false, enrolled: false });
    const email = factorsReducer(none, { type: 'SWITCH_ON', factor: 'email', resumed: true });
    expect(email.views.email).toMatchObject({ enrolling: true, sendOnShow: true });
    const app = factorsReducer(none, { type: 'SWITCH_ON', factor: 'googleAuth', resumed: true });
    expect(app.views.googleAuth).toMatchObject({ enrolling: true, sendOnShow: false });
    // By the holder's own hand: the holder presses Send Code.
    expect(factorsReducer(none, { type: 'SWITCH_ON', factor: 'email' }).views.email.sendOnShow).toBe(false);
    // Set up already (turned off): the opt-in runs, no set-up shows.
    const off = loaded({ active: false, enrolled: true }, { active: false, enrolled: true });
    expect(
      factorsReducer(off, { type: 'SWITCH_ON', factor: 'email', resumed: true }).views.email,
    ).toMatchObject({
      busy: true,
      enrolling: false,
      sendOnShow: false,
    });
  });

  it('switch on of a factor not set up opens its enrolment; switch off closes it again', () => {
    const none = loaded({ active: false, enrolled: false }, { active: false, enrolled: false });
    const enrolling = factorsReducer(none, { type: 'SWITCH_ON', factor: 'email' });
    expect(enrolling.views.email.enrolling).toBe(true);
    expect(enrolling.views.email.busy).toBe(false);
    expect(factorsReducer(enrolling, { type: 'SWITCH_OFF', factor: 'email' }).views.email.enrolling).toBe(
      false,
    );
  });

  it('switch on of a factor that is set up but off: busy, then on with the count up by 1', () => {
    const off = loaded({ active: false, enrolled: true }, { active: true, enrolled: true });
    expect(off.factorsCount).toBe(1);
    const busy = factorsReducer(off, { type: 'SWITCH_ON', factor: 'googleAuth' });
    expect(busy.views.googleAuth.busy).toBe(true);
    const on = factorsReducer(busy, {
      type: 'OPT_IN_SUCCEEDED',
      factor: 'googleAuth',
      enrolledDate: DATE,
      maskedEmail: MASKED,
    });
    expect(on.data.googleAuth).toEqual({ status: 'ACTIVE', enrolledDate: DATE });
    expect(on.factorsCount).toBe(2);
    expect(on.views.googleAuth.busy).toBe(false);
  });

  it("opt-in keeps what the factor's entry had (email: the masked address)", () => {
    const off = loaded({ active: true, enrolled: true }, { active: false, enrolled: true });
    expect(off.data.email).toEqual({ status: 'INACTIVE', enrolledDate: DATE, maskedEmail: MASKED });
    const on = run(
      off,
      { type: 'SWITCH_ON', factor: 'email' },
      { type: 'OPT_IN_SUCCEEDED', factor: 'email', enrolledDate: null, maskedEmail: MASKED },
    );
    expect(on.data.email).toEqual({ status: 'ACTIVE', enrolledDate: DATE, maskedEmail: MASKED });
    expect(on.factorsCount).toBe(2);
  });

  it('email turned off and on again shows its masked address again', () => {
    const both = loaded({ active: true, enrolled: true }, { active: true, enrolled: true });
    const off = run(
      both,
      { type: 'SWITCH_OFF', factor: 'email' },
      { type: 'DIALOG_CONFIRM' },
      { type: 'OPT_OUT_SUCCEEDED', factor: 'email' },
    );
    expect(off.data.email).toBeUndefined();
    const on = run(
      off,
      { type: 'SWITCH_ON', factor: 'email' },
      { type: 'OPT_IN_SUCCEEDED', factor: 'email', enrolledDate: null, maskedEmail: MASKED },
    );
    expect(on.data.email).toEqual({ status: 'ACTIVE', enrolledDate: DATE, maskedEmail: MASKED });
  });

  it('a cancelled turn-on leaves the factor off: no enrolment form, not busy, no error', () => {
    const none = loaded({ active: false, enrolled: false }, { active: false, enrolled: false });
    const enrolling = factorsReducer(none, { type: 'SWITCH_ON', factor: 'googleAuth' });
    expect(factorsReducer(enrolling, { type: 'TURN_ON_CANCELLED', factor: 'googleAuth' })).toEqual(none);

    const off = loaded({ active: false, enrolled: true }, { active: false, enrolled: false });
    const busy = factorsReducer(off, { type: 'SWITCH_ON', factor: 'googleAuth' });
    const cancelled = factorsReducer(busy, { type: 'TURN_ON_CANCELLED', factor: 'googleAuth' });
    expect(cancelled).toEqual(off);
    expect(cancelled.views.googleAuth.enrolment).toBe('ACTIVE');
    expect(cancelled.data.googleAuth?.status).toBe('INACTIVE');
  });

  it('switch off of an active factor asks first; Cancel keeps it on', () => {
    const both = loaded({ active: true, enrolled: true }, { active: true, enrolled: true });
    const asking = factorsReducer(both, { type: 'SWITCH_OFF', factor: 'email' });
    expect(asking.dialog).toEqual({ kind: 'turnOff', factor: 'email', turnOff: 'keeps' });
    expect(factorsReducer(asking, { type: 'DIALOG_CANCEL' })).toEqual({ ...both, dialog: null });
  });

  it('confirmed turn-off: the factor leaves the data and the count falls by 1; it stays set up', () => {
    const both = loaded({ active: true, enrolled: true }, { active: true, enrolled: true });
    const confirmed = run(both, { type: 'SWITCH_OFF', factor: 'googleAuth' }, { type: 'DIALOG_CONFIRM' });
    expect(confirmed.dialog).toBeNull();
    expect(confirmed.views.googleAuth.busy).toBe(true);
    const off = factorsReducer(confirmed, { type: 'OPT_OUT_SUCCEEDED', factor: 'googleAuth' });
    expect(off.data.googleAuth).toBeUndefined();
    expect(off.factorsCount).toBe(1);
    expect(off.views.googleAuth.enrolment).toBe('ACTIVE');
    // Back on: the date comes back.
    const on = run(
      off,
      { type: 'SWITCH_ON', factor: 'googleAuth' },
      { type: 'OPT_IN_SUCCEEDED', factor: 'googleAuth', enrolledDate: null, maskedEmail: MASKED },
    );
    expect(on.data.googleAuth).toEqual({ status: 'ACTIVE', enrolledDate: DATE });
  });

  it('where off removes (Okta mode): the dialog knows it, and a confirmed turn-off leaves the factor NOT_STARTED, the count down by 1', () => {
    const both = loaded({ active: true, enrolled: true }, { active: true, enrolled: true }, 'removes');
    const asking = factorsReducer(both, { type: 'SWITCH_OFF', factor: 'googleAuth' });
    expect(asking.dialog).toEqual({ kind: 'turnOff', factor: 'googleAuth', turnOff: 'removes' });
    const off = run(asking, { type: 'DIALOG_CONFIRM' }, { type: 'OPT_OUT_SUCCEEDED', factor: 'googleAuth' });
    expect(off.data.googleAuth).toBeUndefined();
    expect(off.factorsCount).toBe(1);
    expect(off.views.googleAuth).toMatchObject({ enrolment: 'NOT_STARTED', busy: false, enrolledDate: null });
    // Switched on again, it is set up again: the enrolment form shows.
    expect(factorsReducer(off, { type: 'SWITCH_ON', factor: 'googleAuth' }).views.googleAuth.enrolling).toBe(
      true,
    );
  });

  it('removal: asks, then the status is off, the state NOT_STARTED and the count falls by 1', () => {
    const both = loaded({ active: true, enrolled: true }, { active: true, enrolled: true });
    const asking = factorsReducer(both, { type: 'REMOVE', factor: 'email' });
    expect(asking.dialog).toEqual({ kind: 'remove', factor: 'email' });
    const removed = run(asking, { type: 'DIALOG_CONFIRM' }, { type: 'RESET_SUCCEEDED', factor: 'email' });
    expect(removed.data.email).toBeUndefined();
    expect(removed.views.email.enrolment).toBe('NOT_STARTED');
    expect(removed.factorsCount).toBe(1);
  });

  it('enrolment: email code sent → PENDING_ACTIVATION; activation → ACTIVE with the count up by 1', () => {
    const none = loaded({ active: false, enrolled: false }, { active: false, enrolled: false });
    const pending = run(none, { type: 'SWITCH_ON', factor: 'email' }, { type: 'CODE_SENT', factor: 'email' });
    expect(pending.views.email.enrolment).toBe('PENDING_ACTIVATION');
    const active = factorsReducer(pending, {
      type: 'ACTIVATED',
      factor: 'email',
      enrolledDate: DATE,
      maskedEmail: MASKED,
    });
    expect(active.views.email).toMatchObject({ enrolment: 'ACTIVE', enrolling: false });
    expect(active.data.email).toEqual({ status: 'ACTIVE', enrolledDate: DATE, maskedEmail: MASKED });
    expect(active.factorsCount).toBe(1);
    const ga = run(
      active,
      { type: 'SWITCH_ON', factor: 'googleAuth' },
      { type: 'ACTIVATED', factor: 'googleAuth', enrolledDate: DATE, maskedEmail: MASKED },
    );
    expect(ga.views.googleAuth.enrolment).toBe('ACTIVE');
    expect(ga.factorsCount).toBe(2);
  });

  it('a failure shows the error view of that factor and closes the dialog', () => {
    const both = loaded({ active: true, enrolled: true }, { active: true, enrolled: true });
    const failed = run(
      both,
      { type: 'SWITCH_OFF', factor: 'email' },
      { type: 'DIALOG_CONFIRM' },
      { type: 'FAILED', factor: 'email' },
    );
    expect(failed.views.email.enrolment).toBe('ERROR');
    expect(failed.views.email.busy).toBe(false);
    expect(failed.views.googleAuth.enrolment).toBe('ACTIVE');
    expect(
      factorsReducer(initialFactorsState, { type: 'DETAILS_FAILED', factor: 'googleAuth' }).views.googleAuth
        .enrolment,
    ).toBe('ERROR');
  });

  it('ignores a second switch-on while busy and a switch-off of a factor that is off', () => {
    const off = loaded({ active: false, enrolled: true }, { active: true, enrolled: true });
    const busy = factorsReducer(off, { type: 'SWITCH_ON', factor: 'googleAuth' });
    expect(factorsReducer(busy, { type: 'SWITCH_ON', factor: 'googleAuth' })).toBe(busy);
    expect(factorsReducer(off, { type: 'SWITCH_OFF', factor: 'googleAuth' })).toBe(off);
    expect(factorsReducer(off, { type: 'DIALOG_CONFIRM' })).toBe(off);
  });
});
