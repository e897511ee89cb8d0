import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHELL_NOT_BUILT } from '../src/routes/web.js';
import { startApp, tempDir, type TestApp, appForBlock } from './helpers.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
/** What /remotes.json answers once the remotes file names the CDN's 1.4.0 and no release exists (bootstrap). */
const EDITED_FILE_SERVED = {
  remotes: {
    remote_profile: {
      entry: 'https://cdn.example.com/remote-profile/1.4.0/remoteEntry.js',
      integrity: null,
      version: null,
      buildId: null,
      channel: 'bootstrap',
      fallback: null,
    },
  },
};

describe('without a shell build', () => {
  const t = appForBlock(() => startApp());

  it('still serves the API, and answers shell pages with a clear 503', async () => {
    for (const url of ['/', '/profile', '/login/callback?code=x']) {
      const response = await t.app.inject(url);
      expect(response.statusCode, url).toBe(503);
      expect(response.body).toBe(SHELL_NOT_BUILT);
    }
    expect((await t.app.inject('/api/clientConfiguration/getSettings')).statusCode).toBe(200);
  });

  it('serves the runtime remotes file (resolved, issue 23: the file itself while no remote has a release), no-store', async () => {
    const response = await t.app.inject('/remotes.json');
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    // A superset of the file: an old shell reads `entry` as before.
    expect(response.json()).toMatchObject(t.config.remotes);
    expect(response.json()).toMatchObject({
      remotes: { remote_profile: { entry: expect.stringMatching(/remoteEntry\.js$/) } },
    });
  });

  it('serves flag images from flag-icons with an immutable cache', async () => {
    const response = await t.app.inject('/flags/4x3/gb.svg');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(response.headers['cache-control']).toBe(IMMUTABLE);
    expect(response.body).toContain('<svg');
    const missing = await t.app.inject('/flags/4x3/zz.svg');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toHaveProperty('error');
  });

  it('answers the health check', async () => {
    const response = await t.app.inject('/healthz');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', mode: 'embedded' });
  });

  it('sends security headers whose CSP lets the shell load the remotes', async () => {
    const response = await t.app.inject('/healthz');
    const csp = String(response.headers['content-security-policy']);
    const directive = (name: string) => csp.split(';').find((d) => d.startsWith(`${name} `)) ?? '';
    // The remotes' origins, and the portal's other trusted origins (remote dev harnesses, embedding pages).
    expect(directive('script-src')).toBe(
      `script-src 'self' ${[...new Set(['http://localhost:3001', ...t.config.TRUSTED_ORIGINS])].join(' ')}`,
    );
    expect(directive('style-src')).toMatch(/^style-src 'self' 'unsafe-inline' http:\/\/localhost:3001/);
    expect(directive('connect-src')).toContain('http://localhost:3001');
    // The remotes' dev servers reload the page through a websocket on their origin (http:// does not cover ws://).
    for (const origin of t.config.TRUSTED_ORIGINS) {
      expect(directive('connect-src')).toContain(origin.replace(/^http/, 'ws'));
    }
    expect(directive('connect-src')).toContain('ws://localhost:3001');
    expect(directive('img-src')).toContain('http://localhost:3001');
    expect(directive('frame-ancestors')).toBe("frame-ancestors 'self'");
    expect(directive('object-src')).toBe("object-src 'none'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(response.headers['strict-transport-security']).toBeUndefined();
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
  });
});

describe('with a shell build', () => {
  let t: TestApp;
  beforeAll(async () => {
    const dataDir = tempDir();
    const shell = path.join(dataDir, 'shell-dist');
    mkdirSync(path.join(shell, 'static'), { recursive: true });
    writeFileSync(
      path.join(shell, 'index.html'),
      '<!doctype html><html lang="en"><title>My Profile</title></html>',
    );
    writeFileSync(path.join(shell, 'main.js'), 'console.log("entry")');
    writeFileSync(path.join(shell, '512.3f9a2c1be07d4e55.js'), 'console.log("chunk")');
    writeFileSync(path.join(shell, 'static', 'main.a1b2c3d4.css'), 'body{}');
    writeFileSync(path.join(shell, 'remoteEntry.js'), '//');
    t = await startApp({ SHELL_DIST: shell }, dataDir);
  });
  afterAll(async () => t.close());

  it('serves index.html and unhashed files no-cache, hashed assets immutable', async () => {
    const index = await t.app.inject('/');
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toMatch(/^text\/html/);
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.body).toContain('My Profile');
    expect((await t.app.inject('/main.js')).headers['cache-control']).toBe('no-cache');
    expect((await t.app.inject('/remoteEntry.js')).headers['cache-control']).toBe('no-cache');
    const chunk = await t.app.inject('/512.3f9a2c1be07d4e55.js');
    expect(chunk.headers['cache-control']).toBe(IMMUTABLE);
    expect(chunk.headers['content-type']).toMatch(/javascript/);
    expect((await t.app.inject('/static/main.a1b2c3d4.css')).headers['cache-control']).toBe(IMMUTABLE);
  });

  it.each(['/profile', '/password', '/security', '/login/callback?code=abc&state=xyz', '/some/deep/link'])(
    'falls back to index.html for %s',
    async (url) => {
      const response = await t.app.inject(url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toContain('<title>My Profile</title>');
    },
  );

  it.each(['/api/unknown', '/oauth2/default/nothing', '/flags/none', '/dev/tools', '/missing.js'])(
    'never falls back for %s',
    async (url) => {
      const response = await t.app.inject(url);
      expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain('<title>My Profile</title>');
    },
  );

  it('does not fall back for POST', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/profile' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'Not found: POST /profile', code: 'not_found' });
  });
});

