/**
 * Releases (issue 23) over HTTP, attacker first: the release API's authorization matrix (no key, unknown, revoked,
 * another remote's, a bearer access token instead), bad bodies 400 never 500, the rules of publish / canary /
 * promote / rollback with their audit, `/remotes.json` resolved (anonymous gets stable, a holder's canary bucket is
 * fixed, an invalid token is anonymous, a remote without a release falls back to the remotes file), the page's CSP
 * allowing every live origin, the load reports' per-address limit under a burst with the counts bounded, and the
 * automatic rollback as the attacker meets it: anonymous reports (however many, from however many addresses) never
 * move a canary; a holder's reports count once per version; a holder outside the canary's bucket, or a report of a
 * version that is not the live canary, never votes; a token of an ended session is refused. Then the threshold over
 * distinct holders (19 never; 20 with 1 failing at 5 %), and the per-holder limit.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import {
  releaseCalls,
  releaseStatusSchema,
  resolvedRemotesSchema,
  type ReleaseStatus,
  type ResolvedRemotes,
} from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { canaryBucket } from '../src/releases/canary-bucket.js';
import { entryRuleOf, Releases } from '../src/releases/releases.js';
import { HOLDER_LOAD_REPORTS_PER_MINUTE } from '../src/routes/api/remote-loads/index.js';
import { ALICE, appForBlock, providerSignOut, startApp, subOf, tokensFor } from './helpers.js';
import { newUser, signInSession } from './security-helpers.js';

// Many holders sign in from the one test address.
const t = appForBlock(() =>
  startApp({ AUTHORIZE_RATE_LIMIT: '10000', TOKEN_RATE_LIMIT: '10000', SIGN_IN_POSTS_PER_MINUTE: '10000' }),
);

const INTEGRITY = (letter: string) => `sha384-${letter.repeat(64)}`;
const CDN = 'https://cdn.example.com';
const OTHER_CDN = 'https://canary.example.net';

let keyCount = 0;
async function keyFor(remote: string): Promise<string> {
  keyCount += 1;
  return t.app.deployKeys.create(remote, `Team ${remote} ${keyCount}`);
}

function releasePath(remote: string, action?: 'versions' | 'canary' | 'promote' | 'rollback'): string {
  return `/api/v1/releases/${remote}${action ? `/${action}` : ''}`;
}

interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, unknown>;
}

async function send(
  app: FastifyInstance,
  method: 'GET' | 'POST',
  url: string,
  options: { key?: string; authorization?: string; body?: unknown; remoteAddress?: string } = {},
): Promise<Answer> {
  const authorization = options.authorization ?? (options.key ? `Deploy ${options.key}` : undefined);
  const response = await app.inject({
    method,
    url,
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
    headers: {
      ...(authorization ? { authorization } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
  });
  const text = response.body;
  let body: unknown = undefined;
  // The release API answers plain JSON (a tool's API, not the spec's JSON-text calls).
  if (text !== '') body = JSON.parse(text);
  return { status: response.statusCode, body, headers: response.headers };
}

function publishBody(version: string, origin = CDN, letter = 'A') {
  return {
    version,
    entry: `${origin}/remote_profile/${version}/remoteEntry.js`,
    integrity: INTEGRITY(letter),
    buildId: `build-${version}`,
  };
}

async function resolved(token?: string): Promise<ResolvedRemotes> {
  const response = await t.app.inject({
    url: '/remotes.json',
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  expect(response.statusCode).toBe(200);
  expect(response.headers['cache-control']).toBe('no-store');
  return resolvedRemotesSchema.parse(response.json());
}

/** A fresh remote name, so each test has its own releases. */
let remoteCount = 0;
function freshRemote(): string {
  remoteCount += 1;
  return `remote_test${remoteCount}_${Date.now()}`;
}

