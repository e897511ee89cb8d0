/**
 * Storage conformance (both engines): the embedded provider's records (ProviderStore): payloads kept sealed under
 * hashed ids, consumption, the per-call liveness of an access token, and what a session's or an account's end
 * takes along (its step-up grants).
 */
import { describe, expect, it } from 'vitest';
import { chainGrantKey, sessionGrantKey } from '../../src/storage/grants.js';
import { hashedId } from '../../src/storage/provider.js';
import { freshId, insertUser, storageForFile } from '../support/storage.js';

const t = storageForFile();
const HOUR = 3600;
const FAR = Date.now() + 3_600_000;

/** A signed-in session with one grant of `accountId`: the provider's rows an access token is checked against. */
async function signedIn(accountId: string) {
  const sid = freshId('sess');
  const gid = freshId('grant');
  const sessionId = freshId('cookie');
  const loginTs = Math.floor(Date.now() / 1000) - 60;
  await t.storage.provider.upsert(
    'Session',
    sessionId,
    { uid: sid, accountId, loginTs, authorizations: {} },
    HOUR,
  );
  await t.storage.provider.upsert('Grant', gid, { accountId, sessionUid: sid, grantId: gid } as never, HOUR);
  return { sid, gid, sessionId, loginTs, token: { accountId, sid, gid, jti: freshId('jti') } };
}

