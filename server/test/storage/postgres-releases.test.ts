/**
 * Releases on two instances over one PostgreSQL database (project postgres only): a release made on one is what the
 * other resolves, and a burst of failure reports spread over both instances rolls the canary back exactly once,
 * with exactly one `auto-rollback` event by `system`; two teams' parallel publishes of one version with different
 * files on both instances: one is acknowledged, the other refused, and what is stored is the acknowledged one.
 */
import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES } from 'shared-auth/contract';
import { appForBlock, startAppPair } from '../helpers.js';

const INTEGRITY = `sha384-${'Q'.repeat(64)}`;

describe('releases on two instances over one PostgreSQL database', () => {
  const pair = appForBlock(startAppPair);

  it('agree on the resolved set, and roll a failing canary back once', async () => {
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
    await pair.a.app.releases.canary(remote, { version: '2.0.0', percent: 50 }, 'Pair team');
    expect((await pair.b.app.resolveRemotes(undefined)).remotes[remote]).toEqual(
      (await pair.a.app.resolveRemotes(undefined)).remotes[remote],
    );
    expect((await pair.b.app.resolveRemotes(undefined)).remotes[remote]).toMatchObject({ version: '1.0.0' });

    // 19 loads: under CANARY_MIN_LOADS, nothing happens however many failed.
    for (let index = 0; index < 19; index += 1) {
      await pair.b.app.releases.report({ remote, version: '2.0.0', outcome: 'failed', kind: 'render' });
    }
    expect((await pair.a.app.storage.releases.channel(remote))?.canary).not.toBeNull();

    // A burst over both instances at once: every one of these would pass the threshold alone.
    const reports = Array.from({ length: 16 }, (_, index) =>
      (index % 2 === 0 ? pair.a : pair.b).app.inject({
        method: 'POST',
        url: '/api/v1/remote-loads',
        remoteAddress: `198.18.0.${index + 1}`,
        payload: { remote, version: '2.0.0', outcome: 'failed', kind: 'network' },
      }),
    );
    const statuses = (await Promise.all(reports)).map((response) => response.statusCode);
    expect(statuses.every((status) => status === 204)).toBe(true);

    const status = await pair.b.app.releases.status(remote);
    expect(status.canary).toBeNull();
    expect(status.events.filter((event) => event.action === 'auto-rollback')).toEqual([
      { at: expect.any(String), action: 'auto-rollback', version: '2.0.0', by: 'system' },
    ]);
    expect(status.versions.find((version) => version.version === '2.0.0')).toMatchObject({
      loads: 35,
      failures: 35,
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
