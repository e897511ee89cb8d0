#!/usr/bin/env node
/**
 * Release CLI (`pnpm release …`, issue 23): a remote's team publishes a build, puts it in canary, promotes it and
 * rolls it back through the portal's release API, with its deploy key.
 *
 *   PORTAL_URL=https://portal.example PORTAL_DEPLOY_KEY=pdk_… pnpm release publish remote_profile dist/ \
 *     --version 1.1.0 --entry-url https://cdn.example/remote-profile/1.1.0/remoteEntry.js
 *
 * Every call and answer is checked against the contract (shared-auth's releaseCalls); a refusal prints the
 * server's `error` and exits 1. Exit 2: the command line or the environment is wrong, nothing was sent.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  ApiError,
  callApi,
  canaryBodySchema,
  CLIENT_ERROR_CODES,
  DEPLOY_AUTHORIZATION_SCHEME,
  DEPLOY_KEY_PREFIX,
  errorResponseSchema,
  isApiError,
  publishBodySchema,
  REMOTE_PAGES,
  releaseCalls,
  releaseRemoteNameSchema,
  releaseVersionSchema,
  resolvedRemotesSchema,
  type ApiRequester,
  type ReleaseStatus,
  type ResolvedRemotes,
} from 'shared-auth/contract';
import type { z } from 'zod';
import {
  ArtifactError,
  fetchCapped,
  readArtifact,
  reasonOf,
  type ReleaseArtifact,
} from './release-artifact.js';

export const USAGE = `Usage: pnpm release <command>

  publish <remote> <dir|url> --version X [--entry-url U] [--build-id B]
      Publish a build as version X. From a build folder (its dist/): the SHA-384 of its remoteEntry.js and the
      build id of its mf-manifest.json; --entry-url is where you uploaded the folder (…/remoteEntry.js), and
      must serve the same file. From a URL of an uploaded remoteEntry.js: fetched and hashed.
  canary <remote> X --percent N     Serve version X to N % (1-99) of signed-in users.
  promote <remote> X                Make X stable for everyone; the old stable stays as the fallback.
  rollback <remote>                 Clear the canary, or without one go back to the previous stable.
  status [remote]                   A remote's releases (with the key); without one, what the portal serves.

  <remote> is the container name (remote_profile) or the package name (remote-profile).

Environment:
  PORTAL_URL           the portal's address (default http://localhost:3000)
  PORTAL_DEPLOY_KEY    your remote's deploy key (pdk_…), from the portal's operators

Exit status: 0 done, 1 refused or failed (the reason is printed), 2 wrong command line or environment.`;

const DEFAULT_PORTAL_URL = 'http://localhost:3000';
/** How long one call (to the portal or to the build's host) may take. */
const DEFAULT_TIMEOUT_MS = 30_000;
/** The status table shows this many of the last events (the server keeps 50). */
const EVENTS_SHOWN = 10;

/** What the CLI reads and writes: the process's by default, a test's own otherwise. */
export interface ReleaseCliIo {
  env: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
  fetch: typeof fetch;
  timeoutMs: number;
}

function processIo(): ReleaseCliIo {
  return {
    env: process.env,
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    fetch: globalThis.fetch,
    timeoutMs: DEFAULT_TIMEOUT_MS,
  };
}

/** A mistake on the command line or in the environment: printed with a hint, exit 2, nothing sent. */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The portal's address and the key, checked before anything is read or sent. */
interface Target {
  portal: URL;
  key: string;
}

function portalOf(env: ReleaseCliIo['env']): URL {
  const text = env.PORTAL_URL?.trim() || DEFAULT_PORTAL_URL;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`PORTAL_URL is not a URL: ${text}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`PORTAL_URL must be an https:// address: ${text}`);
  }
  // The deploy key must not cross a network in clear text: plain http only to this machine.
  if (url.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
    throw new UsageError(`PORTAL_URL must be https:// (http:// only for localhost): ${text}`);
  }
  return url;
}

function targetOf(env: ReleaseCliIo['env']): Target {
  const portal = portalOf(env);
  const key = env.PORTAL_DEPLOY_KEY?.trim();
  if (!key) {
    throw new UsageError(
      "PORTAL_DEPLOY_KEY is not set: ask the portal operators for your remote's deploy key and export it as PORTAL_DEPLOY_KEY",
    );
  }
  if (!key.startsWith(DEPLOY_KEY_PREFIX) || !/^[A-Za-z0-9_-]+$/.test(key)) {
    throw new UsageError(`PORTAL_DEPLOY_KEY is not a deploy key (they start with ${DEPLOY_KEY_PREFIX})`);
  }
  return { portal, key };
}

