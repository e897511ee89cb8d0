/**
 * The per-call check's cache in a whole app (SQLite; the PostgreSQL instances: storage/postgres-session-cache.test.ts).
 * Every write that ends sessions or changes the account is felt by the next call (a sign-out, a profile save, a
 * password change, a sign-out from the Devices list, a revoked access token); two apps of one process over one file
 * hear each other at once; a change written behind the app is refused within SESSION_CACHE_MS; SESSION_CACHE_MS=0
 * reads on every call, as before the cache.
 */
import { apiPaths } from 'shared-auth/contract';
import { describe, expect, it, vi } from 'vitest';
import { appForBlock, providerSignOut, startApp, tempDir, type TestApp } from './helpers.js';
import { call, newUser, signInSession } from './security-helpers.js';

type Session = Awaited<ReturnType<typeof signInSession>>;

const isFederated = async (t: TestApp, session: Session) =>
  (await call(t.app, 'GET', apiPaths.isFederated(session.user.id), { token: session.token })).status;

/** Signs in and lets the app read the session twice (the second call answered from its memory). */
async function cachedSession(t: TestApp): Promise<Session> {
  const session = await signInSession(t.app, await newUser(t.app));
  expect(await isFederated(t, session)).toBe(200);
  expect(await isFederated(t, session)).toBe(200);
  return session;
}

/** Deletes the session's grant straight in the database: no store, so no report to the cache. */
const endGrantBehindTheApp = (t: TestApp, session: Session) =>
  t.app.database.run(`DELETE FROM oidc_payloads WHERE model = 'Grant' AND account_id = ?`, [session.user.id]);

describe('SESSION_CACHE_MS at its default (1000): changes are felt by the next call', () => {
  const t = appForBlock(() => startApp());

  it('keeps the session: a second call does not read the database again', async () => {
    const session = await signInSession(t.app, await newUser(t.app));
    const reads = vi.spyOn(t.app.storage.provider, 'tokenAccount');
    expect(await isFederated(t, session)).toBe(200);
    expect(await isFederated(t, session)).toBe(200);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('a sign-out (the provider ends the session) is refused on the next call', async () => {
    const session = await cachedSession(t);
    expect((await providerSignOut(t.app, session)).statusCode).toBe(303);
    expect(await isFederated(t, session)).toBe(401);
  });

  it('a profile save shows on the next call', async () => {
    const session = await cachedSession(t);
    const saved = await call(t.app, 'PUT', apiPaths.profileUpdate(session.user.id), {
      token: session.token,
      body: { firstName: 'Renamed' },
    });
    expect(saved.status).toBe(200);
    const caller = await t.app.resolveCaller({} as never, session.token);
    expect(caller.user.givenName).toBe('Renamed');
  });

  it('a password change refuses the other sessions on the next call', async () => {
    const account = await newUser(t.app);
    const changer = await signInSession(t.app, account);
    const other = await signInSession(t.app, account);
    expect(await isFederated(t, other)).toBe(200);
    const changed = await call(t.app, 'PUT', apiPaths.passwordChange(account.user.id), {
      token: changer.token,
      body: { OldPassword: account.password, NewPassword: 'Entirely-New-Password-77' },
    });
    expect(changed.status).toBe(200);
    expect(await isFederated(t, other)).toBe(401);
  });

  it('an access token revoked at /v1/revoke is refused on the next call', async () => {
    const session = await cachedSession(t);
    const revoked = await t.app.inject({
      method: 'POST',
      url: '/oauth2/default/v1/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        token: session.token,
        client_id: t.config.settings.ClientId,
      }).toString(),
    });
    expect(revoked.statusCode).toBe(200);
    expect(await isFederated(t, session)).toBe(401);
  });

  it('a grant ended behind the app (no store saw it) is refused within SESSION_CACHE_MS', async () => {
    const session = await cachedSession(t);
    const readAt = performance.now();
    await endGrantBehindTheApp(t, session);
    // Still answered from memory right away…
    expect(await isFederated(t, session)).toBe(200);
    // …and refused once the entry is SESSION_CACHE_MS old.
    await expect.poll(() => isFederated(t, session), { timeout: 3000, interval: 20 }).toBe(401);
    expect(performance.now() - readAt).toBeGreaterThanOrEqual(t.config.SESSION_CACHE_MS - 50);
  });
});

describe('two apps of one process over one SQLite file', () => {
  const pair = appForBlock(async () => {
    const dataDir = tempDir();
    const a = await startApp({}, dataDir);
    const b = await startApp({}, dataDir);
    return { a, b, close: async () => (await b.app.close(), await a.close()) };
  });

  it('a sign-out through one is refused by the other on its next call', async () => {
    const session = await signInSession(pair.a.app, await newUser(pair.a.app));
    expect(await isFederated(pair.b, session)).toBe(200);
    expect(await isFederated(pair.b, session)).toBe(200);
    expect((await providerSignOut(pair.a.app, session)).statusCode).toBe(303);
    expect(await isFederated(pair.b, session)).toBe(401);
  });
});

describe('SESSION_CACHE_MS=0: no cache, as before it', () => {
  const t = appForBlock(() => startApp({ SESSION_CACHE_MS: '0' }));

  it('reads the session on every call, and refuses a grant ended behind the app at once', async () => {
    expect(t.app.sessionNotifications).toBeNull();
    const session = await signInSession(t.app, await newUser(t.app));
    const reads = vi.spyOn(t.app.storage.provider, 'tokenAccount');
    expect(await isFederated(t, session)).toBe(200);
    expect(await isFederated(t, session)).toBe(200);
    expect(reads).toHaveBeenCalledTimes(2);
    await endGrantBehindTheApp(t, session);
    expect(await isFederated(t, session)).toBe(401);
  });
});
