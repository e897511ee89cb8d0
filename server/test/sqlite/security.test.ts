/** The TOTP key a SQLite server generates in DATA_DIR when TOTP_ENCRYPTION_KEY is not set (PostgreSQL requires it). */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOTP_KEY_FILE } from '../../src/crypto/totp-encryption-key.js';
import {
  call,
  enrolAuthenticator,
  newUser,
  signInSession,
  startClockedApp,
  totp,
} from '../security-helpers.js';

describe('the generated TOTP key', () => {
  it('is saved in DATA_DIR (0600) and used again after a restart', async () => {
    const local = await startClockedApp();
    const s = await signInSession(local.app, await newUser(local.app));
    const secret = await enrolAuthenticator(local, s);
    await local.app.close();
    const keyFile = path.join(local.dataDir, TOTP_KEY_FILE);
    expect(existsSync(keyFile)).toBe(true);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);

    const restarted = await startClockedApp({}, local.dataDir);
    try {
      restarted.clock.now = local.clock.now;
      const verified = await call(restarted.app, 'POST', `/api/stepup/${s.user.id}/google-auth/verify`, {
        token: s.token,
        body: { passCode: totp(secret, restarted.clock.now) },
      });
      expect(verified.status).toBe(200);
    } finally {
      await restarted.close();
    }
  });
});