describe('the release API’s authorization', () => {
  const calls = [
    ['publish', 'POST', 'versions', publishBody('1.0.0')],
    ['canary', 'POST', 'canary', { version: '1.0.0', percent: 10 }],
    ['promote', 'POST', 'promote', { version: '1.0.0' }],
    ['rollback', 'POST', 'rollback', undefined],
    ['status', 'GET', undefined, undefined],
  ] as const;

  it.each(calls)(
    '%s: refuses no key, an unknown, a malformed or a revoked key (401), another remote’s (403), a bearer token (401)',
    async (_name, method, action, body) => {
      const remote = freshRemote();
      const url = releasePath(remote, action);
      const revoked = await t.app.deployKeys.create(remote, `Revoked ${remote}`);
      expect(await t.app.deployKeys.revoke(`Revoked ${remote}`)).toBe(true);
      const otherRemotes = await keyFor('remote_security');
      const { access_token: accessToken } = await tokensFor(t.app, ALICE);
      const unknown = `pdk_${'x'.repeat(43)}`;
      const cases: [string | undefined, number, string][] = [
        [undefined, 401, 'invalid_deploy_key'],
        [`Deploy ${unknown}`, 401, 'invalid_deploy_key'],
        ['Deploy not-a-key', 401, 'invalid_deploy_key'],
        [`Deploy ${revoked}`, 401, 'invalid_deploy_key'],
        [`Bearer ${revoked}`, 401, 'invalid_deploy_key'],
        [`Deploy ${otherRemotes}`, 403, 'forbidden_remote'],
        [`Bearer ${accessToken}`, 401, 'invalid_deploy_key'],
      ];
      for (const [authorization, status, code] of cases) {
        const answer = await send(t.app, method, url, { ...(authorization ? { authorization } : {}), body });
        expect({
          authorization,
          status: answer.status,
          code: (answer.body as { code?: string }).code,
        }).toEqual({
          authorization,
          status,
          code,
        });
      }
      // Nothing was done by any of them.
      expect(await t.app.storage.releases.versionsOf(remote)).toEqual([]);
      expect(await t.app.storage.releaseEvents.latest(remote, 50)).toEqual([]);
    },
  );

  it('checks the key before the body: a bad body without a key is 401, not 400', async () => {
    const answer = await send(t.app, 'POST', releasePath(freshRemote(), 'versions'), {
      body: { version: '' },
    });
    expect(answer.status).toBe(401);
  });

  it('declares the deploy-key refusals on every release call', () => {
    for (const call of [
      releaseCalls.publish,
      releaseCalls.canary,
      releaseCalls.promote,
      releaseCalls.rollback,
      releaseCalls.status,
    ]) {
      expect(call.errors).toEqual(expect.arrayContaining(['invalidDeployKey', 'forbiddenRemote']));
    }
  });
});

describe('the release API’s bodies', () => {
  it.each([
    ['versions', { ...publishBody('1.0.0'), version: '' }],
    ['versions', { ...publishBody('1.0.0'), version: '../1' }],
    ['versions', { ...publishBody('1.0.0'), integrity: 'sha256-abc' }],
    ['versions', { ...publishBody('1.0.0'), entry: 'javascript:alert(1)' }],
    ['versions', { ...publishBody('1.0.0'), buildId: '' }],
    ['versions', { version: '1.0.0' }],
    ['versions', 'just text'],
    ['versions', null],
    ['canary', { version: '1.0.0', percent: 0 }],
    ['canary', { version: '1.0.0', percent: 100 }],
    ['canary', { version: '1.0.0', percent: 12.5 }],
    ['canary', { version: '1.0.0', percent: '10' }],
    ['promote', {}],
    ['promote', { version: 'x'.repeat(65) }],
  ] as const)('%s refuses %j with 400', async (action, body) => {
    const remote = freshRemote();
    const answer = await send(t.app, 'POST', releasePath(remote, action), {
      key: await keyFor(remote),
      body,
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'invalid_request', error: expect.any(String) });
  });

  it('refuses a path whose remote is not a name (403: no key is for it)', async () => {
    const key = await keyFor('remote_profile');
    const answer = await send(t.app, 'GET', '/api/v1/releases/not-a-name', { key });
    expect(answer.status).toBe(403);
  });

  it('refuses a report body over 1 kB (413) and a bad report (400)', async () => {
    const big = await send(t.app, 'POST', '/api/v1/remote-loads', {
      body: { remote: 'remote_profile', version: '1.0.0', outcome: 'loaded', pad: 'x'.repeat(2000) },
      remoteAddress: '198.51.100.90',
    });
    expect(big.status).toBe(413);
    for (const body of [
      { remote: 'remote_profile', version: '1.0.0', outcome: 'failed' },
      { remote: 'remote_profile', version: '1.0.0', outcome: 'maybe' },
      { remote: 'remote-profile', version: '1.0.0', outcome: 'loaded' },
      { remote: 'remote_profile', version: '1.0.0', outcome: 'failed', kind: 'cosmic-ray' },
    ]) {
      const answer = await send(t.app, 'POST', '/api/v1/remote-loads', {
        body,
        remoteAddress: '198.51.100.91',
      });
      expect(answer.status).toBe(400);
    }
  });
});

