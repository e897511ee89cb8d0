/**
 * Storage conformance (both engines): releases (ReleaseStore, ReleaseVoteStore, ReleaseEventStore, DeployKeyStore,
 * migrations 021 and 022). A version is added once per remote; the live state is one row per remote; the load counts
 * add up and only for published versions; a holder's vote counts once per version, a failure raising it once; the
 * failing canary is cleared by one conditional update over the votes (never over the load counts), exactly once
 * under concurrent callers; events come newest first; a deploy key is found by its hash only while live, and a live
 * label is unique.
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

/** `holders` distinct holders vote on the version, the first `failing` of them with a failure. */
async function vote(remote: string, version: string, holders: number, failing: number) {
  for (let index = 0; index < holders; index += 1) {
    await t.storage.releaseVotes.vote({
      remote,
      version,
      sub: `00uholder${index}`,
      outcome: index < failing ? 'failed' : 'loaded',
      at: 1000 + index,
    });
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

  it('clears the canary only at the threshold of its votes: 19 holders never, 20 holders with 1 failing (5 %) yes', async () => {
    const remote = freshId('remote_');
    await t.storage.releases.addVersion(versionOf(remote, '1.0.0'));
    await t.storage.releases.addVersion(versionOf(remote, '2.0.0'));
    const live = { stable: '1.0.0', previousStable: null, canary: { version: '2.0.0', percent: 50 } };
    await t.storage.releases.setChannel(remote, live, 1000);
    await vote(remote, '2.0.0', 19, 19);
    expect(await t.storage.releases.clearFailingCanary(remote, '2.0.0', THRESHOLD, 2000)).toBe(false);
    await t.storage.releaseVotes.clear(remote, '2.0.0');
    await vote(remote, '2.0.0', 20, 0);
    expect(await t.storage.releases.clearFailingCanary(remote, '2.0.0', THRESHOLD, 2000)).toBe(false);
    await t.storage.releaseVotes.clear(remote, '2.0.0');
    await vote(remote, '2.0.0', 20, 1);
    // Not the canary's version: nothing to clear.
    expect(await t.storage.releases.clearFailingCanary(remote, '1.0.0', THRESHOLD, 2000)).toBe(false);
    expect(await t.storage.releases.clearFailingCanary(remote, '2.0.0', THRESHOLD, 2000)).toBe(true);
    expect(await t.storage.releases.channel(remote)).toMatchObject({ stable: '1.0.0', canary: null });
    expect(await t.storage.releases.clearFailingCanary(remote, '2.0.0', THRESHOLD, 3000)).toBe(false);
  });

  it('never clears the canary on the load counts, however many failures they hold', async () => {
    const remote = freshId('remote_');
    await t.storage.releases.addVersion(versionOf(remote, '2.0.0'));
    await t.storage.releases.setChannel(
      remote,
      { stable: null, previousStable: null, canary: { version: '2.0.0', percent: 50 } },
      1000,
    );
    await countLoads(remote, '2.0.0', 200, 200);
    expect(await t.storage.releases.clearFailingCanary(remote, '2.0.0', THRESHOLD, 2000)).toBe(false);
    // Another remote's votes for the same version label are not this canary's.
    await vote(freshId('remote_'), '2.0.0', 20, 20);
    expect(await t.storage.releases.clearFailingCanary(remote, '2.0.0', THRESHOLD, 2000)).toBe(false);
    // With a minimum of 1, one holder who met a failure is enough (the end-to-end test's setting).
    await vote(remote, '2.0.0', 1, 1);
    expect(
      await t.storage.releases.clearFailingCanary(
        remote,
        '2.0.0',
        { minLoads: 1, maxFailureRate: 0.05 },
        2000,
      ),
    ).toBe(true);
  });

  it('clears a failing canary for exactly one of many concurrent callers', async () => {
    const remote = freshId('remote_');
    await t.storage.releases.addVersion(versionOf(remote, '2.0.0'));
    await t.storage.releases.setChannel(
      remote,
      { stable: null, previousStable: null, canary: { version: '2.0.0', percent: 5 } },
      1,
    );
    await vote(remote, '2.0.0', 20, 20);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => t.storage.releases.clearFailingCanary(remote, '2.0.0', THRESHOLD, 2)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

describe('ReleaseVoteStore', () => {
  it('counts a holder once per version: repeats change nothing, a first failure raises it once', async () => {
    const remote = freshId('remote_');
    const holder = { remote, version: '2.0.0', sub: freshId(), at: 1000 };
    expect(await t.storage.releaseVotes.vote({ ...holder, outcome: 'loaded' })).toBe(true);
    expect(await t.storage.releaseVotes.vote({ ...holder, outcome: 'loaded' })).toBe(false);
    expect(await t.storage.releaseVotes.tally(remote, '2.0.0')).toEqual({ holders: 1, failedHolders: 0 });
    expect(await t.storage.releaseVotes.vote({ ...holder, outcome: 'failed' })).toBe(true);
    for (let report = 0; report < 50; report += 1) {
      expect(await t.storage.releaseVotes.vote({ ...holder, outcome: 'failed' })).toBe(false);
      expect(await t.storage.releaseVotes.vote({ ...holder, outcome: 'loaded' })).toBe(false);
    }
    expect(await t.storage.releaseVotes.tally(remote, '2.0.0')).toEqual({ holders: 1, failedHolders: 1 });
    // Another holder, and the same holder on another version or remote, are other votes.
    const other = { ...holder, sub: freshId(), outcome: 'failed' as const };
    expect(await t.storage.releaseVotes.vote(other)).toBe(true);
    expect(await t.storage.releaseVotes.vote({ ...holder, version: '2.1.0', outcome: 'failed' })).toBe(true);
    expect(
      await t.storage.releaseVotes.vote({ ...holder, remote: freshId('remote_'), outcome: 'loaded' }),
    ).toBe(true);
    expect(await t.storage.releaseVotes.tally(remote, '2.0.0')).toEqual({ holders: 2, failedHolders: 2 });
    expect(await t.storage.releaseVotes.tally(remote, '2.1.0')).toEqual({ holders: 1, failedHolders: 1 });
    await t.storage.releaseVotes.clear(remote, '2.0.0');
    expect(await t.storage.releaseVotes.tally(remote, '2.0.0')).toEqual({ holders: 0, failedHolders: 0 });
    expect(await t.storage.releaseVotes.tally(remote, '2.1.0')).toEqual({ holders: 1, failedHolders: 1 });
  });

  it('takes one of many parallel identical votes', async () => {
    const remote = freshId('remote_');
    const vote = { remote, version: '2.0.0', sub: freshId(), outcome: 'failed' as const, at: 1000 };
    const results = await Promise.all(Array.from({ length: 8 }, () => t.storage.releaseVotes.vote(vote)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await t.storage.releaseVotes.tally(remote, '2.0.0')).toEqual({ holders: 1, failedHolders: 1 });
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
