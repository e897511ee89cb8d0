/**
 * The PostgreSQL HTTP smoke (project postgres only): the HTTP suites run on SQLite; here a handful of requests go
 * through whole apps on PostgreSQL: a sign-in through the provider's pages, a refresh and an API call; two
 * instances over one database (what one writes, the other reads; a token one issues, the other accepts); the
 * readiness probe's write. The contract suite also runs whole on PostgreSQL.
 */
import { apiPaths } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { appForBlock, refresh, startApp, startAppPair } from '../helpers.js';
import { call, newUser, signInSession } from '../security-helpers.js';

describe('one app on PostgreSQL', () => {
  const t = appForBlock(() => startApp());

  it('keeps its data in the database the run gave it', () => {
    expect(t.config.DATABASE_URL).toMatch(/^postgres:\/\//);
  });

  it('signs in through the provider pages, refreshes, and serves the API', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const refreshed = await refresh(t.app, session.tokens.refresh_token ?? '');
    const answer = await call(t.app, 'PUT', apiPaths.profileUpdate(account.user.id), {
      token: refreshed.access_token,
      body: { lastName: 'Postgres' },
    });
    expect(answer.status).toBe(200);
    expect((await t.app.directory.findById(account.user.id))?.familyName).toBe('Postgres');
  });

  it('answers ready once a write went through', async () => {
    const ready = await t.app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });
});

describe('two instances over one PostgreSQL database', () => {
  const pair = appForBlock(startAppPair);

  it('share the database and the key ring', () => {
    expect(pair.b.config.DATABASE_URL).toBe(pair.a.config.DATABASE_URL);
    expect(pair.b.app.keyRing?.signing.privateJwk.kid).toBe(pair.a.app.keyRing?.signing.privateJwk.kid);
  });

  it('a user made on one signs in on the other, whose token the first accepts', async () => {
    const account = await newUser(pair.a.app);
    const session = await signInSession(pair.b.app, account);
    const answer = await call(pair.a.app, 'PUT', apiPaths.profileUpdate(account.user.id), {
      token: session.token,
      body: { firstName: 'Shared' },
    });
    expect(answer.status).toBe(200);
    expect((await pair.b.app.directory.findById(account.user.id))?.givenName).toBe('Shared');
  });

  it("the end of an account's grants on one (a password change's) refuses its tokens on the other", async () => {
    const account = await newUser(pair.a.app);
    const session = await signInSession(pair.a.app, account);
    const before = await call(pair.b.app, 'PUT', apiPaths.profileUpdate(account.user.id), {
      token: session.token,
      body: { country: 'FR' },
    });
    expect(before.status).toBe(200);
    await pair.a.app.oidcStore?.endAccountGrantsKeepingSession(account.user.id, undefined);
    const after = await call(pair.b.app, 'PUT', apiPaths.profileUpdate(account.user.id), {
      token: session.token,
      body: { country: 'DE' },
    });
    expect(after.status).toBe(401);
  });
});
