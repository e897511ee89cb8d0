// Fixtures for the tests of every package that reads the portal's settings (not part of the portal's pages).
import type { Settings } from './contract/index.js';

/** The settings of the local portal (its account server on :3000, its own client); override what a test varies. */
export function testSettings(overrides: Partial<Settings> = {}): Settings {
  return {
    Domain: 'http://localhost:3000',
    ClientId: 'account-portal',
    HeaderLinks: {},
    FooterLinks: { sections: {}, policies: {} },
    SocialLinks: {},
    FlagBaseUrl: '/flags/4x3',
    AccountDataFrom: 'portal',
    ...overrides,
  };
}