describe('the entry an https portal takes (the remotes file’s rule)', () => {
  it('refuses an http or localhost entry with an https PUBLIC_URL (400), takes it on an http portal', async () => {
    const rule = entryRuleOf('https://account.example.com');
    const releases = new Releases({
      storage: t.app.storage,
      now: Date.now,
      threshold: { minLoads: 20, maxFailureRate: 0.05 },
      ...(rule ? { entryAllowed: rule } : {}),
    });
    const remote = freshRemote();
    for (const entry of ['http://cdn.example.com/remoteEntry.js', 'https://localhost:3001/remoteEntry.js']) {
      await expect(
        releases.publish(remote, { ...publishBody('1.0.0'), entry }, 'Team'),
      ).rejects.toMatchObject({ statusCode: 400, code: 'invalid_request' });
    }
    await expect(releases.publish(remote, publishBody('1.0.0'), 'Team')).resolves.toMatchObject({
      stable: null,
    });
    expect(entryRuleOf('http://localhost:3000')).toBeUndefined();
    expect(entryRuleOf('https://localhost:8443')?.(new URL('https://localhost:3001/remoteEntry.js'))).toBe(
      true,
    );
  });
});

describe('publish, canary, promote, rollback', () => {
  it('runs a release through every step, logs each with who and when, and answers the status', async () => {
    const remote = freshRemote();
    const key = await keyFor(remote);
    const label = (await t.app.deployKeys.list()).find((row) => row.remote === remote)?.label;

    const published = await send(t.app, 'POST', releasePath(remote, 'versions'), {
      key,
      body: publishBody('1.0.0'),
    });
    expect(published.status).toBe(201);
    expect(releaseStatusSchema.parse(published.body)).toMatchObject({ stable: null, canary: null });
    // The same data again changes nothing; other data for the version is refused.
    expect(
      (await send(t.app, 'POST', releasePath(remote, 'versions'), { key, body: publishBody('1.0.0') }))
        .status,
    ).toBe(201);
    const clash = await send(t.app, 'POST', releasePath(remote, 'versions'), {
      key,
      body: publishBody('1.0.0', CDN, 'B'),
    });
    expect(clash).toMatchObject({ status: 409, body: { code: 'version_exists' } });

    expect((await send(t.app, 'POST', releasePath(remote, 'rollback'), { key })).body).toMatchObject({
      code: 'nothing_to_roll_back',
    });
    const unknown = await send(t.app, 'POST', releasePath(remote, 'promote'), {
      key,
      body: { version: '9.9.9' },
    });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'not_found' } });

    expect(
      (await send(t.app, 'POST', releasePath(remote, 'promote'), { key, body: { version: '1.0.0' } })).status,
    ).toBe(200);
    await send(t.app, 'POST', releasePath(remote, 'versions'), {
      key,
      body: publishBody('1.1.0', OTHER_CDN, 'C'),
    });
    const sameAsStable = await send(t.app, 'POST', releasePath(remote, 'canary'), {
      key,
      body: { version: '1.0.0', percent: 10 },
    });
    expect(sameAsStable.status).toBe(409);
    const canary = await send(t.app, 'POST', releasePath(remote, 'canary'), {
      key,
      body: { version: '1.1.0', percent: 10 },
    });
    expect(canary.body).toMatchObject({ stable: '1.0.0', canary: { version: '1.1.0', percent: 10 } });
    const rolledBack = await send(t.app, 'POST', releasePath(remote, 'rollback'), { key });
    expect(rolledBack.body).toMatchObject({ stable: '1.0.0', canary: null });
    await send(t.app, 'POST', releasePath(remote, 'promote'), { key, body: { version: '1.1.0' } });
    const back = await send(t.app, 'POST', releasePath(remote, 'rollback'), { key });
    expect(back.body).toMatchObject({ stable: '1.0.0', canary: null });

    const status = releaseStatusSchema.parse(
      (await send(t.app, 'GET', releasePath(remote), { key })).body,
    ) as ReleaseStatus;
    expect(status.versions.map((version) => [version.version, version.publishedBy])).toEqual([
      ['1.1.0', label],
      ['1.0.0', label],
    ]);
    expect(status.events.map((event) => [event.action, event.version, event.by])).toEqual([
      ['rollback', '1.1.0', label],
      ['promote', '1.1.0', label],
      ['rollback', '1.1.0', label],
      ['canary', '1.1.0', label],
      ['publish', '1.1.0', label],
      ['promote', '1.0.0', label],
      ['publish', '1.0.0', label],
    ]);
    expect(Number.isNaN(Date.parse(status.events[0]?.at ?? ''))).toBe(false);
  });
});

