// Reads GET /remotes.json in either shape: the resolved set (issue 23: entry, integrity, version, channel,
// fallback) or the older `{ remotes: { name: { entry } } }` of a server without releases, read as bootstrap entries.
import { remotesConfigSchema, resolvedRemotesSchema, type ResolvedRemotes } from 'shared-auth';

export type ParsedRemotesFile = { ok: true; config: ResolvedRemotes } | { ok: false; problem: string };

/** A file that says a channel anywhere is a resolved set, held to its schema: never read as entries alone. */
function looksResolved(json: unknown): boolean {
  const remotes = (json as { remotes?: unknown } | null)?.remotes;
  if (typeof remotes !== 'object' || remotes === null) return false;
  return Object.values(remotes).some(
    (remote) => typeof remote === 'object' && remote !== null && 'channel' in remote,
  );
}

function problemOf(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const problem = error.issues[0];
  return `${problem?.path.map(String).join('.') ?? ''}: ${problem?.message ?? ''}`;
}

export function parseRemotesFile(json: unknown): ParsedRemotesFile {
  if (looksResolved(json)) {
    const resolved = resolvedRemotesSchema.safeParse(json);
    return resolved.success
      ? { ok: true, config: resolved.data }
      : { ok: false, problem: problemOf(resolved.error) };
  }
  const older = remotesConfigSchema.safeParse(json);
  if (!older.success) return { ok: false, problem: problemOf(older.error) };
  const remotes = Object.fromEntries(
    Object.entries(older.data.remotes).map(([name, { entry }]) => [
      name,
      { entry, integrity: null, version: null, buildId: null, channel: 'bootstrap' as const, fallback: null },
    ]),
  );
  return { ok: true, config: { remotes } };
}
