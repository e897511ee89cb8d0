/**
 * One session of the Devices list as the page gets it, from either kind of row (the embedded provider's sessions,
 * Okta mode's sign-ins), and the list's order: this device first, the others as their store ordered them.
 */
import type { AccountSession } from 'shared-auth/contract';
import type { ClientFacts } from '../storage/client-columns.js';

/** What both kinds of row carry: their list id, the client's facts and when they signed in (ms). */
interface SessionRow extends ClientFacts {
  id: string;
  signedInAt: number;
}

/** `lastActiveAt` (ms): when its tokens last reached the API, null when not yet known. */
export function sessionView(row: SessionRow, current: boolean, lastActiveAt: number | null): AccountSession {
  return {
    id: row.id,
    current,
    browser: row.browser,
    os: row.os,
    deviceType: row.deviceType,
    country: row.country,
    address: row.address,
    signedInAt: new Date(row.signedInAt).toISOString(),
    lastActiveAt: lastActiveAt === null ? null : new Date(lastActiveAt).toISOString(),
  };
}

/** Stable: the current session first, the rest in the order given (most recently active first). */
export function thisDeviceFirst(sessions: AccountSession[]): AccountSession[] {
  return sessions.sort((a, b) => Number(b.current) - Number(a.current));
}
