/**
 * The release CLI end to end: `runReleaseCli` against the real app listening on port 0, with a build folder served
 * by a small CDN on port 0. A team's whole cycle (publish, canary, status, promote, roll back), what the operators'
 * deploy keys allow, and the automatic rollback as `status` shows it. The CLI's own checks: release-cli.test.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryBucket } from '../src/releases/canary-bucket.js';
import { runReleaseCli, type ReleaseCliIo } from '../src/release-cli.js';
import { startApp, tempDir, type TestApp } from './helpers.js';
import { newUser, signInSession } from './security-helpers.js';

/** A run that did what it was asked: exit 0, nothing on stderr. */
const DONE = { code: 0, err: '' };

let running: TestApp;
let cdn: Server;
let portalUrl = '';
let cdnUrl = '';
let buildsDir = '';
let profileKey = '';
let passwordKey = '';

/** The entry file of each version the CDN serves, by path. */
const cdnFiles = new Map<string, string>();

/** A build of remote_profile as webpack.base.js writes it, uploaded to the CDN under its version. */
function buildAndUpload(version: string): { dir: string; entryUrl: string } {
  const dir = path.join(buildsDir, version);
  mkdirSync(dir, { recursive: true });
  const entry = `var remote_profile; /* ${version} */`;
  writeFileSync(path.join(dir, 'remoteEntry.js'), entry);
  const metaData = { name: 'remote_profile', buildInfo: { buildVersion: `build-${version}` } };
  writeFileSync(path.join(dir, 'mf-manifest.json'), JSON.stringify({ name: 'remote_profile', metaData }));
  cdnFiles.set(`/remote-profile/${version}/remoteEntry.js`, entry);
  return { dir, entryUrl: `${cdnUrl}/remote-profile/${version}/remoteEntry.js` };
}

/** One CLI run: its exit status and what it printed. */
async function release(argv: string[], key = profileKey) {
  let out = '';
  let err = '';
  const io: ReleaseCliIo = {
    env: { PORTAL_URL: portalUrl, PORTAL_DEPLOY_KEY: key },
    out: (text) => (out += text),
    err: (text) => (err += text),
    fetch: globalThis.fetch,
    timeoutMs: 10_000,
  };
  const code = await runReleaseCli(argv, io);
  return { code, out, err };
}

beforeAll(async () => {
  // The automatic rollback's holders (twenty) sign in from the one test address.
  running = await startApp({
    AUTHORIZE_RATE_LIMIT: '10000',
    TOKEN_RATE_LIMIT: '10000',
    SIGN_IN_POSTS_PER_MINUTE: '10000',
  });
  await running.app.listen({ port: 0, host: 'localhost' });
  portalUrl = `http://localhost:${(running.app.server.address() as AddressInfo).port}`;
  cdn = createServer((request, response) => {
    const file = cdnFiles.get(request.url ?? '');
    response.writeHead(file === undefined ? 404 : 200, { 'content-type': 'text/javascript' });
    response.end(file ?? '');
  });
  await new Promise<void>((resolve) => cdn.listen(0, 'localhost', resolve));
  cdnUrl = `http://localhost:${(cdn.address() as AddressInfo).port}`;
  buildsDir = tempDir();
  profileKey = await running.app.deployKeys.create('remote_profile', 'Profile team');
  passwordKey = await running.app.deployKeys.create('remote_password', 'Password team');
});

afterAll(async () => {
  cdn.closeAllConnections();
  await new Promise<void>((resolve) => cdn.close(() => resolve()));
  await running.close();
});

