import { KEY_LEAD_DAYS } from '../config/key-rotation.js';
import type { KeyPurpose, StoredKey } from '../storage/key-ring.js';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** How often every instance reloads the ring (and rotates it when due). */
export const KEY_RING_REFRESH_MS = MINUTE_MS;

/** How long a new key is published before any instance signs with it (config/key-rotation.ts says why). */
export const KEY_LEAD_MS = KEY_LEAD_DAYS * DAY_MS;

/**
 * The clock skew a token's verifier may allow past its `exp` (okta-auth-js allows 300 s), which also covers
 * instances whose clocks disagree by less than that.
 */
export const CLOCK_SKEW_MS = 5 * MINUTE_MS;

export const daysToMs = (days: number) => days * DAY_MS;

export interface RingTimeline {
  /** How often instances reload the ring. */
  refreshMs: number;
  /** How long a new key is published before it signs. */
  leadMs: number;
  /** How long each key signs before its successor takes over; 0: keys are never rotated. */
  rotationMs: number;
  /** After a key's last signature, how long it stays published and accepted, per purpose. */
  retentionMs: Record<KeyPurpose, number>;
}

export interface TimelineInput {
  /** KEY_ROTATION_DAYS (0 = never). */
  rotationDays: number;
  /** The longest lifetime of anything the provider signs with the signing key (its ID tokens: 1 h). */
  longestTokenTtlSeconds: number;
  /** The longest lifetime of a cookie the cookie keys sign (the provider's session: 14 days). */
  sessionTtlSeconds: number;
  refreshMs?: number;
}

/**
 * The ring's schedule. A key that stops signing at T stays accepted until every token (cookie) it signed has
 * expired: T + the lifetime + the verifiers' clock skew + one refresh interval, for an instance that switched late
 * (instances switch at T by a timer, but one whose clock is behind, or that loaded the ring late, signs a little
 * longer).
 */
export function ringTimeline({
  rotationDays,
  longestTokenTtlSeconds,
  sessionTtlSeconds,
  refreshMs = KEY_RING_REFRESH_MS,
}: TimelineInput): RingTimeline {
  const margin = CLOCK_SKEW_MS + refreshMs;
  return {
    refreshMs,
    leadMs: KEY_LEAD_MS,
    rotationMs: daysToMs(rotationDays),
    retentionMs: {
      signing: longestTokenTtlSeconds * 1000 + margin,
      cookie: sessionTtlSeconds * 1000 + margin,
    },
  };
}

/** The keys of one purpose at a moment: the one that signs, and every key still accepted (it first). */
export interface PurposeView {
  current: StoredKey;
  /** Published (signing) / accepted (cookie): the current key first, then the others, newest first. */
  live: StoredKey[];
}

const isLive = (key: StoredKey, now: number) => key.retiredAt === null || now < key.retiredAt;

/**
 * The keys of `purpose` at `now`. The current key is the live one that started signing last. Should none have
 * started by this instance's clock (the first key, written by an instance whose clock is a little ahead), the
 * earliest one signs.
 */
export function viewAt(
  keys: readonly StoredKey[],
  purpose: KeyPurpose,
  now: number,
): PurposeView | undefined {
  const live = keys
    .filter((key) => key.purpose === purpose && isLive(key, now))
    .sort((a, b) => b.signsFrom - a.signsFrom || b.createdAt - a.createdAt);
  const current = live.find((key) => key.signsFrom <= now) ?? live.at(-1);
  if (!current) return undefined;
  return { current, live: [current, ...live.filter((key) => key !== current)] };
}

/** The key of `purpose` that signs last (the current one, or one announced to take over). */
function newestOf(keys: readonly StoredKey[], purpose: KeyPurpose, now: number): StoredKey | undefined {
  return viewAt(keys, purpose, now)?.live.reduce((newest, key) =>
    key.signsFrom > newest.signsFrom ? key : newest,
  );
}

/** When a rotation is due, the successor's start and what happens to the key it succeeds. */
export interface Rotation {
  signsFrom: number;
  predecessor: { kid: string; signsUntil: number; retiredAt: number };
}

/**
 * Whether `purpose` needs its next key now, and its schedule: due `leadMs` before the newest key has signed for
 * `rotationMs`, and only once that key signs (so at most one key is ever announced ahead). After a long pause (no
 * instance running), the successor still gets the whole lead.
 */
export function rotationDue(
  keys: readonly StoredKey[],
  purpose: KeyPurpose,
  now: number,
  timeline: RingTimeline,
): Rotation | undefined {
  if (timeline.rotationMs <= 0) return undefined;
  const newest = newestOf(keys, purpose, now);
  if (!newest || newest.signsFrom > now) return undefined;
  if (now < newest.signsFrom + timeline.rotationMs - timeline.leadMs) return undefined;
  const signsFrom = Math.max(newest.signsFrom + timeline.rotationMs, now + timeline.leadMs);
  return {
    signsFrom,
    predecessor: {
      kid: newest.kid,
      signsUntil: signsFrom,
      retiredAt: signsFrom + timeline.retentionMs[purpose],
    },
  };
}
