/**
 * The Okta-mode tests' ports (3400-3410 are theirs). Apart from okta.ts so that playwright.config.ts can name the
 * origin without loading the org stand-in.
 */
export const OKTA_PORTS = {
  /** The portal (`node server/dist/server.js`) in Okta mode: PUBLIC_URL. */
  portal: 3400,
  remotes: {
    'remote-profile': 3401,
    'remote-password': 3402,
    'remote-security': 3403,
    'remote-activity': 3404,
  },
  /** The Okta org stand-in (Management API and the org's authorization server), run in the Playwright worker. */
  org: 3410,
} as const;

export const OKTA_PORTAL_ORIGIN = `http://localhost:${OKTA_PORTS.portal}`;
