/** The embedded provider's key ring: the ring of src/keys, timed by the provider's token and session lifetimes. */
import type { AppConfig } from '../config/index.js';
import type { Database } from '../db/sql.js';
import { KeyRing, type KeyRingOptions, type RingLog } from '../keys/ring.js';
import { ringTimeline } from '../keys/timeline.js';
import { KeyRingStore } from '../storage/key-ring.js';
import type { AtRestSealing } from '../storage/sealing.js';
import { ACCESS_TOKEN_TTL_SECONDS, ID_TOKEN_TTL_SECONDS, SESSION_TTL_SECONDS } from './provider.js';

export interface ProviderKeyRingDeps {
  config: Pick<AppConfig, 'DATA_DIR' | 'KEY_ROTATION_DAYS'>;
  database: Database;
  /** KEY_RING_ENCRYPTION_KEY's boxes: the ring's material is sealed at rest. */
  sealing: AtRestSealing;
  /** The app's clock (app.now). */
  now: () => number;
  log: RingLog;
  /** Instead of generating RSA keys: tests only (buildApp options). */
  generateSigningKey?: KeyRingOptions['generateSigningKey'];
}

/**
 * The embedded provider's key ring on the app's database, on the provider's lifetimes: a signing key stays
 * published until the last ID token (1 h, its longest-lived JWT) it signed has expired, a cookie key until the
 * last session (14 days). On SQLite, an empty ring imports the key files an older install kept in DATA_DIR.
 */
export function openProviderKeyRing({
  config,
  database,
  sealing,
  now,
  log,
  generateSigningKey,
}: ProviderKeyRingDeps): Promise<KeyRing> {
  return KeyRing.open({
    store: new KeyRingStore(database, sealing.keyRing),
    timeline: ringTimeline({
      rotationDays: config.KEY_ROTATION_DAYS,
      longestTokenTtlSeconds: Math.max(ACCESS_TOKEN_TTL_SECONDS, ID_TOKEN_TTL_SECONDS),
      sessionTtlSeconds: SESSION_TTL_SECONDS,
    }),
    now,
    log,
    ...(database.dialect === 'sqlite' ? { legacyDir: config.DATA_DIR } : {}),
    ...(generateSigningKey ? { generateSigningKey } : {}),
  });
}
