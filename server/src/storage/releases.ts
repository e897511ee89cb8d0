/**
 * Releases (migration 021's `release_versions` and `release_channels`): each remote's published versions with their
 * load counts (every report, anonymous ones too: what `status` shows), and what is live per remote (stable, the
 * stable before it, the canary). The automatic rollback reads the canary's votes instead (release-votes.ts). The
 * interface and its SQL; the rules (who may publish, when a canary rolls back): releases/.
 */
import type { Sql } from '../db/sql.js';

export interface ReleaseVersion {
  remote: string;
  version: string;
  entry: string;
  integrity: string;
  buildId: string;
  publishedBy: string;
  /** ms since the epoch. */
  publishedAt: number;
  loads: number;
  failures: number;
}

/** What is live for one remote. A remote with no row has no release yet (the static remotes file serves it). */
export interface ReleaseChannel {
  remote: string;
  stable: string | null;
  /** The stable before the current one: the fallback, and where a rollback without a canary goes. */
  previousStable: string | null;
  canary: { version: string; percent: number } | null;
}

/** The new live state of a remote; every field is written. */
export type ChannelState = Omit<ReleaseChannel, 'remote'>;

/**
 * The automatic rollback's threshold, over the canary's votes: at least `minLoads` distinct holders reported it,
 * and the share of them who met a failure is at least `maxFailureRate`.
 */
export interface RollbackThreshold {
  minLoads: number;
  maxFailureRate: number;
}

export interface ReleaseStore {
  /** Adds a version; false when the remote has this version already (nothing is changed). */
  addVersion(version: Omit<ReleaseVersion, 'loads' | 'failures'>): Promise<boolean>;
  version(remote: string, version: string): Promise<ReleaseVersion | undefined>;
  /** The remote's versions, newest published first. */
  versionsOf(remote: string): Promise<ReleaseVersion[]>;
  channel(remote: string): Promise<ReleaseChannel | undefined>;
  /** Every remote with a live state. */
  channels(): Promise<ReleaseChannel[]>;
  /** Writes the remote's live state at `at` (ms). */
  setChannel(remote: string, state: ChannelState, at: number): Promise<void>;
  /** The versions some remote has live: stable, canary or previous stable (what resolution and the CSP need). */
  liveVersions(): Promise<ReleaseVersion[]>;
  /** Sets a version's counts back to 0 (it starts a new canary run). */
  resetCounts(remote: string, version: string): Promise<void>;
  /** Counts one load of a published version (a failure too when `failed`); false when no such version. */
  countLoad(remote: string, version: string, failed: boolean): Promise<boolean>;
  /**
   * Clears the remote's canary when it is `version` and its votes (release_votes: distinct holders, and those who
   * met a failure) pass the threshold, in one conditional update: of concurrent callers (any instance) exactly one
   * gets true. The per-version counts (anonymous reports among them) play no part.
   */
  clearFailingCanary(
    remote: string,
    version: string,
    threshold: RollbackThreshold,
    at: number,
  ): Promise<boolean>;
}

interface VersionRow {
  remote: string;
  version: string;
  entry: string;
  integrity: string;
  build_id: string;
  published_by: string;
  published_at: number;
  loads: number;
  failures: number;
}

interface ChannelRow {
  remote: string;
  stable: string | null;
  previous_stable: string | null;
  canary: string | null;
  canary_percent: number | null;
}

const VERSION_COLUMNS =
  'remote, version, entry, integrity, build_id, published_by, published_at, loads, failures';
const CHANNEL_COLUMNS = 'remote, stable, previous_stable, canary, canary_percent';

/** The failure rate compared in integers (parts per million): no float parameter for PostgreSQL to mistype. */
const RATE_SCALE = 1_000_000;

function versionOf(row: VersionRow): ReleaseVersion {
  return {
    remote: row.remote,
    version: row.version,
    entry: row.entry,
    integrity: row.integrity,
    buildId: row.build_id,
    publishedBy: row.published_by,
    publishedAt: Number(row.published_at),
    loads: Number(row.loads),
    failures: Number(row.failures),
  };
}

