/**
 * The release CLI (src/release-cli.ts) against a small fake portal and CDN on port 0 that records what it receives:
 * the command line and environment checks, the hashing of a build folder and of a URL, the size cap and timeout,
 * refusals and answers that break the contract. release-cli-app.test.ts runs it against the real app.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ReleaseStatus } from 'shared-auth/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ARTIFACT_BYTES } from '../src/release-artifact.js';
import { runReleaseCli, type ReleaseCliIo } from '../src/release-cli.js';

const KEY = `pdk_${'k'.repeat(43)}`;
const ENTRY_JS = 'var remote_profile; /* version 1.1.0 */';

interface Received {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

type Handler = (request: Received, response: ServerResponse) => void;

/** A fake portal and CDN on one port: `routes['POST /path']` answers, everything it receives is kept. */
class FakeHost {
  readonly received: Received[] = [];
  readonly routes = new Map<string, Handler>();
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received: Received = {
          method: request.method ?? '',
          path: request.url ?? '',
          authorization: request.headers.authorization,
          contentType: request.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.received.push(received);
        const handler = this.routes.get(`${received.method} ${received.path}`);
        if (handler) handler(received, response);
        else json(response, 404, { error: 'Not found', code: 'not_found' });
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** What reached the release API (not the CDN paths). */
  apiCalls(): Received[] {
    return this.received.filter((request) => request.path.startsWith('/api/'));
  }
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

const STATUS: ReleaseStatus = {
  stable: '1.0.0',
  canary: { version: '1.1.0', percent: 10 },
  versions: [
    {
      version: '1.1.0',
      entry: 'https://cdn.example/remote-profile/1.1.0/remoteEntry.js',
      integrity: `sha384-${'a'.repeat(64)}`,
      buildId: 'b-1.1.0',
      publishedBy: 'Profile team',
      publishedAt: '2026-11-28T13:02:09.000Z',
      loads: 40,
      failures: 1,
    },
    {
      version: '1.0.0',
      entry: 'https://cdn.example/remote-profile/1.0.0/remoteEntry.js',
      integrity: `sha384-${'b'.repeat(64)}`,
      buildId: 'b-1.0.0',
      publishedBy: 'Profile team',
      publishedAt: '2026-11-27T09:00:00.000Z',
      loads: 0,
      failures: 0,
    },
  ],
  events: [
    { at: '2026-11-28T13:05:00.000Z', action: 'canary', version: '1.1.0', by: 'Profile team' },
    { at: '2026-11-28T13:02:09.000Z', action: 'publish', version: '1.1.0', by: 'Profile team' },
  ],
};

let host: FakeHost;
let dir: string;
let out = '';
let err = '';

function io(env: Record<string, string | undefined> = {}, timeoutMs = 5_000): ReleaseCliIo {
  return {
    env: { PORTAL_URL: host.url, PORTAL_DEPLOY_KEY: KEY, ...env },
    out: (text) => (out += text),
    err: (text) => (err += text),
    fetch: globalThis.fetch,
    timeoutMs,
  };
}

const sha384 = (text: string | Buffer) => `sha384-${createHash('sha384').update(text).digest('base64')}`;

/** A build folder as webpack.base.js writes it: remoteEntry.js and the federation manifest. */
function writeBuild(name = 'remote_profile', buildVersion = '1.1.0+build.7'): string {
  const build = path.join(dir, 'dist');
  mkdirSync(build, { recursive: true });
  writeFileSync(path.join(build, 'remoteEntry.js'), ENTRY_JS);
  writeFileSync(
    path.join(build, 'mf-manifest.json'),
    JSON.stringify({
      id: name,
      name,
      metaData: { name, buildInfo: { buildVersion, buildName: 'remote-profile' } },
    }),
  );
  return build;
}

/** The CDN serves `text` at `cdnPath`. */
function serve(cdnPath: string, text: string | Buffer): void {
  host.routes.set(`GET ${cdnPath}`, (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/javascript' });
    response.end(text);
  });
}

beforeEach(async () => {
  host = new FakeHost();
  await host.start();
  dir = mkdtempSync(path.join(tmpdir(), 'release-cli-test-'));
  out = '';
  err = '';
});

afterEach(async () => {
  await host.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('release CLI: the command line', () => {
  it('prints its usage with --help (exit 0) and without a command (exit 2)', async () => {
    expect(await runReleaseCli(['--help'], io())).toBe(0);
    expect(out).toContain('publish <remote> <dir|url> --version X');
    expect(await runReleaseCli([], io())).toBe(2);
    expect(err).toContain('Usage: pnpm release');
  });

  it.each([
    ['an unknown command', ['deploy', 'remote_profile']],
    ['publish without --version', ['publish', 'remote_profile', 'dist']],
    [
      'publish with a version that is no label',
      ['publish', 'remote_profile', 'dist', '--version', '1.0 beta'],
    ],
    ['an unknown option', ['promote', 'remote_profile', '1.1.0', '--force']],
    ['a missing version', ['promote', 'remote_profile']],
    ['one argument too many', ['rollback', 'remote_profile', '1.1.0']],
    ['a remote name that is no identifier', ['rollback', 'remote profile']],
    ['a percent of 0', ['canary', 'remote_profile', '1.1.0', '--percent', '0']],
    ['a percent of 100', ['canary', 'remote_profile', '1.1.0', '--percent', '100']],
    ['a percent that is no whole number', ['canary', 'remote_profile', '1.1.0', '--percent', '12.5']],
    ['no percent', ['canary', 'remote_profile', '1.1.0']],
  ])('refuses %s with exit 2, sending nothing', async (_case, argv) => {
    expect(await runReleaseCli(argv, io())).toBe(2);
    expect(err).toContain('pnpm release --help');
    expect(host.received).toEqual([]);
  });

  it('names PORTAL_DEPLOY_KEY when it is not set, and sends nothing', async () => {
    expect(await runReleaseCli(['rollback', 'remote_profile'], io({ PORTAL_DEPLOY_KEY: undefined }))).toBe(2);
    expect(err).toContain('PORTAL_DEPLOY_KEY is not set');
    expect(await runReleaseCli(['status', 'remote_profile'], io({ PORTAL_DEPLOY_KEY: 'hunter2' }))).toBe(2);
    expect(err).toContain('PORTAL_DEPLOY_KEY is not a deploy key');
    expect(host.received).toEqual([]);
  });

  it('will not send the key in clear text to another machine', async () => {
    const code = await runReleaseCli(
      ['rollback', 'remote_profile'],
      io({ PORTAL_URL: 'http://portal.example' }),
    );
    expect(code).toBe(2);
    expect(err).toContain('PORTAL_URL must be https://');
  });

  it('sends the key as `Deploy <key>`, takes the package name for the remote, and prints the status', async () => {
    host.routes.set('POST /api/v1/releases/remote_profile/canary', (_request, response) =>
      json(response, 200, STATUS),
    );
    const code = await runReleaseCli(['canary', 'remote-profile', '1.1.0', '--percent', '10%'], io());
    expect(err).toBe('');
    expect(code).toBe(0);
    const [call] = host.apiCalls();
    expect(call).toMatchObject({ authorization: `Deploy ${KEY}`, contentType: 'application/json' });
    expect(JSON.parse(call?.body ?? '')).toEqual({ version: '1.1.0', percent: 10 });
    expect(out).toContain('remote_profile 1.1.0 is the canary for 10 % of signed-in users');
  });

  it('rolls back with a POST and no body', async () => {
    host.routes.set('POST /api/v1/releases/remote_profile/rollback', (_request, response) =>
      json(response, 200, { ...STATUS, canary: null }),
    );
    expect(await runReleaseCli(['rollback', 'remote_profile'], io())).toBe(0);
    expect(host.apiCalls()).toEqual([
      expect.objectContaining({ method: 'POST', body: '', contentType: undefined }),
    ]);
    expect(out).toContain('Rolled back remote_profile: stable 1.0.0, no canary.');
  });
});

describe('release CLI: status', () => {
  it('shows stable, canary and percent, each version with its loads and failures, and the last events', async () => {
    // As the spec's API answers: JSON text that holds the JSON.
    host.routes.set('GET /api/v1/releases/remote_profile', (_request, response) =>
      json(response, 200, JSON.stringify(STATUS)),
    );
    expect(await runReleaseCli(['status', 'remote_profile'], io())).toBe(0);
    const lines = out.split('\n');
    expect(lines).toContain('  stable  1.0.0');
    expect(lines).toContain('  canary  1.1.0 for 10 %');
    expect(lines.find((line) => line.startsWith('  1.1.0'))).toMatch(
      /^ {2}1\.1\.0 +b-1\.1\.0 +40 +1 \(2\.5 %\) +2026-11-28 13:02 UTC by Profile team$/,
    );
    expect(lines.find((line) => line.startsWith('  1.0.0'))).toMatch(
      /^ {2}1\.0\.0 +b-1\.0\.0 +0 +0 +2026-11-27/,
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}2026-11-28 13:05 UTC +canary +1\.1\.0 +by Profile team$/),
    );
  });

  it('without a remote, shows what the portal serves each remote, with no key needed', async () => {
    host.routes.set('GET /remotes.json', (_request, response) =>
      json(response, 200, {
        remotes: {
          remote_profile: {
            entry: 'https://cdn.example/remote-profile/1.0.0/remoteEntry.js',
            integrity: `sha384-${'b'.repeat(64)}`,
            version: '1.0.0',
            buildId: 'b-1.0.0',
            channel: 'stable',
            fallback: null,
          },
          remote_password: {
            entry: 'http://localhost:3002/remoteEntry.js',
            integrity: null,
            version: null,
            buildId: null,
            channel: 'bootstrap',
            fallback: null,
          },
        },
      }),
    );
    expect(await runReleaseCli(['status'], io({ PORTAL_DEPLOY_KEY: undefined }))).toBe(0);
    expect(out).toMatch(
      /remote_profile +stable +1\.0\.0 +https:\/\/cdn\.example\/remote-profile\/1\.0\.0\/remoteEntry\.js/,
    );
    expect(out).toMatch(/remote_password +bootstrap +- +http:\/\/localhost:3002\/remoteEntry\.js/);
    expect(host.received[0]?.authorization).toBeUndefined();
  });
});

describe('release CLI: refusals and answers', () => {
  it("prints the server's error and exits 1 on a refusal", async () => {
    host.routes.set('POST /api/v1/releases/remote_password/promote', (_request, response) =>
      json(response, 403, { error: 'This deploy key belongs to another remote.', code: 'forbidden_remote' }),
    );
    expect(await runReleaseCli(['promote', 'remote_password', '1.1.0'], io())).toBe(1);
    expect(err).toBe('Refused (403 forbidden_remote): This deploy key belongs to another remote.\n');
  });

  it("does not pass the server's control characters to the terminal", async () => {
    host.routes.set('POST /api/v1/releases/remote_profile/rollback', (_request, response) =>
      json(response, 409, {
        error: 'Nothing to roll back.\u001b[2J\u001b]0;owned\u0007',
        code: 'nothing_to_roll_back',
      }),
    );
    expect(await runReleaseCli(['rollback', 'remote_profile'], io())).toBe(1);
    expect(err).toBe(
      'Refused (409 nothing_to_roll_back): Nothing to roll back.\ufffd[2J\ufffd]0;owned\ufffd\n',
    );
  });

  it('refuses an answer that is not a release status, exit 1', async () => {
    host.routes.set('POST /api/v1/releases/remote_profile/promote', (_request, response) =>
      json(response, 200, { stable: 5, canary: null }),
    );
    expect(await runReleaseCli(['promote', 'remote_profile', '1.1.0'], io())).toBe(1);
    expect(err).toContain("The portal's answer is not what this CLI expects");
    expect(out).toBe('');
  });

  it('does not follow a redirect with the key', async () => {
    host.routes.set('GET /api/v1/releases/remote_profile', (_request, response) => {
      response.writeHead(302, { location: '/elsewhere' });
      response.end();
    });
    expect(await runReleaseCli(['status', 'remote_profile'], io())).toBe(1);
    expect(err).toBe(`Could not reach the portal at ${host.url}: unexpected redirect\n`);
    expect(host.received.map((request) => request.path)).toEqual(['/api/v1/releases/remote_profile']);
  });

  it('says so when the portal does not answer', async () => {
    await host.stop();
    expect(await runReleaseCli(['rollback', 'remote_profile'], io())).toBe(1);
    expect(err).toBe(`Could not reach the portal at ${host.url}: ECONNREFUSED\n`);
  });
});

describe('release CLI: publish', () => {
  const ENTRY_PATH = '/cdn/remote-profile/1.1.0/remoteEntry.js';
  const entryUrl = () => `${host.url}${ENTRY_PATH}`;

  beforeEach(() => {
    host.routes.set('POST /api/v1/releases/remote_profile/versions', (_request, response) =>
      json(response, 201, STATUS),
    );
  });

  it("from a build folder: the SHA-384 of its remoteEntry.js and its manifest's build id", async () => {
    const build = writeBuild();
    serve(ENTRY_PATH, ENTRY_JS);
    const code = await runReleaseCli(
      ['publish', 'remote_profile', build, '--version', '1.1.0', '--entry-url', entryUrl()],
      io(),
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    const [call] = host.apiCalls();
    expect(call?.authorization).toBe(`Deploy ${KEY}`);
    expect(JSON.parse(call?.body ?? '')).toEqual({
      version: '1.1.0',
      entry: entryUrl(),
      integrity: sha384(ENTRY_JS),
      buildId: '1.1.0+build.7',
    });
    expect(out).toContain(`integrity  ${sha384(ENTRY_JS)}`);
    expect(out).toContain('build      1.1.0+build.7 (from mf-manifest.json)');
  });

  it.each([
    ['a folder without remoteEntry.js', 'empty', [], 'has no remoteEntry.js'],
    ['a folder without --entry-url', 'build', [], '--entry-url is required with a folder'],
    [
      'an entry URL not ending in remoteEntry.js',
      'build',
      ['--entry-url', 'https://cdn.example/1.1.0/'],
      'must end in /remoteEntry.js',
    ],
    [
      'an entry URL with credentials',
      'build',
      ['--entry-url', 'https://u:p@cdn.example/remoteEntry.js'],
      'must not hold credentials',
    ],
  ])('refuses %s, exit 1, sending nothing to the API', async (_case, folder, extra, message) => {
    const source = folder === 'build' ? writeBuild() : path.join(dir, 'empty');
    mkdirSync(source, { recursive: true });
    const argv = ['publish', 'remote_profile', source, '--version', '1.1.0', ...extra];
    if (folder === 'empty') argv.push('--entry-url', entryUrl());
    expect(await runReleaseCli(argv, io())).toBe(1);
    expect(err).toContain(message);
    expect(host.apiCalls()).toEqual([]);
  });

  it("refuses another remote's build", async () => {
    const build = writeBuild('remote_password');
    serve(ENTRY_PATH, ENTRY_JS);
    const argv = ['publish', 'remote_profile', build, '--version', '1.1.0', '--entry-url', entryUrl()];
    expect(await runReleaseCli(argv, io())).toBe(1);
    expect(err).toContain('is a build of remote_password, not of remote_profile');
    expect(host.apiCalls()).toEqual([]);
  });

  it('refuses a folder whose upload differs, or is not there yet', async () => {
    const build = writeBuild();
    const argv = ['publish', 'remote_profile', build, '--version', '1.1.0', '--entry-url', entryUrl()];
    expect(await runReleaseCli(argv, io())).toBe(1);
    expect(err).toContain('answered 404: upload');
    serve(ENTRY_PATH, `${ENTRY_JS} // changed`);
    expect(await runReleaseCli(argv, io())).toBe(1);
    expect(err).toContain(`${entryUrl()} differs from`);
    expect(host.apiCalls()).toEqual([]);
  });

  it('from a URL: fetched and hashed, the build id from the manifest beside it, or the version without one', async () => {
    serve(ENTRY_PATH, ENTRY_JS);
    expect(await runReleaseCli(['publish', 'remote_profile', entryUrl(), '--version', '1.1.0'], io())).toBe(
      0,
    );
    host.routes.set('GET /cdn/remote-profile/1.1.0/mf-manifest.json', (_request, response) =>
      json(response, 200, { metaData: { name: 'remote_profile', buildInfo: { buildVersion: 'ci-812' } } }),
    );
    expect(await runReleaseCli(['publish', 'remote_profile', entryUrl(), '--version', '1.1.0'], io())).toBe(
      0,
    );
    const bodies = host.apiCalls().map((call) => JSON.parse(call.body) as Record<string, unknown>);
    expect(bodies).toEqual([
      { version: '1.1.0', entry: entryUrl(), integrity: sha384(ENTRY_JS), buildId: '1.1.0' },
      { version: '1.1.0', entry: entryUrl(), integrity: sha384(ENTRY_JS), buildId: 'ci-812' },
    ]);
  });

  it('refuses a file over 5 MB, with or without a Content-Length', async () => {
    const big = Buffer.alloc(MAX_ARTIFACT_BYTES + 1, 0x20);
    serve(ENTRY_PATH, big);
    const argv = ['publish', 'remote_profile', entryUrl(), '--version', '1.1.0'];
    expect(await runReleaseCli(argv, io())).toBe(1);
    expect(err).toContain('is larger than 5 MB');
    // Chunked, no length: cut off while reading.
    host.routes.set(`GET ${ENTRY_PATH}`, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      for (let sent = 0; sent <= MAX_ARTIFACT_BYTES; sent += 1024 * 1024)
        response.write(Buffer.alloc(1024 * 1024));
      response.end();
    });
    err = '';
    expect(await runReleaseCli(argv, io())).toBe(1);
    expect(err).toContain('is larger than 5 MB');
    expect(host.apiCalls()).toEqual([]);
  });

  it('gives up on a host that does not answer in time', async () => {
    host.routes.set(`GET ${ENTRY_PATH}`, () => {
      // never answers
    });
    expect(
      await runReleaseCli(['publish', 'remote_profile', entryUrl(), '--version', '1.1.0'], io({}, 200)),
    ).toBe(1);
    expect(err).toBe(`Could not fetch ${entryUrl()}: no answer in time\n`);
  });

  it("prints the server's refusal of a version published with other data", async () => {
    serve(ENTRY_PATH, ENTRY_JS);
    host.routes.set('POST /api/v1/releases/remote_profile/versions', (_request, response) =>
      json(response, 409, {
        error: 'Version 1.1.0 is published already, with other data.',
        code: 'version_exists',
      }),
    );
    expect(await runReleaseCli(['publish', 'remote_profile', entryUrl(), '--version', '1.1.0'], io())).toBe(
      1,
    );
    expect(err).toBe('Refused (409 version_exists): Version 1.1.0 is published already, with other data.\n');
  });
});
