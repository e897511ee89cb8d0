/**
 * When the tests run as root, PostgreSQL runs as the user `postgres`, which must reach the binaries: in a checkout
 * under a folder only root may enter it cannot, and they are run from a copy (test/support/postgres-binaries.ts).
 * These tests check that decision and the copy, without root and without starting PostgreSQL.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  accessOf,
  ancestorsOf,
  describeMode,
  firstUnreachable,
  reachableBinaries,
  whyUnreachable,
  type NeededAccess,
} from './support/postgres-binaries.js';

const POSTGRES = { name: 'postgres', uid: 101, gid: 104 };
const X = 1;
const RX = 5;

/** A folder chain down to `target`, root-owned unless said otherwise, each needing x. */
function chain(modes: Record<string, number>, owners: Record<string, [number, number]> = {}): NeededAccess[] {
  return Object.entries(modes).map(([folder, mode]) => {
    const [uid, gid] = owners[folder] ?? [0, 0];
    return { path: folder, mode, uid, gid, need: X };
  });
}

describe('whether the postgres user can reach a path', () => {
  it('lists the folders above a path, from the root down', () => {
    expect(ancestorsOf('/work/main/node_modules')).toEqual(['/', '/work', '/work/main']);
    expect(ancestorsOf('/tmp')).toEqual(['/']);
  });

  it("uses the owner's bits, else the group's, else the others'", () => {
    const file = { mode: 0o750, uid: 101, gid: 104 };
    expect(accessOf(file, POSTGRES)).toBe(7);
    expect(accessOf({ ...file, uid: 0 }, POSTGRES)).toBe(5);
    expect(accessOf({ ...file, uid: 0, gid: 0 }, POSTGRES)).toBe(0);
    expect(accessOf({ mode: 0o700, uid: 5, gid: 5 }, { uid: 0, gid: 0 })).toBe(7);
  });

  it('is blocked by a folder only root may enter (a mkdtemp checkout), not by 0755 or 0711 ones', () => {
    const inTemp = chain({
      '/': 0o755,
      '/tmp': 0o1777,
      '/tmp/tmp.abc': 0o700,
      '/tmp/tmp.abc/node_modules': 0o755,
    });
    expect(firstUnreachable(inTemp, POSTGRES)?.path).toBe('/tmp/tmp.abc');

    expect(
      firstUnreachable(chain({ '/': 0o755, '/work': 0o755, '/work/main': 0o755 }), POSTGRES),
    ).toBeUndefined();
    expect(
      firstUnreachable(chain({ '/': 0o755, '/home': 0o711, '/home/me': 0o711 }), POSTGRES),
    ).toBeUndefined();
  });

  it("lets the folder's owner or group in", () => {
    const modes = { '/': 0o755, '/srv': 0o750 };
    expect(firstUnreachable(chain(modes, { '/srv': [101, 0] }), POSTGRES)).toBeUndefined();
    expect(firstUnreachable(chain(modes, { '/srv': [0, 104] }), POSTGRES)).toBeUndefined();
    expect(firstUnreachable(chain(modes, { '/srv': [0, 0] }), POSTGRES)?.path).toBe('/srv');
  });

  it('needs read and execute where asked for both (a program in bin)', () => {
    const program: NeededAccess = { path: '/x/bin/postgres', mode: 0o711, uid: 0, gid: 0, need: RX };
    expect(firstUnreachable([program], POSTGRES)).toBe(program);
    expect(firstUnreachable([{ ...program, mode: 0o755 }], POSTGRES)).toBeUndefined();
  });

  it('says the mode in letters and digits', () => {
    expect(describeMode(0o40700, true)).toBe('drwx------ (0700)');
    expect(describeMode(0o100644, false)).toBe('-rw-r--r-- (0644)');
  });
});

describe('the binaries on disk', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'portal-pg-binaries-test-'));
  const version = `test-${path.basename(root)}`;
  const cache = path.join(tmpdir(), `portal-pg-native-${version}`);
  afterAll(() => {
    chmodSync(root, 0o700);
    rmSync(root, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  });

  /** A native folder like the package's: bin/postgres, bin/initdb, lib, share. */
  function nativeFolder(): string {
    const native = path.join(root, 'checkout', 'native');
    mkdirSync(path.join(native, 'bin'), { recursive: true });
    mkdirSync(path.join(native, 'lib'));
    mkdirSync(path.join(native, 'share', 'timezone'), { recursive: true });
    for (const program of ['postgres', 'initdb'])
      writeFileSync(path.join(native, 'bin', program), '#!/bin/sh\n', { mode: 0o755 });
    writeFileSync(path.join(native, 'lib', 'libpq.so.5.18'), 'lib', { mode: 0o644 });
    writeFileSync(path.join(native, 'share', 'timezone', 'UTC'), 'tz', { mode: 0o644 });
    return native;
  }

  it('names the folder in the way and its mode, and copies the binaries where that user can reach them', () => {
    const native = nativeFolder();
    // Another user than this process's (mkdtemp made `root` 0700, this process's own).
    const other = { name: 'postgres', uid: 54_321, gid: 54_321 };
    expect(whyUnreachable(native, other)).toBe(
      `the user postgres (uid 54321, gid 54321) cannot enter ${root}: its mode is drwx------ (0700), ` +
        `owner uid ${process.getuid?.()}, group gid ${process.getgid?.()}`,
    );

    const binaries = {
      nativeDir: native,
      version,
      postgres: path.join(native, 'bin', 'postgres'),
      initdb: path.join(native, 'bin', 'initdb'),
    };
    const copied = reachableBinaries(binaries, other);
    expect(copied).toEqual({
      nativeDir: cache,
      version,
      postgres: path.join(cache, 'bin', 'postgres'),
      initdb: path.join(cache, 'bin', 'initdb'),
    });
    expect(whyUnreachable(cache, other)).toBeUndefined();
    // Made once: a later run reuses it.
    expect(reachableBinaries(binaries, other)).toEqual(copied);

    // A copy that lost a file (a temp cleaner) is made again.
    rmSync(path.join(cache, 'share', 'timezone', 'UTC'));
    expect(reachableBinaries(binaries, other)).toEqual(copied);
    expect(existsSync(path.join(cache, 'share', 'timezone', 'UTC'))).toBe(true);

    // Reachable binaries are used where they are.
    chmodSync(root, 0o755);
    expect(reachableBinaries(binaries, other)).toBe(binaries);
  });
});
