import type { AppConfig } from '../config/index.js';
import type { Database } from '../db/sql.js';
import type { AtRestSealing } from './at-rest.js';
import { ACCESS_TOKEN_TTL_SECONDS, ID_TOKEN_TTL_SECONDS, SESSION_TTL_SECONDS } from '../oidc/provider.js';
import { KeyRing, type RingLog } from './ring.js';
import { KeyRingStore } from './store.js';
import { ringTimeline } from './timeline.js';

export interface ProviderKeyRingDeps {
  config: Pick<AppConfig, 'DATA_DIR' | 'KEY_ROTATION_DAYS'>;
  database: Database;
  /** KEY_RING_ENCRYPTION_KEY's boxes: the ring's material is sealed at rest. */
  sealing: AtRestSealing;
  /** The app's clock (app.now). */
  now: () => number;
  log: RingLog;
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
  });
}
