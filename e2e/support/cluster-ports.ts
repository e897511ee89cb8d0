/**
 * The cluster tests' ports (3300-3319 and 5449-5459 are theirs; the suite's server is on 3000-3004). Apart from
 * cluster.ts so that playwright.config.ts can name the origin without loading the cluster's dependencies.
 */
export const CLUSTER_PORTS = {
  /** The round-robin proxy: the cluster's public origin. */
  proxy: 3300,
  instances: [3301, 3302],
  remotes: {
    'remote-profile': 3303,
    'remote-password': 3304,
    'remote-security': 3305,
    'remote-activity': 3306,
  },
  /** The embedded PostgreSQL, or the relay to TEST_DATABASE_URL's server. */
  database: 5449,
} as const;

export const CLUSTER_ORIGIN = `http://localhost:${CLUSTER_PORTS.proxy}`;