describe('behind https', () => {
  it('sends HSTS and upgrade-insecure-requests only when PUBLIC_URL is https', async () => {
    const dataDir = tempDir();
    const settings = path.join(dataDir, 'settings.json');
    writeFileSync(settings, JSON.stringify({ Domain: 'https://portal.example', ClientId: 'account-portal' }));
    // An https PUBLIC_URL refuses the development remotes file (http://localhost entries).
    const remotes = path.join(dataDir, 'remotes.json');
    writeFileSync(
      remotes,
      JSON.stringify({ remotes: { remote_profile: { entry: 'https://cdn.example/remoteEntry.js' } } }),
    );
    const t = await startApp(
      { PUBLIC_URL: 'https://portal.example', SETTINGS_FILE: settings, REMOTES_FILE: remotes },
      dataDir,
    );
    try {
      const response = await t.app.inject({ url: '/healthz', headers: { 'x-forwarded-proto': 'https' } });
      expect(response.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(String(response.headers['content-security-policy'])).toContain('upgrade-insecure-requests');
    } finally {
      await t.close();
    }
  });
});

describe('the remotes file is runtime configuration', () => {
  let t: TestApp;
  let remotesFile: string;
  const write = (entry: string) =>
    writeFileSync(remotesFile, JSON.stringify({ remotes: { remote_profile: { entry } } }));

  beforeAll(async () => {
    const dir = tempDir();
    remotesFile = path.join(dir, 'remotes.json');
    write('http://localhost:3001/remoteEntry.js');
    t = await startApp({ REMOTES_FILE: remotesFile, TRUSTED_ORIGINS: 'http://localhost:3100' });
  });
  afterAll(async () => t.close());

  it('serves a switched version on the next request, and lets the CSP load it, with no restart', async () => {
    write('https://cdn.example.com/remote-profile/1.4.0/remoteEntry.js');
    // mtime granularity: make sure the edit is seen as a change.
    const later = new Date(Date.now() + 2000);
    utimesSync(remotesFile, later, later);

    const response = await t.app.inject('/remotes.json');
    expect(response.json()).toEqual(EDITED_FILE_SERVED);
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self' https://cdn.example.com http://localhost:3100");
    expect(csp).not.toContain('http://localhost:3001');
  });

  it('keeps the last good configuration when an edit breaks the file', async () => {
    writeFileSync(remotesFile, '{ "remotes": { "remote-profile": ');
    const later = new Date(Date.now() + 4000);
    utimesSync(remotesFile, later, later);

    const response = await t.app.inject('/remotes.json');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(EDITED_FILE_SERVED);
  });
});
