import type { AccountSession } from 'shared-auth';
import {
  initialSessionsList,
  otherSessions,
  sessionsListReducer,
  type SessionsListState,
} from './sessionsList.js';

const session = (id: string, current = false): AccountSession => ({
  id,
  current,
  browser: 'Chrome',
  os: 'Windows',
  deviceType: 'desktop',
  country: 'GB',
  address: '203.0.113.x',
  signedInAt: '2026-03-07T10:00:00.000Z',
  lastActiveAt: null,
});
const HERE = session('here', true);
const LAPTOP = session('laptop');
const PHONE = session('phone');
const loaded: SessionsListState = { status: 'LOADED', sessions: [HERE, LAPTOP, PHONE], reach: 'session' };

describe('sessionsListReducer', () => {
  it("LOADING → LOADED with the caller's own session first", () => {
    const next = sessionsListReducer(initialSessionsList, {
      type: 'LOADED',
      list: { sessions: [LAPTOP, HERE] },
    });
    expect(next).toEqual({ status: 'LOADED', sessions: [HERE, LAPTOP], reach: 'session' });
  });

  it('LOADING → LOADED in Okta mode keeps that a sign-out reaches only this portal, until read again', () => {
    const portal = sessionsListReducer(initialSessionsList, {
      type: 'LOADED',
      list: { sessions: [HERE], reach: 'portal' },
    });
    expect(portal).toEqual({ status: 'LOADED', sessions: [HERE], reach: 'portal' });
    expect(sessionsListReducer(portal, { type: 'LOAD' })).toMatchObject({
      status: 'LOADING',
      reach: 'portal',
    });
    expect(
      sessionsListReducer(portal, { type: 'REPLACED', list: { sessions: [HERE], reach: 'portal' } }),
    ).toEqual(portal);
  });

  it("LOADING → UNAVAILABLE (a server that cannot list them) with the server's text, and no sessions", () => {
    expect(
      sessionsListReducer(initialSessionsList, { type: 'UNAVAILABLE', message: 'Org keeps them' }),
    ).toEqual({
      status: 'UNAVAILABLE',
      sessions: [],
      reach: 'session',
      message: 'Org keeps them',
    });
  });

  it('LOADING → FAILED with what went wrong; LOAD from there reads again', () => {
    const failed = sessionsListReducer(initialSessionsList, { type: 'LOAD_FAILED', message: 'Down' });
    expect(failed).toEqual({ status: 'FAILED', sessions: [], reach: 'session', message: 'Down' });
    expect(sessionsListReducer(failed, { type: 'LOAD' })).toEqual(initialSessionsList);
  });

  it("UNAVAILABLE → LOADING on LOAD, and ignores a sign-out's list", () => {
    const unavailable: SessionsListState = {
      status: 'UNAVAILABLE',
      sessions: [],
      reach: 'session',
      message: 'x',
    };
    expect(sessionsListReducer(unavailable, { type: 'LOAD' })).toEqual(initialSessionsList);
    expect(sessionsListReducer(unavailable, { type: 'REPLACED', list: { sessions: [HERE] } })).toBe(
      unavailable,
    );
  });

  it('LOADED → LOADED with the list a sign-out answered', () => {
    expect(sessionsListReducer(loaded, { type: 'REPLACED', list: { sessions: [HERE, PHONE] } })).toEqual({
      status: 'LOADED',
      sessions: [HERE, PHONE],
      reach: 'session',
    });
  });

  it('LOADED → LOADING on LOAD (a session found gone), keeping the rows until the answer', () => {
    expect(sessionsListReducer(loaded, { type: 'LOAD' })).toEqual({
      status: 'LOADING',
      sessions: loaded.sessions,
      reach: 'session',
    });
  });

  it("LOADING also takes a sign-out's list as the answer", () => {
    const loading: SessionsListState = { status: 'LOADING', sessions: [HERE, LAPTOP], reach: 'session' };
    expect(sessionsListReducer(loading, { type: 'REPLACED', list: { sessions: [HERE] } })).toEqual({
      status: 'LOADED',
      sessions: [HERE],
      reach: 'session',
    });
  });

  it('ignores answers that come in the wrong state', () => {
    expect(sessionsListReducer(loaded, { type: 'LOAD_FAILED', message: 'late' })).toBe(loaded);
    expect(sessionsListReducer(loaded, { type: 'UNAVAILABLE', message: 'late' })).toBe(loaded);
    expect(sessionsListReducer(initialSessionsList, { type: 'LOAD' })).toBe(initialSessionsList);
  });

  it("otherSessions leaves out the caller's own", () => {
    expect(otherSessions(loaded)).toEqual([LAPTOP, PHONE]);
  });
});