describe('pnpm release against the app', () => {
  it('publishes from a build folder, canaries, shows the status, promotes and rolls back', async () => {
    const first = buildAndUpload('1.0.0');
    const published = await release([
      'publish',
      'remote_profile',
      first.dir,
      '--version',
      '1.0.0',
      '--entry-url',
      first.entryUrl,
    ]);
    expect(published.err).toBe('');
    expect(published).toMatchObject({ code: 0 });
    expect(published.out).toContain('build      build-1.0.0 (from mf-manifest.json)');
    expect(await release(['promote', 'remote-profile', '1.0.0'])).toMatchObject(DONE);

    const second = buildAndUpload('1.1.0');
    expect(
      await release([
        'publish',
        'remote_profile',
        second.dir,
        '--version',
        '1.1.0',
        '--entry-url',
        second.entryUrl,
      ]),
    ).toMatchObject(DONE);
    const canary = await release(['canary', 'remote_profile', '1.1.0', '--percent', '50']);
    expect(canary.code).toBe(0);

    const status = await release(['status', 'remote_profile']);
    expect(status.code).toBe(0);
    const lines = status.out.split('\n');
    expect(lines).toContain('  stable  1.0.0');
    expect(lines).toContain('  canary  1.1.0 for 50 %');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ {2}1\.1\.0 +build-1\.1\.0 +0 +0 +\d{4}-\d\d-\d\d \d\d:\d\d UTC by Profile team$/,
      ),
    );
    expect(lines).toContainEqual(expect.stringMatching(/ canary +1\.1\.0 +by Profile team$/));
    expect(lines).toContainEqual(expect.stringMatching(/ publish +1\.0\.0 +by Profile team$/));

    // Anyone not in the canary is served the stable version.
    const served = await release(['status'], '');
    expect(served.code).toBe(0);
    expect(served.out).toMatch(new RegExp(`remote_profile +stable +1\\.0\\.0 +${first.entryUrl}`));

    expect((await release(['promote', 'remote_profile', '1.1.0'])).out).toContain(
      'remote_profile 1.1.0 is stable',
    );
    const rolledBack = await release(['rollback', 'remote_profile']);
    expect(rolledBack).toMatchObject({ code: 0, err: '' });
    expect(rolledBack.out).toContain('Rolled back remote_profile: stable 1.0.0, no canary.');
  });

  it("refuses another remote's key, an unknown key and an unknown version with the portal's reason", async () => {
    const build = buildAndUpload('2.0.0');
    const publish = [
      'publish',
      'remote_profile',
      build.dir,
      '--version',
      '2.0.0',
      '--entry-url',
      build.entryUrl,
    ];
    const otherRemote = await release(publish, passwordKey);
    expect(otherRemote.code).toBe(1);
    expect(otherRemote.err).toMatch(/^Refused \(403 forbidden_remote\): /);
    const unknown = await release(['status', 'remote_profile'], `pdk_${'A'.repeat(43)}`);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/^Refused \(401 invalid_deploy_key\): /);
    const missing = await release(['promote', 'remote_profile', '9.9.9']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^Refused \(404 not_found\): /);
    expect((await release(['status', 'remote_profile'])).out).not.toContain('2.0.0');
  });

  it('shows the automatic rollback of a failing canary, by system', async () => {
    const build = buildAndUpload('3.0.0');
    expect(
      await release([
        'publish',
        'remote_profile',
        build.dir,
        '--version',
        '3.0.0',
        '--entry-url',
        build.entryUrl,
      ]),
    ).toMatchObject(DONE);
    expect(await release(['canary', 'remote_profile', '3.0.0', '--percent', '99'])).toMatchObject(DONE);
    // Only signed-in holders of the canary's bucket vote on it: twenty of them meet the failure.
    let holders = 0;
    while (holders < 20) {
      const holder = await signInSession(running.app, await newUser(running.app));
      if (canaryBucket(holder.user.id, 'remote_profile') >= 99) continue;
      holders += 1;
      const response = await running.app.inject({
        method: 'POST',
        url: '/api/v1/remote-loads',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${holder.token}` },
        payload: { remote: 'remote_profile', version: '3.0.0', outcome: 'failed', kind: 'render' },
      });
      expect(response.statusCode).toBe(204);
    }
    const status = await release(['status', 'remote_profile']);
    const lines = status.out.split('\n');
    expect(lines).toContain('  canary  (none)');
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}3\.0\.0 +build-3\.0\.0 +20 +20 \(100\.0 %\) /));
    expect(lines).toContainEqual(expect.stringMatching(/ auto-rollback +3\.0\.0 +by system$/));
  });
});
