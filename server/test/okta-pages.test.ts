/**
 * What the pages are told in Okta mode, so their texts stay true: turning a factor off removes it there (the
 * factors' details say `turnOff: 'removes'`), and "Confirm it's you" is a new sign-in, not the password (the 403
 * reauthentication_required says `proof: 'sign-in'`; the password check answers 409 no_local_password).
 */
import type { LightMyRequestResponse } from 'fastify';
import { apiPaths, errorResponseSchema, factorDetailsResponseSchema } from 'shared-auth/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTwice, type TestApp } from './helpers.js';
import { useOktaOrg } from './support/okta-org/vitest.js';
import { countUsers, oktaAuthorizationServer, startOktaPortal } from './support/okta-portal.js';

const PASSWORD = 'Correct-Horse-1';
const server = oktaAuthorizationServer();
const org = useOktaOrg({ jwks: server.jwks });
let t: TestApp;

beforeAll(async () => {
  t = await startOktaPortal(org());
});
afterAll(async () => {
  await t?.close();
});

let accounts = 0;
/** A user of the org; tokens of a sign-in `minutesAgo` minutes ago (auth_time). */
function newAccount() {
  accounts += 1;
  const login = `pages${accounts}@customer.example`;
  const user = org().addUser({
    profile: { login, email: login, firstName: 'Ada', lastName: 'Lovelace', countryCode: 'GB' },
    password: PASSWORD,
  });
  const account = { id: user.id, login, password: PASSWORD };
  return {
    id: user.id,
    signedIn: (minutesAgo: number) =>
      server.token(org(), account, { auth_time: Math.floor(Date.now() / 1000) - minutesAgo * 60 }),
  };
}

async function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: unknown; response: LightMyRequestResponse }> {
  const response = await t.app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  const parsed = response.statusCode === 200 ? parseTwice(response.body) : response.json<unknown>();
  return { status: response.statusCode, body: parsed, response };
}

describe('Okta mode tells the pages what it can do', () => {
  it("the factors' details say that turning a factor off removes it", async () => {
    const ada = newAccount();
    const token = await ada.signedIn(0);
    for (const factor of ['googleauth', 'email'] as const) {
      const details = await call('GET', apiPaths.multifactor(factor, ada.id, 'details'), token);
      expect(details).toMatchObject({ status: 200 });
      expect(details.body).toEqual({ enrolled: false, enrolledDate: null, turnOff: 'removes' });
      expect(factorDetailsResponseSchema.parse(details.body).turnOff).toBe('removes');
    }
    expect(await countUsers(t)).toBe(0);
  });

  it('"Confirm it\'s you" asks for a new sign-in (proof: sign-in), which the password check cannot give; a sign-in within 5 minutes can', async () => {
    const ada = newAccount();
    const stale = await ada.signedIn(10);
    for (const factor of ['googleauth', 'email'] as const) {
      const refused = await call('POST', apiPaths.multifactor(factor, ada.id, 'enroll'), stale, {});
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        error: "Confirm it's you: sign in again to turn on 2-step verification.",
        code: 'reauthentication_required',
        proof: 'sign-in',
      });
      expect(errorResponseSchema.parse(refused.body).proof).toBe('sign-in');
    }
    // The password cannot prove it in Okta mode: the page shows the sign-in-again view for this answer too.
    const confirm = await call('POST', apiPaths.reauthenticate(ada.id), stale, { password: PASSWORD });
    expect(confirm).toMatchObject({ status: 409, body: { code: 'no_local_password' } });

    // Signed in again (prompt=login, max_age=0 gives auth_time = now): the first factor may be set up.
    const fresh = await ada.signedIn(0);
    const enrolled = await call('POST', apiPaths.multifactor('googleauth', ada.id, 'enroll'), fresh, {});
    expect(enrolled.status).toBe(200);
    expect(await countUsers(t)).toBe(0);
  });
});
