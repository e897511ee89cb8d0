#!/usr/bin/env node
/**
 * Directory CLI: creates users in the database a running server uses (SQLite's WAL makes that safe; PostgreSQL
 * when DATABASE_URL is set).
 *
 *   node server/dist/directory-cli.js add-user --email x@example.com --password 'Secret-42' \
 *     --given-name Ada --family-name Lovelace --country GB [--federated] [--data-dir ./data]
 *
 * Prints the new user as JSON on stdout. DATA_DIR (or --data-dir) or DATABASE_URL picks the database, as for the server.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { isCountryCode } from 'shared-auth/contract';
import { z } from 'zod';
import { parseEnv } from './config/env.js';
import { openStorage } from './plugins/app/open-storage.js';
import { Directory, DuplicateEmailError, type NewUser, type User } from './directory/directory.js';

const USAGE = `Usage:
  directory-cli.js add-user --email EMAIL --password PASSWORD --given-name NAME --family-name NAME --country CC [--federated] [--data-dir DIR]`;

const addUserSchema = z.object({
  email: z.email({ error: '--email must be an email address' }),
  password: z.string().min(8, { error: '--password must be at least 8 characters' }).max(72),
  'given-name': z.string().trim().min(1, { error: '--given-name is required' }).max(50),
  'family-name': z.string().trim().min(1, { error: '--family-name is required' }).max(50),
  country: z
    .string({ error: '--country is required' })
    .transform((value) => value.toUpperCase())
    .refine(isCountryCode, { error: '--country must be a two-letter country code, e.g. GB' }),
  federated: z.boolean().default(false),
});

export async function runCli(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'add-user') {
    process.stderr.write(`${USAGE}\n`);
    return command === undefined || command === '--help' ? 0 : 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'given-name': { type: 'string' },
      'family-name': { type: 'string' },
      country: { type: 'string' },
      federated: { type: 'boolean' },
      'data-dir': { type: 'string' },
    },
    strict: true,
  });
  const parsed = addUserSchema.safeParse(values);
  if (!parsed.success) {
    process.stderr.write(`${parsed.error.issues.map((issue) => issue.message).join('\n')}\n${USAGE}\n`);
    return 2;
  }
  const env = { ...process.env, ...(values['data-dir'] ? { DATA_DIR: values['data-dir'] } : {}) };
  try {
    const user = await addUser(
      {
        email: parsed.data.email,
        password: parsed.data.password,
        givenName: parsed.data['given-name'],
        familyName: parsed.data['family-name'],
        country: parsed.data.country,
        isFederated: parsed.data.federated,
      },
      env,
    );
    process.stdout.write(`${JSON.stringify(user)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof DuplicateEmailError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

/**
 * `add-user`'s work, for a caller that already holds checked values: the account made in the database `env` names
 * (DATA_DIR's SQLite, or DATABASE_URL), opened for this one write. The e2e suite calls it in its own process to
 * spare a Node start per test; the command line above stays the operators' way.
 */
export async function addUser(account: NewUser, env: NodeJS.ProcessEnv): Promise<User> {
  // A process of its own: it may wait for the server's write lock longer than the server waits for it (the
  // storage keeps its start-up wait: `serving()` is never called here).
  const opened = await openStorage(parseEnv(env));
  try {
    return await new Directory(opened.storage.users).createUser(account);
  } finally {
    await opened.close();
  }
}

// Run only when executed directly, so tests can import runCli.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
