import { createRequire } from 'node:module';
import path from 'node:path';
import { E2E_DATA_DIR, REPO_ROOT } from './paths.js';

/** The server package's own better-sqlite3 (the e2e package has none), typed as far as the tests use it. */
interface SqliteDatabase {
  pragma(source: string): unknown;
  prepare(source: string): {
    run(...params: unknown[]): { changes: number };
    get(...params: unknown[]): unknown;
  };
  close(): void;
}
export const Database = createRequire(path.join(REPO_ROOT, 'server', 'package.json'))(
  'better-sqlite3',
) as new (file: string, options?: { fileMustExist?: boolean }) => SqliteDatabase;

/**
 * Moves the sign-in of every provider session of the user `seconds` into the past, as if the user had signed in
 * that long ago: the server's own rule then applies (a first 2-step factor needs the password again after
 * 5 minutes) without the test waiting 5 minutes. Only the test's own user is touched, in the suite's database.
 */
export function ageSignIns(userId: string, seconds: number, dataDir = E2E_DATA_DIR): void {
  const db = new Database(path.join(dataDir, 'portal.sqlite'), { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const aged = db
      .prepare(
        `UPDATE oidc_payloads SET payload = json_set(payload, '$.loginTs', json_extract(payload, '$.loginTs') - ?)
         WHERE model = 'Session' AND account_id = ?`,
      )
      .run(seconds, userId);
    if (aged.changes === 0) throw new Error(`No provider session of ${userId} to age`);
  } finally {
    db.close();
  }
}

/**
 * Moves the user's email-code sends `seconds` into the past, as if the last code had gone out that long ago: a
 * test that enrols email and then asks for a step-up code need not wait out the 30-second resend limit.
 */
export function ageEmailSends(userId: string, seconds: number, dataDir = E2E_DATA_DIR): void {
  const db = new Database(path.join(dataDir, 'portal.sqlite'), { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare(`UPDATE factor_throttle_events SET at = at - ? WHERE user_id = ? AND kind = 'email-send'`).run(
      seconds * 1000,
      userId,
    );
  } finally {
    db.close();
  }
}
