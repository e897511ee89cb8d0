import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
/** Must match playwright.config.ts: the server of the run keeps its data here. */
export const E2E_DATA_DIR = path.join(REPO_ROOT, 'data', 'e2e');
/** Ports where a test may start a remote host of its own; the portal trusts them (CSP, CORS). One per worker. */
export const TEST_HOST_PORTS = [3011, 3012, 3013, 3014];
/** Port of the releases test's own portal: the suite's remote hosts let it load their files with CORS. */
export const RELEASES_PORTAL_PORT = 3021;
/** Port of the durability test's own server (it kills that one with SIGKILL, never the suite's :3000). */
export const DURABILITY_PORT = 3020;
