/**
 * Storage conformance (both engines): releases (ReleaseStore, ReleaseEventStore, DeployKeyStore, migration 021).
 * A version is added once per remote; the live state is one row per remote; the load counts add up and only for
 * published versions; the failing canary is cleared by one conditional update, exactly once under concurrent
 * callers; events come newest first; a deploy key is found by its hash only while live, and a live label is unique.
 */
import { describe, expect, it } from 'vitest';
import { freshId, storageForFile } from '../support/storage.js';

const t = storageForFile();

const INTEGRITY = `sha384-${'A'.repeat(64)}`;
const THRESHOLD = { minLoads: 20, maxFailureRate: 0.05 };

function versionOf(remote: string, version: string, at = 1000) {
  return {
    remote,
    version,
    entry: `https://cdn.example.com/${remote}/${version}/remoteEntry.js`,
    integrity: INTEGRITY,
    buildId: `build-${version}`,
    publishedBy: 'Profile team',
    publishedAt: at,
  };
}

async function countLoads(remote: string, version: string, loads: number, failures: number) {
  for (let index = 0; index < loads; index += 1) {
    await t.storage.releases.countLoad(remote, version, index < failures);
  }
}

describe('ReleaseStore', () => {
  it('adds a version once per remote and lists a remote’s versions newest first', async () => {
    const remote = freshId('remote_');
    expect(await t.storage.releases.addVersion(versionOf(remote, '1.0.0', 1000))).toBe(true);
    expect(await t.storage.releases.addVersion(versionOf(remote, '1.1.0', 2000))).toBe(true);
    expect(
      await t.storage.releases.addVersion({ ...versionOf(remote, '1.0.0'), entry: 'https://x.example/e.js' }),
    ).toBe(false);
    expect(await t.storage.releases.addVersion(versionOf(freshId('remote_'), '1.0.0'))).toBe(true);
    expect((await t.storage.releases.versionsOf(remote)).map((row) => row.version)).toEqual([
      '1.1.0',
      '1.0.0',
    ]);
    expect(await t.storage.releases.version(remote, '1.0.0')).toEqual({
      ...versionOf(remote, '1.0.0'),
      loads: 0,
      failures: 0,
    });
    expect(await t.storage.releases.version(remote, '9.9.9')).toBeUndefined();
  });

  it('keeps one live state per remote, and lists the live versions only', async () => {
    const remote = freshId('remote_');
    for (const version of ['1.0.0', '1.1.0', '1.2.0', '1.3.0'])
      await t.storage.releases.addVersion(versionOf(remote, version));
    expect(await t.storage.releases.channel(remote)).toBeUndefined();
    await t.storage.releases.setChannel(
      remote,
      { stable: '1.0.0', previousStable: null, canary: null },
      1000,
    );
    await t.storage.releases.setChannel(
      remote,
      { stable: '1.1.0', previousStable: '1.0.0', canary: { version: '1.2.0', percent: 10 } },
      2000,
    );
    expect(await t.storage.releases.channel(remote)).toEqual({
      remote,
      stable: '1.1.0',
      previousStable: '1.0.0',
      canary: { version: '1.2.0', percent: 10 },
    });
    expect((await t.storage.releases.channels()).filter((row) => row.remote === remote)).toHaveLength(1);
    const live = (await t.storage.releases.liveVersions()).filter((row) => row.remote === remote);
    expect(live.map((row) => row.version)).toEqual(['1.0.0', '1.1.0', '1.2.0']);
  });

  it('counts loads and failures of a published version only, and resets them', async () => {
    const remote = freshId('remote_');
    await t.storage.releases.addVersion(versionOf(remote, '1.0.0'));
    await countLoads(remote, '1.0.0', 5, 2);
    expect(await t.storage.releases.countLoad(remote, '0.0.1', true)).toBe(false);
    expect(await t.storage.releases.version(remote, '1.0.0')).toMatchObject({ loads: 5, failures: 2 });
    await t.storage.releases.resetCounts(remote, '1.0.0');
    expect(await t.storage.releases.version(remote, '1.0.0')).toMatchObject({ loads: 0, failures: 0 });
  });

  it('clears the canary only at the threshold: 19 loads never, 20 loads with 1 failure (5 %) yes', async () => {
    const remote = freshId('remote_');
    await t.storage.releases.addVersion(versionOf(remote, '1.0.0'));
    await t.storage.releases.addVersion(versionOf(remote, '2.0.0'));
    const live = { stable: '1.0.0', previousStable: null, canary: { version: '2.0.0', percent: 50 } };
    await t.storage.releases.setChannel(remote, live, 1000);
    await countLoads(remote, '2.0.0', 19, 19);
    expect(await t.storage.releases.clearFailingCanary(remote, '2.0.0', THRESHOLD, 2000)).toBe(false);
    await t.storage.releases.resetCounts(remote, '2.0.0');
    await countLoads(remote, '2.0.0', 20, 0);
    expect(await t.storage.releases.clearFailingCanary(remote, '2.0.0', THRESHOLD, 2000)).toBe(false);
    await t.storage.releases.resetCounts(remote, '2.0.0');
    await countLoads(remote, '2.0.0', 20, 1);
    // Not the canary's version: nothing to clear.
    expect(await t.storage.releases.clearFailingCanary(remote, '1.0.0', THRESHOLD, 2000)).toBe(false);
    expect(await t.storage.releases.clearFailingCanary(remote, '2.0.0', THRESHOLD, 2000)).toBe(true);
    expect(await t.storage.releases.channel(remote)).toMatchObject({ stable: '1.0.0', canary: null });
    expect(await t.storage.releases.clearFailingCanary(remote, '2.0.0', THRESHOLD, 3000)).toBe(false);
  });

  it('clears a failing canary for exactly one of many concurrent callers', async () => {
    const remote = freshId('remote_');
    await t.storage.releases.addVersion(versionOf(remote, '2.0.0'));
    await t.storage.releases.setChannel(
      remote,
      { stable: null, previousStable: null, canary: { version: '2.0.0', percent: 5 } },
      1,
    );
    await countLoads(remote, '2.0.0', 20, 20);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => t.storage.releases.clearFailingCanary(remote, '2.0.0', THRESHOLD, 2)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

describe('ReleaseEventStore', () => {
  it('keeps every event of a remote and gives the last ones newest first', async () => {
    const remote = freshId('remote_');
    await t.storage.releaseEvents.add(remote, {
      at: 1000,
      action: 'publish',
      version: '1.0.0',
      actor: 'Team',
    });
    await t.storage.releaseEvents.add(remote, {
      at: 1000,
      action: 'promote',
      version: '1.0.0',
      actor: 'Team',
    });
    await t.storage.releaseEvents.add(remote, {
      at: 2000,
      action: 'auto-rollback',
      version: '2.0.0',
      actor: 'system',
    });
    await t.storage.releaseEvents.add(freshId('remote_'), {
      at: 3000,
      action: 'publish',
      version: '1.0.0',
      actor: 'Other',
    });
    expect(await t.storage.releaseEvents.latest(remote, 2)).toEqual([
      { at: 2000, action: 'auto-rollback', version: '2.0.0', actor: 'system' },
      { at: 1000, action: 'promote', version: '1.0.0', actor: 'Team' },
    ]);
  });
});

describe('DeployKeyStore', () => {
  it('finds a live key by its hash, refuses a second live key with its label, and forgets it once revoked', async () => {
    const label = `Team ${freshId()}`;
    const hash = freshId('hash');
    expect(await t.storage.deployKeys.add(hash, { label, remote: 'remote_profile', createdAt: 1000 })).toBe(
      true,
    );
    expect(
      await t.storage.deployKeys.add(freshId('hash'), { label, remote: 'remote_security', createdAt: 1000 }),
    ).toBe(false);
    expect(await t.storage.deployKeys.liveByHash(hash)).toEqual({
      label,
      remote: 'remote_profile',
      createdAt: 1000,
      revokedAt: null,
    });
    expect(await t.storage.deployKeys.revoke(label, 2000)).toBe(true);
    expect(await t.storage.deployKeys.revoke(label, 2000)).toBe(false);
    expect(await t.storage.deployKeys.liveByHash(hash)).toBeUndefined();
    expect((await t.storage.deployKeys.list()).find((key) => key.label === label)).toMatchObject({
      revokedAt: 2000,
    });
    // The label is free again once its key is revoked.
    expect(
      await t.storage.deployKeys.add(freshId('hash'), { label, remote: 'remote_profile', createdAt: 3000 }),
    ).toBe(true);
  });
});
