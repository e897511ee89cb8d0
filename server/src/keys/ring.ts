import type { JWK } from 'jose';
import {
  generateCookieKey,
  generateSigningKey,
  newCookieKid,
  readLegacyCookieKeys,
  readLegacySigningKey,
  type NewSigningKey,
} from './material.js';
import { KEY_PURPOSES, type KeyPurpose, type KeyRingStore, type StoredKey } from '../storage/key-ring.js';
import { rotationDue, viewAt, type PurposeView, type RingTimeline } from './timeline.js';

/** The signing keys as the provider and the token verifiers use them. */
export interface SigningKeys {
  /** The key that signs now (private JWK, with its kid, RS256, use sig). */
  privateJwk: JWK & { kid: string };
  /** Every published key, public parts only: what tokens are verified against. */
  publicJwks: { keys: JWK[] };
  /**
   * oidc-provider's `jwks`: every published key, the current one first and the only one it may sign with (the
   * others carry `key_ops: ['verify']`, which its keystore does not select for signing). It publishes them all.
   */
  providerJwks: { keys: JWK[] };
}

/** The pino-like logger the ring reports to. */
export interface RingLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface KeyRingOptions {
  store: KeyRingStore;
  timeline: RingTimeline;
  /** ms since the epoch (the app's clock). */
  now?: () => number;
  /**
   * SQLite: an empty ring imports the key files an older install kept in this folder (DATA_DIR), so an upgrade
   * keeps its signing key (and kid) and its cookie keys: nobody is signed out. Unset (PostgreSQL): generate.
   */
  legacyDir?: string;
  log?: RingLog;
  /** Makes a new signing key (default: a fresh RSA key). Tests hand out pre-generated ones (buildApp options). */
  generateSigningKey?: () => Promise<NewSigningKey>;
}

const silent: RingLog = { info: () => undefined, warn: () => undefined };

/** What a refresh found to write: a purpose's first key, a purpose's next key, or retired keys to delete. */
interface Plan {
  first: KeyPurpose[];
  rotate: KeyPurpose[];
  cleanup: boolean;
}

function planOf(keys: readonly StoredKey[], now: number, timeline: RingTimeline): Plan {
  return {
    first: KEY_PURPOSES.filter((purpose) => !viewAt(keys, purpose, now)),
    rotate: KEY_PURPOSES.filter((purpose) => rotationDue(keys, purpose, now, timeline)),
    cleanup: keys.some((key) => key.retiredAt !== null && key.retiredAt <= now),
  };
}

const isEmpty = (plan: Plan) => plan.first.length === 0 && plan.rotate.length === 0 && !plan.cleanup;

/** Keys made outside the transaction (RSA generation is slow), used only if the transaction still needs them. */
interface Candidates {
  firstSigning?: StoredKey[];
  firstCookie?: StoredKey[];
  nextSigning?: NewSigningKey;
  nextCookie?: string;
}

function signingView(view: PurposeView): SigningKeys {
  const jwks = view.live.map((key) => {
    const jwk = JSON.parse(key.material) as JWK;
    return { ...jwk, kid: key.kid, alg: 'RS256', use: 'sig' };
  });
  const [privateJwk] = jwks;
  if (!privateJwk) throw new Error('a signing view without a key');
  return {
    privateJwk,
    publicJwks: { keys: jwks.map(({ kty, n, e, kid, alg, use }) => ({ kty, n, e, kid, alg, use })) },
    providerJwks: {
      keys: jwks.map((jwk, index) => (index === 0 ? jwk : { ...jwk, key_ops: ['verify'] })),
    },
  };
}

const fingerprintOf = (view: PurposeView) => view.live.map((key) => key.kid).join(',');

/**
 * The provider's signing and cookie keys, shared by every instance through the database (`key_ring`).
 *
 * Each instance reloads the ring every `timeline.refreshMs` and on that occasion rotates it when due: whichever
 * instance looks first adds the next key inside a write transaction that checks the newest key again, so two
 * instances never both add one. A new key is published (and accepted) `leadMs` before it signs; the key it
 * succeeds keeps being published and accepted for `retentionMs` after its last signature, then it is retired
 * and deleted. `onChange` listeners hear of every change of what signs or what is accepted.
 */
