import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { E2E_DATA_DIR, REPO_ROOT } from './paths.js';

/** The server package's own better-sqlite3 (the e2e package has none), typed as far as the tests use it. */
interface SqliteDatabase {
  pragma(source: string): unknown;
  prepare(source: string): {
    run(...params: unknown[]): { changes: number };
    get(...params: unknown[]): unknown;
    all(...params: unknown[]): unknown[];
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
  const box = providerRecordsBox(dataDir);
  const db = new Database(path.join(dataDir, 'portal.sqlite'), { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const sessions = db
      .prepare(`SELECT id, payload FROM oidc_payloads WHERE model = 'Session' AND account_id = ?`)
      .all(userId) as { id: string; payload: string }[];
    if (sessions.length === 0) throw new Error(`No provider session of ${userId} to age`);
    const update = db.prepare(`UPDATE oidc_payloads SET payload = ? WHERE model = 'Session' AND id = ?`);
    for (const { id, payload } of sessions) {
      const context = `Session:${id}`;
      const session = JSON.parse(box.open(payload, context)) as { loginTs: number };
      session.loginTs -= seconds;
      update.run(box.seal(JSON.stringify(session), context), id);
    }
  } finally {
    db.close();
  }
}

/**
 * The provider's payloads are sealed at rest (server/src/keys/at-rest.ts): AES-256-GCM under a key derived by HKDF
 * from DATA_DIR's key-ring-encryption-key, the row's `{model}:{id}` as additional data, `v1.{iv}.{tag}.{data}`
 * (server/src/crypto/secret-box.ts). The same format here, for the suite's own database only.
 */
function providerRecordsBox(dataDir: string) {
  const master = Buffer.from(
    readFileSync(path.join(dataDir, 'key-ring-encryption-key'), 'utf8').trim(),
    'hex',
  );
  const key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'portal provider records v1', 32));
  return {
    open(sealed: string, context: string): string {
      const [, iv = '', tag = '', data = ''] = sealed.split('.');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
    seal(plain: string, context: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), data]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
  };
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
