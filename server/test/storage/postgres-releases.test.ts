/**
 * Releases on two instances over one PostgreSQL database (project postgres only): a release made on one is what the
 * other resolves; anonymous failure reports spread over both never roll a canary back; 20 distinct holders of the
 * canary's bucket, 2 of them failing, reporting over both instances at once (the failing ones several times each),
 * roll it back exactly once, with exactly one `auto-rollback` event by `system`; two teams' parallel publishes of one
 * version with different files on both instances: one is acknowledged, the other refused, and what is stored is the
 * acknowledged one.
 */
import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES } from 'shared-auth/contract';
import { canaryBucket } from '../../src/releases/canary-bucket.js';
import { appForBlock, startAppPair } from '../helpers.js';
import { newUser, signInSession } from '../security-helpers.js';

const INTEGRITY = `sha384-${'Q'.repeat(64)}`;

describe('releases on two instances over one PostgreSQL database', () => {
  // Twenty-odd holders sign in from the one test address.
  const pair = appForBlock(() =>
    startAppPair({
      AUTHORIZE_RATE_LIMIT: '10000',
      TOKEN_RATE_LIMIT: '10000',
      SIGN_IN_POSTS_PER_MINUTE: '10000',
    }),
  );

  it('agree on the resolved set, and roll a canary back once on its holders’ votes, never on anonymous reports', async () => {
    const remote = `remote_pair_${Date.now()}`;
    const publish = (version: string) =>
      pair.a.app.releases.publish(
        remote,
        {
          version,
          entry: `https://cdn.example.com/${version}/remoteEntry.js`,
          integrity: INTEGRITY,
          buildId: version,
        },
        'Pair team',
      );
    await publish('1.0.0');
    await publish('2.0.0');
    await pair.a.app.releases.promote(remote, { version: '1.0.0' }, 'Pair team');
    await pair.a.app.releases.canary(remote, { version: '2.0.0', percent: 99 }, 'Pair team');
    expect((await pair.b.app.resolveRemotes(undefined)).remotes[remote]).toEqual(
      (await pair.a.app.resolveRemotes(undefined)).remotes[remote],
    );
    expect((await pair.b.app.resolveRemotes(undefined)).remotes[remote]).toMatchObject({ version: '1.0.0' });

    const post = (instance: typeof pair.a, body: object, token?: string, remoteAddress = '198.18.0.1') =>
      instance.app.inject({
        method: 'POST',
        url: '/api/v1/remote-loads',
        remoteAddress,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        payload: body,
      });
    const failed = { remote, version: '2.0.0', outcome: 'failed', kind: 'network' };
    const loaded = { remote, version: '2.0.0', outcome: 'loaded' };

    // Anonymous failures over both instances, from many addresses: statistics, never a rollback.
    const anonymous = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        post(index % 2 === 0 ? pair.a : pair.b, failed, undefined, `198.18.1.${index + 1}`),
      ),
    );
    expect(anonymous.every((response) => response.statusCode === 204)).toBe(true);
    expect((await pair.a.app.storage.releases.channel(remote))?.canary).not.toBeNull();

    // Twenty holders of the bucket, signed in on either instance (one key ring, one database).
    const holders: { sub: string; token: string }[] = [];
    while (holders.length < 20) {
      const instance = holders.length % 2 === 0 ? pair.a : pair.b;
      const session = await signInSession(instance.app, await newUser(instance.app));
      if (canaryBucket(session.user.id, remote) < 99)
        holders.push({ sub: session.user.id, token: session.token });
    }
    // 18 load it; then at once over both instances: those 18 again, and the 2 failing ones three times each.
    for (const [index, holder] of holders.slice(0, 18).entries()) {
      expect((await post(index % 2 === 0 ? pair.a : pair.b, loaded, holder.token)).statusCode).toBe(204);
    }
    expect((await pair.a.app.storage.releases.channel(remote))?.canary).not.toBeNull();
    const burst = [
      ...holders.slice(0, 18).map((holder) => ({ holder, body: loaded })),
      ...holders.slice(18).flatMap((holder) => Array.from({ length: 3 }, () => ({ holder, body: failed }))),
    ];
    const statuses = (
      await Promise.all(
        burst.map(({ holder, body }, index) => post(index % 2 === 0 ? pair.a : pair.b, body, holder.token)),
      )
    ).map((response) => response.statusCode);
    expect(statuses.every((status) => status === 204)).toBe(true);

    const status = await pair.b.app.releases.status(remote);
    expect(status.canary).toBeNull();
    expect(status.events.filter((event) => event.action === 'auto-rollback')).toEqual([
      { at: expect.any(String), action: 'auto-rollback', version: '2.0.0', by: 'system' },
    ]);
    expect(await pair.a.app.storage.releaseVotes.tally(remote, '2.0.0')).toEqual({
      holders: 20,
      failedHolders: 2,
    });
    // Every report, anonymous or not, is in the version's statistics.
    expect(status.versions.find((version) => version.version === '2.0.0')).toMatchObject({
      loads: 40 + 18 + burst.length,
      failures: 40 + 6,
    });
    expect((await pair.a.app.resolveRemotes('00uAnyone')).remotes[remote]).toMatchObject({
      channel: 'stable',
      version: '1.0.0',
    });
  });

  it('acknowledges exactly one of two parallel publishes of a version with different files, and keeps that one', async () => {
    const remote = `remote_race_${Date.now()}`;
    const publishOn = (instance: typeof pair.a, letter: string) =>
      instance.app.releases
        .publish(
          remote,
          {
            version: '1.0.0',
            entry: `https://cdn.example.com/${letter}/remoteEntry.js`,
            integrity: `sha384-${letter.repeat(64)}`,
            buildId: letter,
          },
          `Team ${letter}`,
        )
        .then(
          () => ({ letter, ok: true as const }),
          (error: unknown) => ({ letter, ok: false as const, code: (error as { code?: string }).code }),
        );
    const outcomes = await Promise.all([publishOn(pair.a, 'A'), publishOn(pair.b, 'B')]);
    const acknowledged = outcomes.filter((outcome) => outcome.ok);
    expect(acknowledged).toHaveLength(1);
    expect(outcomes.find((outcome) => !outcome.ok)).toMatchObject({ code: API_ERROR_CODES.versionExists });
    const stored = await pair.a.app.storage.releases.version(remote, '1.0.0');
    expect(stored?.buildId).toBe(acknowledged[0]?.letter);
    const events = (await pair.b.app.releases.status(remote)).events;
    expect(events.filter((event) => event.action === 'publish')).toHaveLength(1);
  });
});
