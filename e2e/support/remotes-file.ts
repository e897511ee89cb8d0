import { readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { E2E_DATA_DIR } from './paths.js';

/**
 * The remotes file the e2e server reads: a copy of config/remotes.json made by start-fresh.mjs, so a test can
 * switch a remote's version (and roll it back) without touching the repository's file.
 */
export const E2E_REMOTES_FILE = path.join(E2E_DATA_DIR, 'remotes.json');

export interface RemotesFile {
  remotes: Record<string, { entry: string }>;
}

export function readRemotesFile(): RemotesFile {
  return JSON.parse(readFileSync(E2E_REMOTES_FILE, 'utf8')) as RemotesFile;
}

/**
 * Replaces the file in one step (write aside, rename), as a deploy would, and moves its modification time
 * forward so the server sees the change even within the same millisecond.
 */
export function writeRemotesFile(config: RemotesFile): void {
  const aside = `${E2E_REMOTES_FILE}.${process.pid}.tmp`;
  writeFileSync(aside, `${JSON.stringify(config, null, 2)}\n`);
  renameSync(aside, E2E_REMOTES_FILE);
  const later = new Date(Date.now() + 1000);
  utimesSync(E2E_REMOTES_FILE, later, later);
}

/** Points one remote at another remoteEntry.js; returns the rollback (safe to call more than once). */
export function switchRemote(name: string, entry: string): () => void {
  const before = readRemotesFile();
  writeRemotesFile({ remotes: { ...before.remotes, [name]: { entry } } });
  let rolledBack = false;
  return () => {
    if (rolledBack) return;
    rolledBack = true;
    writeRemotesFile(before);
  };
}
