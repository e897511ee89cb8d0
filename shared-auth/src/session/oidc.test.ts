import { testSettings } from '../testing.js';
import { oidcOptions } from './oidc.js';

const settings = testSettings({ Domain: 'https://example.okta.com', ClientId: '0oa1example' });

describe('oidcOptions', () => {
  it('follows the spec: issuer under /oauth2/default, callback on the origin, the four scopes', () => {
    expect(oidcOptions(settings, 'https://portal.example.com')).toEqual({
      issuer: 'https://example.okta.com/oauth2/default',
      clientId: '0oa1example',
      redirectUri: 'https://portal.example.com/login/callback',
      postLogoutRedirectUri: 'https://portal.example.com/',
      scopes: ['openid', 'profile', 'email', 'phone'],
      pkce: true,
      cookies: { secure: true },
    });
  });

  it('keeps cookies usable on a plain-http development origin', () => {
    expect(oidcOptions(settings, 'http://localhost:3001').cookies).toEqual({ secure: false });
  });
});
