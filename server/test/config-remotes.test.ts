/**
 * Issue 18: an https deployment that forgot REMOTES_FILE got the development remotes file, and with it
 * http://localhost:3001–3003 in its CSP's script sources. Start-up now refuses http or localhost remote entries
 * with an https PUBLIC_URL, naming REMOTES_FILE and the entry; a later edit of the file that adds one is ignored.
 */
import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../src/config/index.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(content));
  return file;
}

const settings = write('settings.json', { Domain: 'https://portal.example', ClientId: 'account-portal' });
const https = { PUBLIC_URL: 'https://portal.example', SETTINGS_FILE: settings };
const remotes = (entries: Record<string, string>) => ({
  remotes: Object.fromEntries(Object.entries(entries).map(([name, entry]) => [name, { entry }])),
});

describe('REMOTES_FILE with an https PUBLIC_URL', () => {
  it('refuses the default (development) remotes file, naming REMOTES_FILE and the entry', () => {
    const start = () => loadConfig(https);
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(/^REMOTES_FILE \(.*config\/remotes\.json\) is invalid/);
    expect(start).toThrow(/remotes\.remote_profile\.entry: http:\/\/localhost:3001\/remoteEntry\.js/);
    expect(start).toThrow(/REMOTES_FILE/);
  });

  it.each([
    ['an http entry', 'http://cdn.example/remote-profile/remoteEntry.js'],
    ['an https localhost entry', 'https://localhost:3001/remoteEntry.js'],
    ['a loopback address', 'https://127.0.0.1:3001/remoteEntry.js'],
    ['an IPv6 loopback address', 'https://[::1]:3001/remoteEntry.js'],
    ['a *.localhost host', 'https://remotes.localhost/remoteEntry.js'],
  ])('refuses %s', (_what, entry) => {
    const file = write(
      'one-bad.json',
      remotes({ remote_profile: 'https://cdn.example/p/remoteEntry.js', remote_password: entry }),
    );
    const start = () => loadConfig({ ...https, REMOTES_FILE: file });
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(`remotes.remote_password.entry: ${entry}`);
  });

  it('takes https entries on public hosts', () => {
    const file = write(
      'good.json',
      remotes({ remote_profile: 'https://cdn.example/p/1.4.0/remoteEntry.js' }),
    );
    expect(loadConfig({ ...https, REMOTES_FILE: file }).remotes.remotes.remote_profile?.entry).toBe(
      'https://cdn.example/p/1.4.0/remoteEntry.js',
    );
  });

  it('lets an https portal on localhost itself (a local rig) load https localhost remotes, never http ones', () => {
    const local = write('local-settings.json', {
      Domain: 'https://localhost:8443',
      ClientId: 'account-portal',
    });
    const env = { PUBLIC_URL: 'https://localhost:8443', SETTINGS_FILE: local };
    const good = write('local.json', remotes({ remote_profile: 'https://localhost:3001/remoteEntry.js' }));
    expect(loadConfig({ ...env, REMOTES_FILE: good }).remotes.remotes.remote_profile?.entry).toBe(
      'https://localhost:3001/remoteEntry.js',
    );
    expect(() => loadConfig(env)).toThrow(/remote_profile\.entry: http:\/\/localhost:3001/);
  });

  it('keeps http://localhost remotes for the plain-http development default', () => {
    expect(loadConfig({}).remotes.remotes.remote_profile?.entry).toBe('http://localhost:3001/remoteEntry.js');
  });

  it('ignores a later edit that adds an http entry, keeping the last good file', () => {
    const file = write('live.json', remotes({ remote_profile: 'https://cdn.example/p/1/remoteEntry.js' }));
    const errors: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      errors.push(String(text));
      return true;
    });
    vi.useFakeTimers({ now: Date.now(), toFake: ['Date'] });
    try {
      const config = loadConfig({ ...https, REMOTES_FILE: file });
      writeFileSync(
        file,
        JSON.stringify(remotes({ remote_profile: 'http://cdn.example/p/2/remoteEntry.js' })),
      );
      utimesSync(file, new Date(), new Date(Date.now() + 5_000));
      vi.advanceTimersByTime(2_000);
      expect(config.currentRemotes().remotes.remote_profile?.entry).toBe(
        'https://cdn.example/p/1/remoteEntry.js',
      );
      expect(errors.join('')).toMatch(/REMOTES_FILE .*remote_profile\.entry: http:\/\/cdn\.example/s);
    } finally {
      vi.useRealTimers();
      stderr.mockRestore();
    }
  });
});
