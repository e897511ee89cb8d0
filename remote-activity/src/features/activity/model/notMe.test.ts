import { initialNotMe, notMeReducer, type NotMeState } from './notMe.js';

const confirming: NotMeState = { status: 'CONFIRMING', eventId: 'e1' };

describe('notMeReducer', () => {
  it('IDLE → CONFIRMING about the event', () => {
    expect(notMeReducer(initialNotMe, { type: 'ASK', eventId: 'e1' })).toEqual(confirming);
  });

  it('CONFIRMING → IDLE on CANCEL, keeping the event (the focus goes back to its button)', () => {
    expect(notMeReducer(confirming, { type: 'CANCEL' })).toEqual({ status: 'IDLE', eventId: 'e1' });
  });

  it('CONFIRMING → REPORTING on CONFIRM', () => {
    expect(notMeReducer(confirming, { type: 'CONFIRM' })).toEqual({ status: 'REPORTING', eventId: 'e1' });
  });

  it('REPORTING → SIGNED_OUT, which nothing leaves', () => {
    const signedOut = notMeReducer({ status: 'REPORTING', eventId: 'e1' }, { type: 'REPORTED' });
    expect(signedOut).toEqual({ status: 'SIGNED_OUT', eventId: 'e1' });
    expect(notMeReducer(signedOut, { type: 'ASK', eventId: 'e2' })).toBe(signedOut);
  });

  it('REPORTING → FAILED with why; a new ASK starts again without it', () => {
    const failed = notMeReducer({ status: 'REPORTING', eventId: 'e1' }, { type: 'FAILED', message: 'Down' });
    expect(failed).toEqual({ status: 'FAILED', eventId: 'e1', message: 'Down' });
    expect(notMeReducer(failed, { type: 'ASK', eventId: 'e2' })).toEqual({
      status: 'CONFIRMING',
      eventId: 'e2',
    });
  });

  it('ignores what does not fit the state', () => {
    expect(notMeReducer(initialNotMe, { type: 'CONFIRM' })).toBe(initialNotMe);
    expect(notMeReducer(confirming, { type: 'ASK', eventId: 'e2' })).toBe(confirming);
    const reporting: NotMeState = { status: 'REPORTING', eventId: 'e1' };
    expect(notMeReducer(reporting, { type: 'CANCEL' })).toBe(reporting);
  });
});