describe('provider records', () => {
  it('keeps payloads sealed under hashed ids, found by id, uid and user code', async () => {
    const id = freshId('code');
    await t.storage.provider.upsert(
      'AuthorizationCode',
      id,
      { accountId: 'a', userCode: 'UC-1', extra: { n: 1 } },
      HOUR,
    );
    expect(await t.storage.provider.find('AuthorizationCode', id)).toMatchObject({ accountId: 'a', jti: id });
    expect(await t.storage.provider.findByUserCode('AuthorizationCode', 'UC-1')).toMatchObject({
      extra: { n: 1 },
    });
    const row = await t.storage.sql.get<{ id: string; payload: string }>(
      "SELECT id, payload FROM oidc_payloads WHERE model = 'AuthorizationCode' AND id = ?",
      [hashedId(id)],
    );
    expect(row?.payload).not.toContain('accountId');
    expect(await t.storage.provider.find('AuthorizationCode', freshId())).toBeUndefined();
    const session = await signedIn((await insertUser(t.storage)).id);
    expect(await t.storage.provider.findByUid('Session', session.sid)).toMatchObject({ uid: session.sid });
  });

  it('marks a payload consumed once; an expired one is not found, and deleteExpired removes it', async () => {
    const code = freshId('code');
    await t.storage.provider.upsert('AuthorizationCode', code, { accountId: 'a' }, HOUR);
    await t.storage.provider.consume('AuthorizationCode', code);
    const consumed = (await t.storage.provider.find('AuthorizationCode', code))?.consumed;
    expect(typeof consumed).toBe('number');
    await t.storage.provider.consume('AuthorizationCode', code);
    expect((await t.storage.provider.find('AuthorizationCode', code))?.consumed).toBe(consumed);
    // A refresh token just used stays usable within the reuse grace.
    const refresh = freshId('rt');
    await t.storage.provider.upsert('RefreshToken', refresh, { accountId: 'a' }, HOUR);
    await t.storage.provider.consume('RefreshToken', refresh);
    expect((await t.storage.provider.find('RefreshToken', refresh))?.consumed).toBeUndefined();

    const expired = freshId('code');
    await t.storage.provider.upsert('AuthorizationCode', expired, { accountId: 'a' }, -1);
    expect(await t.storage.provider.find('AuthorizationCode', expired)).toBeUndefined();
    await t.storage.provider.revokeAccessToken(freshId('jti'), 0);
    expect(await t.storage.provider.deleteExpired()).toBeGreaterThanOrEqual(2);
  });

  it('keeps one live refresh token per grant chain: a successor revokes the unused one before it', async () => {
    const { id: accountId } = await insertUser(t.storage);
    const { sid, gid } = await signedIn(accountId);
    await t.storage.grants.put(accountId, chainGrantKey(sid, gid), 'email', FAR);
    const payload = { accountId, grantId: gid, sessionUid: sid } as never;
    const first = freshId('rt');
    const second = freshId('rt');
    await t.storage.provider.upsert('RefreshToken', first, payload, HOUR);
    await t.storage.provider.upsert('RefreshToken', second, payload, HOUR);
    expect(await t.storage.provider.find('RefreshToken', first)).toBeUndefined();
    expect(await t.storage.provider.find('RefreshToken', second)).toBeDefined();
    // The chain forked: its step-up ends.
    expect(
      await t.storage.grants.factorGrantExpiry(accountId, chainGrantKey(sid, gid), Date.now()),
    ).toBeUndefined();
    expect(await t.storage.provider.grantsOfAccount(accountId)).toEqual(
      expect.arrayContaining([{ grantId: gid, sessionUid: sid }]),
    );
    await t.storage.provider.revokeByGrantId(gid);
    expect(await t.storage.provider.find('RefreshToken', second)).toBeUndefined();
  });

  it("answers an access token's liveness with its account, until its session, grant or jti goes", async () => {
    const user = await insertUser(t.storage);
    const session = await signedIn(user.id);
    expect(await t.storage.provider.isTokenAlive(session.token)).toBe(true);
    expect(await t.storage.provider.tokenAccount(session.token)).toEqual({ alive: true, user });
    expect(await t.storage.provider.sessionLoginTime(user.id, session.sid)).toBe(session.loginTs);

    await t.storage.provider.revokeAccessToken(session.token.jti, Math.floor(FAR / 1000));
    await t.storage.provider.revokeAccessToken(session.token.jti, Math.floor(FAR / 1000));
    expect(await t.storage.provider.isTokenAlive(session.token)).toBe(false);
    const other = await signedIn(user.id);
    await t.storage.provider.destroy('Grant', other.gid);
    expect(await t.storage.provider.tokenAccount(other.token)).toEqual({ alive: false, user });
    const gone = { ...other.token, accountId: freshId() };
    expect(await t.storage.provider.tokenAccount(gone)).toEqual({ alive: false, user: undefined });
  });

  it("ends a session's step-up grants with it", async () => {
    const { id: accountId } = await insertUser(t.storage);
    const { sid, gid, sessionId } = await signedIn(accountId);
    await t.storage.grants.put(accountId, chainGrantKey(sid, gid), 'googleAuth', FAR);
    await t.storage.provider.destroy('Session', sessionId);
    expect(await t.storage.provider.findByUid('Session', sid)).toBeUndefined();
    expect(await t.storage.provider.sessionLoginTime(accountId, sid)).toBeUndefined();
    expect(
      await t.storage.grants.factorGrantExpiry(accountId, chainGrantKey(sid, gid), Date.now()),
    ).toBeUndefined();
  });

  it("ends every grant of an account and every session but the caller's, in one transaction", async () => {
    const { id: accountId } = await insertUser(t.storage);
    const kept = await signedIn(accountId);
    const ended = await signedIn(accountId);
    await t.storage.grants.put(accountId, sessionGrantKey(ended.sid), 'email', FAR);
    await t.storage.provider.upsert(
      'RefreshToken',
      freshId('rt'),
      { accountId, grantId: kept.gid } as never,
      HOUR,
    );
    await t.storage.provider.upsert(
      'Interaction',
      freshId('i'),
      { result: { login: { accountId } } } as never,
      HOUR,
    );
    const revoked = await t.storage.transaction((tx) =>
      tx.provider.endAccountGrantsKeepingSession(accountId, kept.sid),
    );
    expect(revoked).toMatchObject({ sessions: 1, grants: 2, tokens: 1 });
    expect(await t.storage.provider.findByUid('Session', kept.sid)).toBeDefined();
    expect(await t.storage.provider.findByUid('Session', ended.sid)).toBeUndefined();
    expect(await t.storage.provider.isTokenAlive(kept.token)).toBe(false);
    expect(
      await t.storage.grants.factorGrantExpiry(accountId, sessionGrantKey(ended.sid), Date.now()),
    ).toBeUndefined();
  });

  it("moves a step-up carried over a change to the session's next grant chain", async () => {
    const { id: accountId } = await insertUser(t.storage);
    const sid = freshId('sess');
    await t.storage.grants.put(accountId, `${sessionGrantKey(sid)}:next`, 'email', FAR);
    await t.storage.provider.grantCreated(accountId, sid, 'g-next');
    expect(
      await t.storage.grants.factorGrantExpiry(accountId, chainGrantKey(sid, 'g-next'), Date.now()),
    ).toBe(FAR);
  });

  it('counts the live interactions', async () => {
    const before = await t.storage.provider.countLiveInteractions();
    await t.storage.provider.upsert('Interaction', freshId('i'), {}, HOUR);
    await t.storage.provider.upsert('Interaction', freshId('i'), {}, -1);
    expect(await t.storage.provider.countLiveInteractions()).toBe(before + 1);
  });
});
