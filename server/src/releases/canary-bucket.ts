/**
 * The canary bucket of a holder for a remote (the rule in shared-auth's releases.ts, CANARY_BUCKET_RULE): the first 4
 * bytes of SHA-256("<sub>:<remote>") as a big-endian uint32, mod 100. Stable for a sub and a remote, so the same
 * person gets the same version on every load and device; independent across remotes, so one holder is not in every
 * canary at once.
 */
import { createHash } from 'node:crypto';

export function canaryBucket(sub: string, remote: string): number {
  return createHash('sha256').update(`${sub}:${remote}`).digest().readUInt32BE(0) % 100;
}

/** Whether the holder `sub` gets the canary of `remote` at `percent` (1–99). */
export function inCanary(sub: string, remote: string, percent: number): boolean {
  return canaryBucket(sub, remote) < percent;
}