export class KeyRing {
  private readonly store: KeyRingStore;
  private readonly timeline: RingTimeline;
  private readonly now: () => number;
  private readonly legacyDir: string | undefined;
  private readonly newSigningKey: () => Promise<NewSigningKey>;
  private readonly log: RingLog;
  private readonly listeners = new Set<(ring: KeyRing) => void>();
  private signingKeys: SigningKeys | undefined;
  private cookies: readonly string[] = [];
  private fingerprint = '';
  private running: Promise<boolean> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private transition: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(options: KeyRingOptions) {
    this.store = options.store;
    this.timeline = options.timeline;
    this.now = options.now ?? Date.now;
    this.legacyDir = options.legacyDir;
    this.newSigningKey = options.generateSigningKey ?? generateSigningKey;
    this.log = options.log ?? silent;
  }

  /** Loads the ring (creating its first keys, or importing the legacy files), then refreshes it periodically. */
  static async open(options: KeyRingOptions): Promise<KeyRing> {
    const ring = new KeyRing(options);
    await ring.refresh();
    ring.timer = setInterval(() => {
      ring.refresh().catch((error: unknown) => {
        // The database may be away for a while: keep the keys loaded and try again at the next refresh.
        ring.log.warn({ err: error }, 'key ring: refresh failed, keeping the keys loaded');
      });
    }, ring.timeline.refreshMs);
    // A ring alone never keeps the process alive.
    ring.timer.unref();
    return ring;
  }

  /** The signing keys now (see SigningKeys). */
  get signing(): SigningKeys {
    if (!this.signingKeys) throw new Error('the key ring is not loaded');
    return this.signingKeys;
  }

  /** The cookie keys now: the one that signs first, then every one still accepted. */
  get cookieKeys(): readonly string[] {
    return this.cookies;
  }

  /** Calls `listener` after each change of the keys; returns the function that stops it. */
  onChange(listener: (ring: KeyRing) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Rotates the ring if due, reloads it and tells the listeners if anything changed; true when it did. One
   * refresh at a time: a call during another waits for that one.
   */
  refresh(): Promise<boolean> {
    this.running ??= this.load().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Stops the periodic refresh and waits for one under way (before the database closes). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.transition);
    this.listeners.clear();
    await this.running?.catch(() => undefined);
  }

  private async load(): Promise<boolean> {
    const now = this.now();
    let keys = await this.store.all();
    const plan = planOf(keys, now, this.timeline);
    if (!isEmpty(plan)) keys = await this.write(plan, now);
    return this.apply(keys, now);
  }

  /** Makes what the plan needs, then writes what is still needed by the time this instance holds the lock. */
  private async write(plan: Plan, now: number): Promise<StoredKey[]> {
    const candidates = await this.candidatesFor(plan, now);
    return this.store.transaction(async (tx) => {
      const keys = await tx.all();
      const current = planOf(keys, now, this.timeline);
      const added: StoredKey[] = [];
      if (current.first.includes('signing') && candidates.firstSigning)
        added.push(...candidates.firstSigning);
      if (current.first.includes('cookie') && candidates.firstCookie) added.push(...candidates.firstCookie);
      for (const purpose of current.rotate) {
        const rotation = rotationDue(keys, purpose, now, this.timeline);
        const next =
          purpose === 'signing'
            ? candidates.nextSigning
            : candidates.nextCookie && { kid: newCookieKid(), material: candidates.nextCookie };
        // Planned by another instance meanwhile, or not prepared by this one: the next refresh decides.
        if (!rotation || !next) continue;
        const { kid, signsUntil, retiredAt } = rotation.predecessor;
        await tx.succeed(kid, signsUntil, retiredAt);
        added.push({
          ...next,
          purpose,
          createdAt: now,
          signsFrom: rotation.signsFrom,
          signsUntil: null,
          retiredAt: null,
        });
        this.log.info(
          {
            purpose,
            kid: purpose === 'signing' ? next.kid : undefined,
            signsFrom: new Date(rotation.signsFrom),
          },
          'key ring: next key published',
        );
      }
      for (const key of added) await tx.insert(key);
      const deleted = current.cleanup ? await tx.deleteRetired(now) : 0;
      if (deleted > 0) this.log.info({ deleted }, 'key ring: retired keys deleted');
      return added.length > 0 || deleted > 0 ? tx.all() : keys;
    });
  }

