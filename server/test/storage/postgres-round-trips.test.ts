/**
 * Database round trips per call on PostgreSQL (issue 24, project postgres only): every message the app's pg clients
 * send while a call runs, counted by a wrapper of pg's Client.query (a "BEGIN; SELECT …" message is one), for a
 * password change with its notice's delivery and for a whole sign-in. A change that adds a statement to either
 * fails here; the bench (bench/src/backends.mjs) counts the same calls by PostgreSQL's own statement log.
 */
import pg from 'pg';
import { apiPaths } from 'shared-auth/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { appForBlock, startApp } from '../helpers.js';
import { call, newUser, signInSession } from '../security-helpers.js';

/**
 * The most each call may cost today (the password change: 35 before issue 24, the sign-in 44). Issue 24's goals
 * are lower (≤ 10, ≤ 12), not met yet: what remains is listed in the README's Performance section. Both counts
 * include the first call's session check of a new token and the liveness cache's NOTIFY.
 */
const PASSWORD_CHANGE_MOST = 18;
const SIGN_IN_MOST = 37;

/** The first words of every message sent while counting is on. */
const sent: string[] = [];
let counting = false;
const query = pg.Client.prototype.query;

beforeAll(() => {
  pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
    if (counting) {
      const [config] = args;
      const text = typeof config === 'string' ? config : ((config as { text?: string } | null)?.text ?? '');
      sent.push(text.replace(/\s+/g, ' ').trim().slice(0, 80));
    }
    return (query as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof query;
});

afterAll(() => {
  pg.Client.prototype.query = query;
});

/** The messages sent while `work` runs (and, with `until`, until the messages sent satisfy it). */
async function messagesOf(
  work: () => Promise<unknown>,
  until?: (texts: string[]) => boolean,
): Promise<string[]> {
  sent.length = 0;
  counting = true;
  try {
    await work();
    if (until) await vi.waitFor(() => expect(until(sent)).toBe(true), { timeout: 5000, interval: 5 });
    return [...sent];
  } finally {
    counting = false;
  }
}

describe('round trips per call on PostgreSQL', () => {
  const t = appForBlock(() => startApp());

  it(`a password change, its notice delivered, takes at most ${PASSWORD_CHANGE_MOST}`, async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const newPassword = `${account.password}-Changed`;
    const messages = await messagesOf(
      async () => {
        const answer = await call(t.app, 'PUT', apiPaths.passwordChange(account.user.id), {
          token: session.token,
          body: { OldPassword: account.password, NewPassword: newPassword },
        });
        expect(answer.status).toBe(200);
      },
      // The notice is marked sent last: its delivery is part of the change's cost.
      (texts) => texts.some((text) => text.startsWith('UPDATE notifications SET sent_at')),
    );
    expect(messages.length, messages.join('\n')).toBeLessThanOrEqual(PASSWORD_CHANGE_MOST);
  });

  it(`a whole sign-in (authorize, pages, code exchange) takes at most ${SIGN_IN_MOST}`, async () => {
    const account = await newUser(t.app);
    const messages = await messagesOf(() => signInSession(t.app, account));
    expect(messages.length, messages.join('\n')).toBeLessThanOrEqual(SIGN_IN_MOST);
  });
});
