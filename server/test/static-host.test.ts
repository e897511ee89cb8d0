import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildStaticHost, remoteEntriesIn } from '../src/static-host/app.js';
import { appForBlock, tempDir } from './helpers.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const PORTAL = 'http://localhost:3000';

/** A remote's build output as webpack writes it: unhashed entry files, hashed chunks. */
function writeBuild(folder: string, buildId: string): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'remoteEntry.js'), `/* ${buildId} */`);
  writeFileSync(path.join(folder, 'mf-manifest.json'), JSON.stringify({ id: buildId }));
  writeFileSync(path.join(folder, '__federation_expose_ProfilePage.f66b2dd5fc.js'), `/* page ${buildId} */`);
  writeFileSync(path.join(folder, '242.ef4cfcd5e0.js'), '/* chunk */');
  writeFileSync(path.join(folder, '242.ef4cfcd5e0.js.map'), '{}');
}

/**
 * Call in a describe: a static host for the block, serving the root that `write` fills in a temp folder and
 * returns; the folder goes with the host.
 */
function hostForBlock(write: (dir: string) => string) {
  return appForBlock(async () => {
    const dir = tempDir();
    const app = await buildStaticHost({ root: write(dir), allowedOrigins: [PORTAL] });
    return {
      app,
      dir,
      async close() {
        await app.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}

describe("a remote's build, served as a CDN would", () => {
  const host = hostForBlock((dir) => {
    writeBuild(path.join(dir, 'dist'), '1.0.0');
    return path.join(dir, 'dist');
  });

  it.each(['/remoteEntry.js', '/mf-manifest.json'])('serves the unhashed %s no-cache', async (url) => {
    const response = await host.app.inject(url);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-cache');
  });

  it.each(['/__federation_expose_ProfilePage.f66b2dd5fc.js', '/242.ef4cfcd5e0.js'])(
    'serves the hashed chunk %s immutable',
    async (url) => {
      const response = await host.app.inject(url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe(IMMUTABLE);
      expect(response.headers['content-type']).toMatch(/javascript/);
    },
  );

  it('lets the allowed pages load it cross-origin, and no others', async () => {
    const allowed = await host.app.inject({ url: '/remoteEntry.js', headers: { origin: PORTAL } });
    expect(allowed.headers['access-control-allow-origin']).toBe(PORTAL);
    expect(allowed.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(allowed.headers['x-content-type-options']).toBe('nosniff');
    const other = await host.app.inject({
      url: '/remoteEntry.js',
      headers: { origin: 'https://elsewhere.example' },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a missing file with 404, and lists no folder', async () => {
    const response = await host.app.inject('/missing.js');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'Not found: GET /missing.js' });
    expect((await host.app.inject('/')).statusCode).toBeGreaterThanOrEqual(400);
  });
});

describe("a remote's build with its standalone page (index.html)", () => {
  const host = hostForBlock((dir) => {
    writeBuild(path.join(dir, 'dist'), '1.0.0');
    writeFileSync(path.join(dir, 'dist', 'index.html'), '<!doctype html><title>remote alone</title>');
    return path.join(dir, 'dist');
  });

  it.each(['/', '/login/callback', '/login/callback?code=c&state=s'])(
    'answers %s with the page, no-cache',
    async (url) => {
      const response = await host.app.inject(url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/text\/html/);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toContain('remote alone');
    },
  );

  it('still answers a missing file with 404', async () => {
    const response = await host.app.inject('/missing.js');
    expect(response.statusCode).toBe(404);
    expect((await host.app.inject({ method: 'POST', url: '/login/callback' })).statusCode).toBe(404);
  });
});

describe('a folder of versioned builds (remote-profile/<version>/)', () => {
  const host = hostForBlock((dir) => {
    writeBuild(path.join(dir, 'cdn', 'remote-profile', '1.0.0'), '1.0.0');
    writeBuild(path.join(dir, 'cdn', 'remote-profile', '1.1.0'), '1.1.0');
    return path.join(dir, 'cdn');
  });

  it('finds every build in it', () => {
    expect(remoteEntriesIn(path.join(host.dir, 'cdn')).sort()).toEqual([
      'remote-profile/1.0.0/remoteEntry.js',
      'remote-profile/1.1.0/remoteEntry.js',
    ]);
  });

  it('serves each version from its own path, with the same cache rules', async () => {
    for (const version of ['1.0.0', '1.1.0']) {
      const entry = await host.app.inject(`/remote-profile/${version}/remoteEntry.js`);
      expect(entry.statusCode).toBe(200);
      expect(entry.body).toBe(`/* ${version} */`);
      expect(entry.headers['cache-control']).toBe('no-cache');
      const chunk = await host.app.inject(
        `/remote-profile/${version}/__federation_expose_ProfilePage.f66b2dd5fc.js`,
      );
      expect(chunk.body).toBe(`/* page ${version} */`);
      expect(chunk.headers['cache-control']).toBe(IMMUTABLE);
    }
  });
});

it('refuses a folder that holds no build', async () => {
  const dir = tempDir();
  try {
    await expect(buildStaticHost({ root: dir, allowedOrigins: [PORTAL] })).rejects.toThrow(
      /holds no remoteEntry\.js: build the remote first/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('the static host process', () => {
  it('stops within its 2 s deadline on SIGTERM, even with a browser connection that never finishes a request', async () => {
    const dir = tempDir();
    writeBuild(dir, '1.0.0');
    const probe = createServer().listen(0, 'localhost');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    probe.close();
    await once(probe, 'close');
    const child = spawn(
      process.execPath,
      [
        '--conditions=portal-source',
        '--import',
        'tsx',
        'src/static-host/cli.ts',
        '--root',
        dir,
        '--port',
        String(port),
      ],
      { cwd: path.resolve(import.meta.dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = once(child, 'exit');
    try {
      await new Promise<void>((resolve) =>
        child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('remoteEntry.js') && resolve()),
      );
      // Half a request: not idle, so a plain close would wait for it (Node's headers timeout, a minute).
      const socket = connect(port, 'localhost');
      await once(socket, 'connect');
      socket.write('GET /remoteEntry.js HTTP/1.1\r\nHost: localhost\r\n');
      socket.on('error', () => undefined);
      const started = performance.now();
      child.kill('SIGTERM');
      await exited;
      expect(performance.now() - started).toBeLessThan(5000);
      socket.destroy();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});