describe('GET /remotes.json', () => {
  it('falls back to the remotes file, per remote, while a remote has no stable release', async () => {
    const set = await resolved();
    expect(set.remotes.remote_password).toEqual({
      entry: t.config.currentRemotes().remotes.remote_password?.entry,
      integrity: null,
      version: null,
      buildId: null,
      channel: 'bootstrap',
      fallback: null,
    });
  });

  it('gives anonymous pages stable, a holder in the bucket the canary (the same on every call), and an invalid token stable', async () => {
    const remote = 'remote_profile';
    const key = await keyFor(remote);
    await send(t.app, 'POST', releasePath(remote, 'versions'), { key, body: publishBody('3.0.0', CDN, 'D') });
    await send(t.app, 'POST', releasePath(remote, 'versions'), { key, body: publishBody('3.1.0', CDN, 'E') });
    await send(t.app, 'POST', releasePath(remote, 'versions'), {
      key,
      body: publishBody('3.2.0', OTHER_CDN, 'F'),
    });
    await send(t.app, 'POST', releasePath(remote, 'promote'), { key, body: { version: '3.0.0' } });
    await send(t.app, 'POST', releasePath(remote, 'promote'), { key, body: { version: '3.1.0' } });

    const { access_token: token } = await tokensFor(t.app, ALICE);
    const bucket = canaryBucket(subOf(token), remote);
    // Alice's bucket is fixed for this remote: a percentage just above it takes her in, one at it leaves her out.
    await send(t.app, 'POST', releasePath(remote, 'canary'), {
      key,
      body: { version: '3.2.0', percent: Math.min(bucket + 1, 99) },
    });
    if (bucket < 99) {
      for (let call = 0; call < 3; call += 1) {
        expect((await resolved(token)).remotes[remote]).toMatchObject({
          channel: 'canary',
          version: '3.2.0',
          integrity: INTEGRITY('F'),
          fallback: { version: '3.1.0', integrity: INTEGRITY('E') },
        });
      }
    }
    const stable = {
      channel: 'stable',
      version: '3.1.0',
      entry: `${CDN}/remote_profile/3.1.0/remoteEntry.js`,
      buildId: 'build-3.1.0',
      fallback: {
        version: '3.0.0',
        entry: `${CDN}/remote_profile/3.0.0/remoteEntry.js`,
        integrity: INTEGRITY('D'),
      },
    };
    expect((await resolved()).remotes[remote]).toMatchObject(stable);
    expect((await resolved('not.a.jwt')).remotes[remote]).toMatchObject(stable);
    expect((await resolved(`${token.slice(0, -4)}AAAA`)).remotes[remote]).toMatchObject(stable);
    if (bucket > 0) {
      await send(t.app, 'POST', releasePath(remote, 'canary'), {
        key,
        body: { version: '3.2.0', percent: bucket },
      });
      expect((await resolved(token)).remotes[remote]).toMatchObject(stable);
    }

    // The page's CSP allows every origin the answer can name (stable, canary, fallback).
    const page = await t.app.inject('/healthz');
    const csp = String(page.headers['content-security-policy']);
    const scriptSrc = /script-src ([^;]+)/.exec(csp)?.[1] ?? '';
    const connectSrc = /connect-src ([^;]+)/.exec(csp)?.[1] ?? '';
    for (const origin of [CDN, OTHER_CDN]) {
      expect(scriptSrc.split(' ')).toContain(origin);
      expect(connectSrc.split(' ')).toContain(origin);
    }
    // Clean up for the other tests of the file: the file's remote_profile back to its canary-free stable.
    await send(t.app, 'POST', releasePath(remote, 'rollback'), { key });
  });

  it('computes the bucket by the contract’s rule: fixed per sub and remote, spread over 0–99', () => {
    expect(canaryBucket('00u1', 'remote_profile')).toBe(canaryBucket('00u1', 'remote_profile'));
    const buckets = new Set(
      Array.from({ length: 400 }, (_, index) => canaryBucket(`00u${index}`, 'remote_profile')),
    );
    expect(Math.min(...buckets)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...buckets)).toBeLessThan(100);
    expect(buckets.size).toBeGreaterThan(90);
    // The first 4 bytes of SHA-256("00u1:remote_profile") as a big-endian uint32, mod 100.
    const digest = createHash('sha256').update('00u1:remote_profile').digest();
    expect(canaryBucket('00u1', 'remote_profile')).toBe(digest.readUInt32BE(0) % 100);
  });
});

