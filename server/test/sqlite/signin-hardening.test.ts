/**
 * Fail closed on what only a SQLite file has: another process holding its write lock, and a full file. The same
 * answer (503, the same page whatever the password, nothing checked) on both storages for a read-only database,
 * and on PostgreSQL for a write lock held too long: ../signin-hardening.test.ts.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/db/connection.js';
import type { SqliteDatabase } from '../../src/db/sqlite.js';
import { Directory } from '../../src/directory/directory.js';
import { SIGN_IN_UNAVAILABLE } from '../../src/oidc/interactions/pages.js';
import { STORAGE_RETRY_AFTER_SECONDS } from '../../src/http/storage-unavailable.js';
import { appForBlock, authorizeUrl, CookieJar, follow, hiddenFields } from '../helpers.js';
import { formAction, newUser, startClockedApp } from '../security-helpers.js';

/** One browser's sign-in page: posts of its form (with its CSRF token), the answer to the post itself. */
async function openSignIn(app: FastifyInstance) {
  const jar = new CookieJar();
  const page = await follow(app, jar, await app.inject({ url: authorizeUrl() }));
  return (fields: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url: formAction(page.body),
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ ...hiddenFields(page.body), ...fields }).toString(),
    });
}

const alertOf = (page: LightMyRequestResponse) => /role="alert">([^<]+)</.exec(page.body)?.[1] ?? '';

describe('fail closed when the SQLite file cannot record the attempt', () => {
  const t = appForBlock(() => startClockedApp());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** A wrong and the right password while `blocked` holds: both the same 503 page, and argon2 never ran. */
  async function expectSameUnavailablePage(blocked: { during: () => void; after: () => void }) {
    const account = await newUser(t.app);
    const post = await openSignIn(t.app);
    const spy = vi.spyOn(Directory.prototype, 'verifyPassword');
    let answers: LightMyRequestResponse[];
    blocked.during();
    try {
      answers = [
        await post({ email: account.user.email, password: 'Wrong-password-1' }),
        await post({ email: account.user.email, password: account.password }),
      ];
    } finally {
      blocked.after();
    }
    for (const answer of answers) {
      expect(answer.statusCode).toBe(503);
      expect(answer.headers['retry-after']).toBe(String(STORAGE_RETRY_AFTER_SECONDS));
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(alertOf(answer)).toBe(SIGN_IN_UNAVAILABLE);
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
    expect(answers[1]?.body).toBe(answers[0]?.body);
    expect(spy.mock.calls.filter(([email]) => email === account.user.email)).toHaveLength(0);
    // Once the file takes writes again, the right password signs in.
    expect((await post({ email: account.user.email, password: account.password })).statusCode).toBe(303);
  }

  it('another process holds the write lock: 503 at once, the same page whatever the password', async () => {
    const other = openDatabase(t.dataDir);
    await expectSameUnavailablePage({
      during: () => other.exec('BEGIN IMMEDIATE'),
      after: () => {
        other.exec('ROLLBACK');
        other.close();
      },
    });
  });

  it('a full database (no page left to grow into): 503, the same page whatever the password', async () => {
    const db = (t.app.database as SqliteDatabase).connection;
    await expectSameUnavailablePage({
      during: () => {
        const pages = db.pragma('page_count', { simple: true }) as number;
        db.pragma(`max_page_count = ${pages}`);
        // Fill what is left in the pages there are: once 50 inserts in a row fail, every page is full.
        const fill = db.prepare('INSERT INTO signin_failures (key, at) VALUES (?, ?)');
        let failuresInARow = 0;
        let filled = 0;
        while (failuresInARow < 50) {
          try {
            fill.run(`filler:${filled}:${Math.random()}`, t.clock.now);
            filled += 1;
            failuresInARow = 0;
          } catch (error) {
            expect((error as { code?: string }).code).toBe('SQLITE_FULL');
            failuresInARow += 1;
          }
        }
      },
      after: () => {
        db.pragma('max_page_count = 1073741823');
        db.prepare("DELETE FROM signin_failures WHERE key LIKE 'filler:%'").run();
      },
    });
  });
});