/** The URL of an API path under the portal's address (which may have a path of its own). */
function urlUnder(portal: URL, apiPath: string): URL {
  return new URL(`${portal.href.replace(/\/+$/, '')}${apiPath}`);
}

/**
 * The answer's JSON, or undefined when it has none. The spec's answers are JSON text that holds JSON (section 7):
 * both layers are parsed, as the browser's client does (shared-auth's parseJsonTwice).
 */
async function jsonOf(response: Response): Promise<unknown> {
  let value: unknown = await response.text();
  for (let layer = 0; layer < 2 && typeof value === 'string'; layer += 1) {
    try {
      value = JSON.parse(value);
    } catch {
      return layer === 0 ? undefined : value;
    }
  }
  return value;
}

/** The refusal, with the server's `error` and `code` when it sent them. */
function refusalOf(response: Response, body: unknown): ApiError {
  const refusal = errorResponseSchema.safeParse(body);
  return refusal.success
    ? new ApiError(refusal.data.error, response.status, refusal.data.code)
    : new ApiError(`The portal answered ${response.status} ${response.statusText}`.trim(), response.status);
}

/** The contract caller's client: one fetch per call with the deploy key, refusals thrown as ApiError. */
function deployKeyClient({ portal, key }: Target, io: ReleaseCliIo): ApiRequester {
  return {
    async request({ method, url, data, signal }) {
      const timeout = AbortSignal.timeout(io.timeoutMs);
      const response = await io.fetch(urlUnder(portal, url), {
        method,
        headers: {
          authorization: `${DEPLOY_AUTHORIZATION_SCHEME} ${key}`,
          accept: 'application/json',
          ...(data === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(data === undefined ? {} : { body: JSON.stringify(data) }),
        // A redirect would carry the key to wherever it points.
        redirect: 'error',
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const body = await jsonOf(response);
      if (!response.ok) throw refusalOf(response, body);
      return { status: response.status, data: body };
    },
  };
}

/** `remote-profile` → `remote_profile` (the package name of a known remote), then checked as a remote name. */
function remoteNameOf(text: string | undefined): string {
  if (text === undefined) throw new UsageError('Give the remote, e.g. remote_profile');
  const underscored = text.replaceAll('-', '_');
  const name = underscored in REMOTE_PAGES ? underscored : text;
  const parsed = releaseRemoteNameSchema.safeParse(name);
  if (!parsed.success) throw new UsageError(`${text}: ${firstIssueOf(parsed.error)}`);
  return parsed.data;
}

function firstIssueOf(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'not valid';
  return issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

/** A value checked against its contract schema before anything is read or sent; `label` names it in the message. */
function checked<T>(schema: z.ZodType<T>, value: unknown, label: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new UsageError(`${label}: ${firstIssueOf(parsed.error)}`);
  return parsed.data;
}

/** `10` or `10%`, as a whole number from 1 to 99. */
function percentOf(text: string | undefined): number {
  if (text === undefined) throw new UsageError('--percent is required, e.g. --percent 10');
  const trimmed = text.trim().replace(/%$/, '');
  const percent = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || !canaryBodySchema.shape.percent.safeParse(percent).success) {
    throw new UsageError(`--percent must be a whole number from 1 to 99, not ${text}`);
  }
  return percent;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs with the command's options, positionals exactly `count` (or at most, with `optional`). */
function parse<O extends Options>(args: string[], options: O, count: number, optional = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { positionals } = parsed;
  if (positionals.length < count - optional || positionals.length > count) {
    throw new UsageError(
      `Expected ${count - optional === count ? count : `${count - optional} to ${count}`} arguments, got ${positionals.length}`,
    );
  }
  return parsed;
}

const percentText = (percent: number) => `${percent} %`;

function dateOf(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Rows as columns padded to their widest cell, two spaces apart. */
function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** One remote's release status as plain text. */
export function formatStatus(remote: string, status: ReleaseStatus): string {
  const lines = [
    `${remote}`,
    table([
      ['  stable', status.stable ?? '(none: the remotes file serves it)'],
      [
        '  canary',
        status.canary ? `${status.canary.version} for ${percentText(status.canary.percent)}` : '(none)',
      ],
    ]),
    '',
  ];
  if (status.versions.length === 0) {
    lines.push('  No version published yet.');
  } else {
    lines.push(
      table([
        ['  version', 'build', 'loads', 'failures', 'published'],
        ...status.versions.map((version) => [
          `  ${version.version}`,
          version.buildId,
          String(version.loads),
          version.loads > 0
            ? `${version.failures} (${((100 * version.failures) / version.loads).toFixed(1)} %)`
            : String(version.failures),
          `${dateOf(version.publishedAt)} by ${version.publishedBy}`,
        ]),
      ]),
    );
  }
  lines.push('');
  if (status.events.length === 0) {
    lines.push('  No events yet.');
  } else {
    lines.push(`  Last events (newest first):`);
    lines.push(
      table(
        status.events
          .slice(0, EVENTS_SHOWN)
          .map((event) => [`  ${dateOf(event.at)}`, event.action, event.version ?? '', `by ${event.by}`]),
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** What the portal serves each remote now, to anyone not in a canary (GET /remotes.json, anonymous). */
export function formatResolved(resolved: ResolvedRemotes): string {
  const rows = Object.entries(resolved.remotes).map(([name, remote]) => [
    name,
    remote.channel,
    remote.version ?? '-',
    remote.entry,
  ]);
  return `${table([['remote', 'channel', 'version', 'entry'], ...rows])}\n`;
}

async function resolvedRemotes(portal: URL, io: ReleaseCliIo): Promise<ResolvedRemotes> {
  const url = urlUnder(portal, '/remotes.json');
  let body: unknown;
  try {
    const bytes = await fetchCapped(url, io);
    if (bytes === undefined) throw new ApiError(`${url.href} answered 404`, 404);
    body = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    if (error instanceof ArtifactError) throw new ApiError(error.message, 0);
    if (error instanceof SyntaxError) throw invalidAnswer(url.href, 'not JSON');
    throw error;
  }
  const parsed = resolvedRemotesSchema.safeParse(body);
  if (!parsed.success) throw invalidAnswer(url.href, firstIssueOf(parsed.error));
  return parsed.data;
}

function invalidAnswer(what: string, why: string): ApiError {
  return new ApiError(
    `${what} answered in an unexpected shape (${why})`,
    200,
    CLIENT_ERROR_CODES.invalidResponse,
  );
}

function publishedLine(remote: string, version: string, artifact: ReleaseArtifact): string {
  const buildFrom = {
    manifest: 'from mf-manifest.json',
    option: 'from --build-id',
    version: 'no manifest: the version',
  }[artifact.buildIdSource];
  return [
    `Published ${remote} ${version}.`,
    `  entry      ${artifact.entry}`,
    `  integrity  ${artifact.integrity}`,
    `  build      ${artifact.buildId} (${buildFrom})`,
    `Nothing is served from it yet. Next: pnpm release canary ${remote} ${version} --percent 10`,
    '',
  ].join('\n');
}

/** Runs one command; the exit status. */
async function run(command: string, args: string[], io: ReleaseCliIo): Promise<number> {
  switch (command) {
    case 'publish': {
      const { values, positionals } = parse(
        args,
        { version: { type: 'string' }, 'entry-url': { type: 'string' }, 'build-id': { type: 'string' } },
        2,
      );
      const remote = remoteNameOf(positionals[0]);
      if (values.version === undefined) throw new UsageError('--version is required, e.g. --version 1.4.0');
      const target = targetOf(io.env);
      // The version and build id are checked before the build is read.
      const version = checked(releaseVersionSchema, values.version, '--version');
      if (values['build-id'] !== undefined)
        checked(publishBodySchema.shape.buildId, values['build-id'], '--build-id');
      const artifact = await readArtifact(
        {
          remote,
          version,
          source: positionals[1] ?? '',
          entryUrl: values['entry-url'],
          buildId: values['build-id'],
        },
        io,
      );
      const body = checked(
        publishBodySchema,
        { version, entry: artifact.entry, integrity: artifact.integrity, buildId: artifact.buildId },
        'publish',
      );
      const status = await callApi(deployKeyClient(target, io), releaseCalls.publish, {
        params: { remote },
        body,
      });
      io.out(publishedLine(remote, version, artifact));
      io.out(`\n${formatStatus(remote, status)}`);
      return 0;
    }
    case 'canary': {
      const { values, positionals } = parse(args, { percent: { type: 'string' } }, 2);
      const remote = remoteNameOf(positionals[0]);
      const version = checked(releaseVersionSchema, positionals[1], 'version');
      const body = { version, percent: percentOf(values.percent) };
      const status = await callApi(deployKeyClient(targetOf(io.env), io), releaseCalls.canary, {
        params: { remote },
        body,
      });
      io.out(
        `${remote} ${body.version} is the canary for ${percentText(body.percent)} of signed-in users from their next page load.\n` +
          `Watch it with: pnpm release status ${remote}\n\n${formatStatus(remote, status)}`,
      );
      return 0;
    }
    case 'promote': {
      const { positionals } = parse(args, {}, 2);
      const remote = remoteNameOf(positionals[0]);
      const body = { version: checked(releaseVersionSchema, positionals[1], 'version') };
      const status = await callApi(deployKeyClient(targetOf(io.env), io), releaseCalls.promote, {
        params: { remote },
        body,
      });
      io.out(
        `${remote} ${body.version} is stable for everyone from their next page load.\n\n${formatStatus(remote, status)}`,
      );
      return 0;
    }
    case 'rollback': {
      const { positionals } = parse(args, {}, 1);
      const remote = remoteNameOf(positionals[0]);
      const status = await callApi(deployKeyClient(targetOf(io.env), io), releaseCalls.rollback, {
        params: { remote },
      });
      io.out(
        `Rolled back ${remote}: stable ${status.stable ?? '(the remotes file)'}, ${
          status.canary ? `canary ${status.canary.version}` : 'no canary'
        }.\n\n${formatStatus(remote, status)}`,
      );
      return 0;
    }
    case 'status': {
      const { positionals } = parse(args, {}, 1, 1);
      if (positionals[0] === undefined) {
        io.out(formatResolved(await resolvedRemotes(portalOf(io.env), io)));
        return 0;
      }
      const remote = remoteNameOf(positionals[0]);
      const status = await callApi(deployKeyClient(targetOf(io.env), io), releaseCalls.status, {
        params: { remote },
      });
      io.out(formatStatus(remote, status));
      return 0;
    }
    default:
      throw new UsageError(`Unknown command: ${command}`);
  }
}

/** What went wrong, for the holder of the command. */
function failureText(error: unknown, portal: string): string {
  if (isApiError(error)) {
    if (error.code === CLIENT_ERROR_CODES.invalidResponse) {
      return `The portal's answer is not what this CLI expects: ${error.message}. Is PORTAL_URL (${portal}) the portal, and does it run the same version?`;
    }
    return error.status === 0
      ? error.message
      : `Refused (${error.status}${error.code ? ` ${error.code}` : ''}): ${error.message}`;
  }
  if (error instanceof ArtifactError) return error.message;
  return `Could not reach the portal at ${portal}: ${reasonOf(error)}`;
}

/**
 * Text as the terminal shows it: control characters (an escape sequence in a server's `error` or a label could
 * rewrite the screen) replaced, line breaks kept.
 */
function printable(text: string): string {
  return text.replace(/\p{Cc}/gu, (char) => (char === '\n' ? char : '\ufffd'));
}

/** The CLI: the exit status of `argv` (the arguments after the program). */
export async function runReleaseCli(
  argv: string[],
  processIoOrTest: ReleaseCliIo = processIo(),
): Promise<number> {
  const io: ReleaseCliIo = {
    ...processIoOrTest,
    out: (text) => processIoOrTest.out(printable(text)),
    err: (text) => processIoOrTest.err(printable(text)),
  };
  const [command, ...args] = argv;
  if (command === undefined) {
    io.err(`${USAGE}\n`);
    return 2;
  }
  if (command === '--help' || command === '-h' || command === 'help' || args.includes('--help')) {
    io.out(`${USAGE}\n`);
    return 0;
  }
  try {
    return await run(command, args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\nRun pnpm release --help for the commands.\n`);
      return 2;
    }
    io.err(`${failureText(error, io.env.PORTAL_URL?.trim() || DEFAULT_PORTAL_URL)}\n`);
    return 1;
  }
}

// Run only when executed directly, so tests can import runReleaseCli.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  runReleaseCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
