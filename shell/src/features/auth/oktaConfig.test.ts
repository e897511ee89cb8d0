import type { Settings } from 'shared-auth';
import { oktaOptions } from './oktaConfig.js';

const settings: Settings = {
  Domain: 'https://example.okta.com',
  ClientId: '0oa1example',
  HeaderLinks: {},
  FooterLinks: { sections: {}, policies: {} },
  SocialLinks: {},
  FlagBaseUrl: '/flags/4x3',
};

describe('oktaOptions', () => {
  it('follows the spec: issuer under /oauth2/default, callback on the origin, the four scopes', () => {
    expect(oktaOptions(settings, 'https://portal.example.com')).toMatchObject({
      issuer: 'https://example.okta.com/oauth2/default',
      clientId: '0oa1example',
      redirectUri: 'https://portal.example.com/login/callback',
      scopes: ['openid', 'profile', 'email', 'phone'],
      cookies: { secure: true },
    });
  });

  it('keeps cookies usable on a plain-http development origin', () => {
    expect(oktaOptions(settings, 'http://localhost:3000').cookies).toEqual({ secure: false });
  });
});
