#!/usr/bin/env node
/**
 * Release keys CLI (issue 23): the operators create, revoke and list the deploy keys each remote's team releases
 * with (`pnpm release`, `Authorization: Deploy <key>`), on the server host, in the database the server uses.
 *
 *   node server/dist/release-keys-cli.js create remote_profile --label "Profile team" [--data-dir ./data]
 *   node server/dist/release-keys-cli.js revoke "Profile team"
 *   node server/dist/release-keys-cli.js list
 *
 * `create` prints the key once on stdout (only its SHA-256 is kept: a lost key is revoked and replaced); `list`
 * prints one line per key (label, remote, created, revoked), never a key. DATA_DIR (or --data-dir) or DATABASE_URL
 * picks the database, as for the server.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseEnv } from './config/env.js';
import { openStorage } from './plugins/app/open-storage.js';
import { DeployKeyError, DeployKeys } from './releases/deploy-keys.js';

const USAGE = `Usage:
  release-keys-cli.js create <remote> --label "<team name>" [--data-dir DIR]
  release-keys-cli.js revoke "<label>" [--data-dir DIR]
  release-keys-cli.js list [--data-dir DIR]`;

/** What the CLI writes to (the process's streams; tests pass their own). */
export interface KeysCliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

const processIo: KeysCliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
};

/** Runs one command; resolves to the exit code (0 done, 1 refused, 2 usage). */
export async function runKeysCli(argv: string[], io: KeysCliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help') {
    io.err(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { label: { type: 'string' }, 'data-dir': { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const usage = (message: string) => {
    io.err(`${message}\n${USAGE}\n`);
    return 2;
  };
  if (command === 'create' && (positionals.length !== 1 || values.label === undefined)) {
    return usage('create takes the remote and --label, e.g. create remote_profile --label "Profile team"');
  }
  if (command === 'revoke' && (positionals.length !== 1 || values.label !== undefined)) {
    return usage('revoke takes the key’s label, e.g. revoke "Profile team"');
  }
  if (command === 'list' && (positionals.length !== 0 || values.label !== undefined))
    return usage('list takes no arguments');
  if (!['create', 'revoke', 'list'].includes(command)) return usage(`Unknown command: ${command}`);

  const env = { ...io.env, ...(values['data-dir'] ? { DATA_DIR: values['data-dir'] } : {}) };
  // A process of its own: it may wait for the server's write lock longer than the server waits for it.
  const opened = await openStorage(parseEnv(env));
  try {
    const keys = new DeployKeys(opened.storage.deployKeys, Date.now);
    const [first = ''] = positionals;
    if (command === 'create') {
      const key = await keys.create(first, values.label ?? '');
      io.out(`${key}\n`);
      io.err(
        `Deploy key for ${first} created. It is shown only this once: hand it to the team (PORTAL_DEPLOY_KEY).\n`,
      );
      return 0;
    }
    if (command === 'revoke') {
      if (await keys.revoke(first)) {
        io.err(`Revoked the deploy key "${first.trim()}": it releases nothing from now on.\n`);
        return 0;
      }
      io.err(`No live deploy key is labelled "${first.trim()}" (list shows them).\n`);
      return 1;
    }
    for (const key of await keys.list()) {
      const revoked = key.revokedAt === null ? 'live' : `revoked ${new Date(key.revokedAt).toISOString()}`;
      io.out(`${key.label}\t${key.remote}\tcreated ${new Date(key.createdAt).toISOString()}\t${revoked}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof DeployKeyError) {
      io.err(`${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await opened.close();
  }
}

// Run only when executed directly, so tests can import runKeysCli.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  runKeysCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