function channelOf(row: ChannelRow): ReleaseChannel {
  return {
    remote: row.remote,
    stable: row.stable,
    previousStable: row.previous_stable,
    canary:
      row.canary === null || row.canary_percent === null
        ? null
        : { version: row.canary, percent: Number(row.canary_percent) },
  };
}

/** The store over the portal's database, or over a transaction's (`tx.sql`). */
export function releaseStore(sql: Sql): ReleaseStore {
  return {
    async addVersion(version) {
      const result = await sql.run(
        `INSERT INTO release_versions (remote, version, entry, integrity, build_id, published_by, published_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (remote, version) DO NOTHING`,
        [
          version.remote,
          version.version,
          version.entry,
          version.integrity,
          version.buildId,
          version.publishedBy,
          version.publishedAt,
        ],
      );
      return result.changes > 0;
    },
    async version(remote, version) {
      const row = await sql.get<VersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM release_versions WHERE remote = ? AND version = ?`,
        [remote, version],
      );
      return row && versionOf(row);
    },
    async versionsOf(remote) {
      const rows = await sql.all<VersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM release_versions WHERE remote = ? ORDER BY published_at DESC, version DESC`,
        [remote],
      );
      return rows.map(versionOf);
    },
    async channel(remote) {
      const row = await sql.get<ChannelRow>(
        `SELECT ${CHANNEL_COLUMNS} FROM release_channels WHERE remote = ?`,
        [remote],
      );
      return row && channelOf(row);
    },
    async channels() {
      const rows = await sql.all<ChannelRow>(
        `SELECT ${CHANNEL_COLUMNS} FROM release_channels ORDER BY remote`,
      );
      return rows.map(channelOf);
    },
    async setChannel(remote, state, at) {
      await sql.run(
        `INSERT INTO release_channels (remote, stable, previous_stable, canary, canary_percent, updated_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (remote) DO UPDATE SET stable = excluded.stable, previous_stable = excluded.previous_stable,
           canary = excluded.canary, canary_percent = excluded.canary_percent, updated_at = excluded.updated_at`,
        [
          remote,
          state.stable,
          state.previousStable,
          state.canary?.version ?? null,
          state.canary?.percent ?? null,
          at,
        ],
      );
    },
    async liveVersions() {
      const rows = await sql.all<VersionRow>(
        `SELECT ${VERSION_COLUMNS.split(', ')
          .map((column) => `v.${column}`)
          .join(', ')}
         FROM release_versions v JOIN release_channels c ON c.remote = v.remote
           AND (v.version = c.stable OR v.version = c.canary OR v.version = c.previous_stable)
         ORDER BY v.remote, v.version`,
      );
      return rows.map(versionOf);
    },
    async resetCounts(remote, version) {
      await sql.run('UPDATE release_versions SET loads = 0, failures = 0 WHERE remote = ? AND version = ?', [
        remote,
        version,
      ]);
    },
    async countLoad(remote, version, failed) {
      const result = await sql.run(
        `UPDATE release_versions SET loads = loads + 1, failures = failures + ?
         WHERE remote = ? AND version = ?`,
        [failed ? 1 : 0, remote, version],
      );
      return result.changes > 0;
    },
    async clearFailingCanary(remote, version, threshold, at) {
      // The votes' tally as a one-row table: EXISTS holds only when it passes the threshold.
      const result = await sql.run(
        `UPDATE release_channels SET canary = NULL, canary_percent = NULL, updated_at = ?
         WHERE remote = ? AND canary = ? AND EXISTS (
           SELECT 1 FROM (
             SELECT COUNT(*) AS holders, COUNT(CASE WHEN failed = 1 THEN 1 END) AS failed_holders
             FROM release_votes WHERE remote = ? AND version = ?
           ) tally
           WHERE tally.holders >= ? AND tally.failed_holders * ${RATE_SCALE} >= tally.holders * ?)`,
        [
          at,
          remote,
          version,
          remote,
          version,
          threshold.minLoads,
          Math.round(threshold.maxFailureRate * RATE_SCALE),
        ],
      );
      return result.changes > 0;
    },
  };
}