  private async candidatesFor(plan: Plan, now: number): Promise<Candidates> {
    const candidates: Candidates = {};
    const first = (kid: string, purpose: KeyPurpose, material: string): StoredKey => ({
      kid,
      purpose,
      material,
      createdAt: now,
      signsFrom: now,
      signsUntil: null,
      retiredAt: null,
    });
    if (plan.first.includes('signing')) {
      const legacy = this.legacyDir ? await readLegacySigningKey(this.legacyDir) : undefined;
      if (legacy) this.log.info({ kid: legacy.kid }, 'key ring: signing key imported from DATA_DIR');
      const key = legacy ?? (await this.newSigningKey());
      candidates.firstSigning = [first(key.kid, 'signing', key.material)];
    }
    if (plan.first.includes('cookie')) {
      const legacy = this.legacyDir ? readLegacyCookieKeys(this.legacyDir) : undefined;
      if (legacy) this.log.info({ count: legacy.length }, 'key ring: cookie keys imported from DATA_DIR');
      const [signer = generateCookieKey(), ...older] = legacy ?? [];
      const retiredAt = now + this.timeline.retentionMs.cookie;
      candidates.firstCookie = [
        first(newCookieKid(), 'cookie', signer),
        // The file's older keys verified only: they keep doing so for a session's lifetime.
        ...older.map((material, index) => ({
          ...first(newCookieKid(), 'cookie', material),
          signsFrom: now - index - 1,
          signsUntil: now,
          retiredAt,
        })),
      ];
    }
    if (plan.rotate.includes('signing')) candidates.nextSigning = await this.newSigningKey();
    if (plan.rotate.includes('cookie')) candidates.nextCookie = generateCookieKey();
    return candidates;
  }

  /**
   * A key starts signing or retires at a set moment: a timer applies the loaded keys then, so every instance
   * switches at that moment (within their clocks' skew), not each at its next refresh: they all sign (and derive
   * the sign-in throttle keys) with the same keys.
   */
  private scheduleTransition(keys: readonly StoredKey[], now: number): void {
    clearTimeout(this.transition);
    if (this.closed) return;
    const next = Math.min(
      ...keys.flatMap((key) => [key.signsFrom, key.retiredAt ?? Infinity]).filter((at) => at > now),
    );
    // Nothing scheduled, or the next refresh comes first (and schedules it then).
    if (!(next - now <= this.timeline.refreshMs)) return;
    this.transition = setTimeout(() => {
      try {
        this.apply(keys, this.now());
      } catch (error) {
        this.log.warn({ err: error }, 'key ring: switching keys failed, the next refresh tries again');
      }
    }, next - now);
    this.transition.unref();
  }

  private apply(keys: readonly StoredKey[], now: number): boolean {
    this.scheduleTransition(keys, now);
    const signing = viewAt(keys, 'signing', now);
    const cookie = viewAt(keys, 'cookie', now);
    if (!signing || !cookie) throw new Error('the key ring has no signing or no cookie key');
    const fingerprint = `${fingerprintOf(signing)};${fingerprintOf(cookie)}`;
    if (fingerprint === this.fingerprint) return false;
    const first = this.fingerprint === '';
    this.fingerprint = fingerprint;
    this.signingKeys = signingView(signing);
    this.cookies = cookie.live.map((key) => key.material);
    if (!first) {
      this.log.info(
        { signingKid: signing.current.kid, published: signing.live.length },
        'key ring: keys changed',
      );
      for (const listener of this.listeners) {
        try {
          listener(this);
        } catch (error) {
          this.log.warn({ err: error }, 'key ring: a change listener failed');
        }
      }
    }
    return true;
  }
}