describe('POST /api/v1/remote-loads', () => {
  it('answers 204 without auth, and limits a burst of parallel reports per address (429 with Retry-After), the counts bounded', async () => {
    const remote = freshRemote();
    const key = await keyFor(remote);
    await send(t.app, 'POST', releasePath(remote, 'versions'), { key, body: publishBody('1.0.0') });
    await send(t.app, 'POST', releasePath(remote, 'promote'), { key, body: { version: '1.0.0' } });
    const report = { remote, version: '1.0.0', outcome: 'loaded' };
    const answers = await Promise.all(
      Array.from({ length: 45 }, () =>
        send(t.app, 'POST', '/api/v1/remote-loads', { body: report, remoteAddress: '203.0.113.7' }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 204)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    const refused = answers.find((answer) => answer.status === 429);
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused?.body).toMatchObject({ code: 'rate_limited' });
    expect(await t.app.storage.releases.version(remote, '1.0.0')).toMatchObject({ loads: 30, failures: 0 });
    // Another network is not held back by this one.
    expect(
      (await send(t.app, 'POST', '/api/v1/remote-loads', { body: report, remoteAddress: '203.0.114.7' }))
        .status,
    ).toBe(204);
    // Reports of versions nobody published add no row anywhere.
    const versionsBefore = await t.app.storage.sql.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM release_versions',
    );
    await send(t.app, 'POST', '/api/v1/remote-loads', {
      body: { remote: 'remote_made_up', version: '6.6.6', outcome: 'failed', kind: 'render' },
      remoteAddress: '203.0.115.7',
    });
    const versionsAfter = await t.app.storage.sql.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM release_versions',
    );
    expect(Number(versionsAfter?.n)).toBe(Number(versionsBefore?.n));
  });

  it('refuses a report whose bearer the API would refuse (401): an ended session, a forged or a garbled token', async () => {
    const remote = await canaryRemote(99);
    const holder = await signInSession(t.app, await newUser(t.app));
    const failed = { remote, version: '2.0.0', outcome: 'failed', kind: 'render' };
    expect((await report(failed, { token: holder.token })).status).toBe(204);
    expect(await t.app.storage.releases.version(remote, '2.0.0')).toMatchObject({ loads: 1, failures: 1 });
    await providerSignOut(t.app, holder);
    for (const token of [holder.token, `${holder.token.slice(0, -4)}AAAA`, 'not-a-jwt']) {
      const answer = await report(failed, { token });
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ code: 'unauthorized' });
    }
    // Nothing of theirs was counted after the sign-out.
    expect(await t.app.storage.releases.version(remote, '2.0.0')).toMatchObject({ loads: 1, failures: 1 });
  });
});

