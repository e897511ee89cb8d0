import type { OktaAuth } from '@okta/okta-auth-js/core';
import { renewUserClaims } from './renewUserClaims.js';

function fakeOktaAuth(renewTokens: () => Promise<unknown>) {
  return {
    token: { renewTokens: jest.fn(renewTokens) },
    tokenManager: { setTokens: jest.fn(), renew: jest.fn(), remove: jest.fn() },
  };
}

describe('renewUserClaims', () => {
  it('stores the renewed tokens', async () => {
    const tokens = { idToken: { idToken: 'new-id' }, accessToken: { accessToken: 'new-access' } };
    const oktaAuth = fakeOktaAuth(() => Promise.resolve(tokens));
    await renewUserClaims(oktaAuth as unknown as OktaAuth);
    expect(oktaAuth.tokenManager.setTokens).toHaveBeenCalledWith(tokens);
  });

  it('keeps the stored tokens (the user stays signed in) when the identity provider cannot be reached', async () => {
    const oktaAuth = fakeOktaAuth(() => Promise.reject(new TypeError('Failed to fetch')));
    await expect(renewUserClaims(oktaAuth as unknown as OktaAuth)).rejects.toThrow('Failed to fetch');
    expect(oktaAuth.tokenManager.setTokens).not.toHaveBeenCalled();
    expect(oktaAuth.tokenManager.remove).not.toHaveBeenCalled();
    expect(oktaAuth.tokenManager.renew).not.toHaveBeenCalled();
  });
});
