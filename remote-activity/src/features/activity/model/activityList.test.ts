import type { ActivityEvent } from 'shared-auth';
import { activityListReducer, initialActivityList, type ActivityListState } from './activityList.js';

const event = (id: string): ActivityEvent => ({
  id,
  kind: 'signed-in',
  detail: 'password',
  at: '2026-03-07T10:00:00.000Z',
  browser: 'Chrome',
  os: 'Windows',
  deviceType: 'desktop',
  country: 'GB',
  address: '203.0.113.x',
});
const [A, B, C] = [event('a'), event('b'), event('c')];
const loaded: ActivityListState = { status: 'LOADED', events: [A, B], next: 'cursor-1', more: 'IDLE' };

describe('activityListReducer', () => {
  it('LOADING → LOADED with the first page and its cursor', () => {
    expect(
      activityListReducer(initialActivityList, {
        type: 'LOADED',
        page: { events: [A, B], next: 'cursor-1' },
      }),
    ).toEqual(loaded);
  });

  it('LOADING → LOADED with no events: the empty list, no cursor', () => {
    expect(
      activityListReducer(initialActivityList, { type: 'LOADED', page: { events: [], next: null } }),
    ).toEqual({
      status: 'LOADED',
      events: [],
      next: null,
      more: 'IDLE',
    });
  });

  it("LOADING → UNAVAILABLE (Okta mode) with the server's text", () => {
    expect(
      activityListReducer(initialActivityList, { type: 'UNAVAILABLE', message: 'Org keeps it' }),
    ).toEqual({
      ...initialActivityList,
      status: 'UNAVAILABLE',
      message: 'Org keeps it',
    });
  });

  it('LOADING → FAILED, and LOAD reads again', () => {
    const failed = activityListReducer(initialActivityList, { type: 'LOAD_FAILED', message: 'Down' });
    expect(failed).toEqual({ ...initialActivityList, status: 'FAILED', message: 'Down' });
    expect(activityListReducer(failed, { type: 'LOAD' })).toEqual(initialActivityList);
  });

  it('LOADED: MORE marks the next page as being read', () => {
    expect(activityListReducer(loaded, { type: 'MORE' })).toEqual({ ...loaded, more: 'LOADING' });
  });

  it('LOADED: MORE on the last page, or while one is read, changes nothing', () => {
    const last: ActivityListState = { ...loaded, next: null };
    expect(activityListReducer(last, { type: 'MORE' })).toBe(last);
    const reading: ActivityListState = { ...loaded, more: 'LOADING' };
    expect(activityListReducer(reading, { type: 'MORE' })).toBe(reading);
  });

  it('LOADED: MORE_LOADED appends the page (an event shown already, once) and moves the cursor', () => {
    const reading: ActivityListState = { ...loaded, more: 'LOADING' };
    expect(
      activityListReducer(reading, { type: 'MORE_LOADED', page: { events: [B, C], next: null } }),
    ).toEqual({
      status: 'LOADED',
      events: [A, B, C],
      next: null,
      more: 'IDLE',
    });
  });

  it('LOADED: MORE_FAILED keeps the events and the cursor, with why', () => {
    const reading: ActivityListState = { ...loaded, more: 'LOADING' };
    expect(activityListReducer(reading, { type: 'MORE_FAILED', message: 'Down' })).toEqual({
      ...loaded,
      more: 'FAILED',
      message: 'Down',
    });
  });

  it('LOADED: MORE after a failure tries again, and drops the failure text', () => {
    const failed: ActivityListState = { ...loaded, more: 'FAILED', message: 'Down' };
    expect(activityListReducer(failed, { type: 'MORE' })).toEqual({ ...loaded, more: 'LOADING' });
  });

  it('ignores a page nobody asked for', () => {
    expect(activityListReducer(loaded, { type: 'MORE_LOADED', page: { events: [C], next: null } })).toBe(
      loaded,
    );
    expect(activityListReducer(loaded, { type: 'MORE_FAILED', message: 'x' })).toBe(loaded);
    expect(activityListReducer(initialActivityList, { type: 'MORE' })).toBe(initialActivityList);
  });

  it('LOADED → LOADING on LOAD: from the newest again', () => {
    expect(activityListReducer(loaded, { type: 'LOAD' })).toEqual(initialActivityList);
  });
});