describe('the automatic rollback, as the attacker meets it', () => {
  it('never rolls a canary back on anonymous reports: 200 failures from 200 addresses are statistics only', async () => {
    const remote = await canaryRemote(50);
    const failed = { remote, version: '2.0.0', outcome: 'failed', kind: 'network' };
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        report(failed, { remoteAddress: `10.${Math.floor(index / 250)}.${index % 250}.9` }),
      ),
    );
    expect(answers.every((answer) => answer.status === 204)).toBe(true);
    const status = await statusOf(remote);
    expect(status.canary).toEqual({ version: '2.0.0', percent: 50 });
    expect(status.versions.find((version) => version.version === '2.0.0')).toMatchObject({
      loads: 200,
      failures: 200,
    });
    expect(status.events.map((event) => event.action)).not.toContain('auto-rollback');
    expect(await t.app.storage.releaseVotes.tally(remote, '2.0.0')).toEqual({ holders: 0, failedHolders: 0 });
  });

  it('counts one holder once however often they report, and limits them per account, not per network', async () => {
    const remote = await canaryRemote(99);
    const [holder] = await holdersIn(remote, 99, 1, { fresh: true });
    const failed = { remote, version: '2.0.0', outcome: 'failed', kind: 'render' };
    const answers = [];
    // Each from another address: changing networks does not reset a holder's limit.
    for (let index = 0; index < 50; index += 1) {
      answers.push(await report(failed, { token: holder?.token, remoteAddress: `172.16.${index}.1` }));
    }
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 204)).toHaveLength(HOLDER_LOAD_REPORTS_PER_MINUTE);
    expect(statuses.filter((status) => status === 429)).toHaveLength(50 - HOLDER_LOAD_REPORTS_PER_MINUTE);
    expect(await t.app.storage.releaseVotes.tally(remote, '2.0.0')).toEqual({ holders: 1, failedHolders: 1 });
    expect((await statusOf(remote)).canary).not.toBeNull();
    // The holder's reports took nothing from their network's anonymous allowance.
    expect((await report(failed, { remoteAddress: '172.16.49.1' })).status).toBe(204);
  });

  it('takes no vote from a holder outside the canary’s bucket, nor on a version that is not the live canary', async () => {
    const remote = freshRemote();
    await releaseWithCanary(remote, 1);
    const outside = await holderOutside(remote);
    // Their bucket is at least the percentage: the canary at their bucket still leaves them out.
    await t.app.releases.canary(
      remote,
      { version: '2.0.0', percent: canaryBucket(outside.sub, remote) },
      'Team',
    );
    const failed = { remote, version: '2.0.0', outcome: 'failed', kind: 'render' };
    expect((await report(failed, { token: outside.token })).status).toBe(204);
    expect(await t.app.storage.releaseVotes.tally(remote, '2.0.0')).toEqual({ holders: 0, failedHolders: 0 });

    // A holder of the bucket reporting the stable version, or a version after the canary ended, does not vote.
    const [inside] = await holdersIn(remote, 99, 1);
    await t.app.releases.canary(remote, { version: '2.0.0', percent: 99 }, 'Team');
    await report({ remote, version: '1.0.0', outcome: 'failed', kind: 'render' }, { token: inside?.token });
    expect(await t.app.storage.releaseVotes.tally(remote, '1.0.0')).toEqual({ holders: 0, failedHolders: 0 });
    await t.app.releases.rollback(remote, 'Team');
    await report(failed, { token: inside?.token });
    expect(await t.app.storage.releaseVotes.tally(remote, '2.0.0')).toEqual({ holders: 0, failedHolders: 0 });
    // Both still count in the versions' statistics.
    const versions = (await statusOf(remote)).versions;
    expect(versions.find((version) => version.version === '1.0.0')).toMatchObject({ loads: 1, failures: 1 });
    expect(versions.find((version) => version.version === '2.0.0')).toMatchObject({ loads: 2, failures: 2 });
  });

  it('rolls back on distinct holders: 19 failing never; 20 with 1 failing (5 %) once, whatever anonymous pages say', async () => {
    const remote = await canaryRemote(99);
    const holders = await holdersIn(remote, 99, 21);
    const failed = { remote, version: '2.0.0', outcome: 'failed', kind: 'render' };
    const loaded = { remote, version: '2.0.0', outcome: 'loaded' };
    for (const holder of holders.slice(0, 19)) {
      expect((await report(failed, { token: holder.token })).status).toBe(204);
    }
    expect((await statusOf(remote)).canary).not.toBeNull();

    // A new canary run is judged on its own holders.
    await t.app.releases.rollback(remote, 'Team');
    await t.app.releases.canary(remote, { version: '2.0.0', percent: 99 }, 'Team');
    expect(await t.app.storage.releaseVotes.tally(remote, '2.0.0')).toEqual({ holders: 0, failedHolders: 0 });
    // Anonymous 'loaded' reports cannot dilute the holders' failures.
    await Promise.all(
      Array.from({ length: 100 }, (_, index) => report(loaded, { remoteAddress: `10.9.${index}.1` })),
    );
    await report(failed, { token: holders[0]?.token });
    for (const holder of holders.slice(1, 19)) await report(loaded, { token: holder.token });
    expect((await statusOf(remote)).canary).not.toBeNull();
    await report(loaded, { token: holders[19]?.token });
    expect((await statusOf(remote)).canary).toBeNull();
    await report(failed, { token: holders[20]?.token });

    const status = await statusOf(remote);
    expect(status.events.filter((event) => event.action === 'auto-rollback')).toEqual([
      { at: expect.any(String), action: 'auto-rollback', version: '2.0.0', by: 'system' },
    ]);
    // Everyone gets stable again on the next load.
    expect((await resolved()).remotes[remote]).toMatchObject({ channel: 'stable', version: '1.0.0' });
  });
});

