/**
 * The canary's votes (migration 022's `release_votes`): one row per signed-in holder of the canary's bucket who
 * reported its version, saying whether they loaded it and whether they met a failure. What the automatic rollback
 * reads (ReleaseStore.clearFailingCanary): a canary's loads are its distinct voters, its failures the voters who met
 * a failure, so one holder reporting fifty times counts once and anonymous reports never count. The interface and
 * its SQL; who may vote: releases/releases.ts.
 */
import type { Sql } from '../db/sql.js';

export interface ReleaseVote {
  remote: string;
  version: string;
  /** The holder's user id (a valid bearer's, in the canary's bucket). */
  sub: string;
  outcome: 'loaded' | 'failed';
  /** ms since the epoch. */
  at: number;
}

/** A canary run's figures: distinct holders who reported it, and those of them who met a failure. */
export interface VoteTally {
  holders: number;
  failedHolders: number;
}

export interface ReleaseVoteStore {
  /**
   * Records the holder's report of the version: their row the first time, then `loaded` or `failed` raised the
   * first time they report that outcome. True when the row is new or raised; a repeat changes nothing (false).
   */
  vote(vote: ReleaseVote): Promise<boolean>;
  tally(remote: string, version: string): Promise<VoteTally>;
  /** Forgets the version's votes (it starts a new canary run, judged on its own holders). */
  clear(remote: string, version: string): Promise<void>;
}

/** The store over the portal's database, or over a transaction's (`tx.sql`). */
export function releaseVoteStore(sql: Sql): ReleaseVoteStore {
  return {
    async vote({ remote, version, sub, outcome, at }) {
      const loaded = outcome === 'loaded' ? 1 : 0;
      // The update runs only when it raises a flag, so its count of changed rows says whether the vote moved.
      const result = await sql.run(
        `INSERT INTO release_votes (remote, version, sub, loaded, failed, voted_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (remote, version, sub) DO UPDATE SET
           loaded = CASE WHEN excluded.loaded = 1 THEN 1 ELSE release_votes.loaded END,
           failed = CASE WHEN excluded.failed = 1 THEN 1 ELSE release_votes.failed END,
           voted_at = excluded.voted_at
         WHERE release_votes.loaded < excluded.loaded OR release_votes.failed < excluded.failed`,
        [remote, version, sub, loaded, 1 - loaded, at],
      );
      return result.changes > 0;
    },
    async tally(remote, version) {
      const row = await sql.get<{ holders: number; failed_holders: number }>(
        `SELECT COUNT(*) AS holders, COUNT(CASE WHEN failed = 1 THEN 1 END) AS failed_holders
         FROM release_votes WHERE remote = ? AND version = ?`,
        [remote, version],
      );
      return { holders: Number(row?.holders ?? 0), failedHolders: Number(row?.failed_holders ?? 0) };
    },
    async clear(remote, version) {
      await sql.run('DELETE FROM release_votes WHERE remote = ? AND version = ?', [remote, version]);
    },
  };
}