/** Publishes 1.0.0 (stable) and 2.0.0 of `remote` on the file's app; puts 2.0.0 in canary at `percent`. */
async function releaseWithCanary(remote: string, percent: number): Promise<void> {
  await t.app.releases.publish(remote, publishBody('1.0.0'), 'Team');
  await t.app.releases.publish(remote, publishBody('2.0.0', OTHER_CDN, 'B'), 'Team');
  await t.app.releases.promote(remote, { version: '1.0.0' }, 'Team');
  await t.app.releases.canary(remote, { version: '2.0.0', percent }, 'Team');
}

/** A fresh remote with 1.0.0 stable and 2.0.0 in canary at `percent`. */
async function canaryRemote(percent: number): Promise<string> {
  const remote = freshRemote();
  await releaseWithCanary(remote, percent);
  return remote;
}

async function statusOf(remote: string): Promise<ReleaseStatus> {
  return t.app.releases.status(remote);
}

/** One load report, anonymous or with a holder's bearer token, from `remoteAddress` (a fresh one by default). */
let addressCount = 0;
function report(body: unknown, options: { token?: string | undefined; remoteAddress?: string } = {}) {
  addressCount += 1;
  return send(t.app, 'POST', '/api/v1/remote-loads', {
    body,
    remoteAddress: options.remoteAddress ?? `192.0.2.${addressCount % 250}`,
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
  });
}

interface Holder {
  sub: string;
  token: string;
}

/** The file's signed-in holders, shared by its tests (each sends a few reports, under the per-holder limit). */
const pool: Holder[] = [];

async function signedInHolder(): Promise<Holder> {
  const session = await signInSession(t.app, await newUser(t.app));
  return { sub: session.user.id, token: session.token };
}

/** `count` signed-in holders whose bucket for `remote` is under `percent` (from the pool unless `fresh`). */
async function holdersIn(
  remote: string,
  percent: number,
  count: number,
  { fresh = false } = {},
): Promise<Holder[]> {
  const found = fresh ? [] : pool.filter((holder) => canaryBucket(holder.sub, remote) < percent);
  while (found.length < count) {
    const holder = await signedInHolder();
    if (!fresh) pool.push(holder);
    if (canaryBucket(holder.sub, remote) < percent) found.push(holder);
  }
  return found.slice(0, count);
}

/** A signed-in holder whose bucket for `remote` is above 0 (so a canary at their bucket leaves them out). */
async function holderOutside(remote: string): Promise<Holder> {
  for (;;) {
    const holder = await signedInHolder();
    if (canaryBucket(holder.sub, remote) > 0) return holder;
  }
}
