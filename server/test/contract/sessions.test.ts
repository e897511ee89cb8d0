/**
 * Devices through the API, against each identity backend (issue 22). Embedded: the portal's provider keeps the
 * sessions, listed with the caller's first. Okta: the org keeps them and its API lists none, so the list (and
 * signing out one or the others) answers 501 sessions_unavailable with a text, never an empty list; "sign out
 * everywhere" works on both, under step-up, and every access token of the account is refused from the next call.
 * The rest (descriptions, last active, one and the others, the rows' life) is the embedded backend's own:
 * test/devices.test.ts.
 */
import { API_ERROR_CODES, apiCalls, pathOf } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { useContractBackend } from './backend.js';
import { setUpAuthenticator } from './support-factors.js';

const backend = useContractBackend();

const SESSIONS_UNAVAILABLE =
  "Your organization's sign-in service keeps this account's sessions; they cannot be listed or signed out one by one here. You can sign out everywhere.";

describe('devices', () => {
  it("embedded: the account's live sessions, this one first; Okta: 501 sessions_unavailable", async () => {
    const b = backend();
    const ada = await b.newAccount();
    await b.signIn(ada);
    const listUrl = pathOf(apiCalls.sessions.path, { sub: ada.sub });
    const answer = await b.call('GET', listUrl, ada.token);
    const others = await b.call(
      'POST',
      pathOf(apiCalls.sessionsSignOutOthers.path, { sub: ada.sub }),
      ada.token,
    );
    if (b.kind !== 'embedded') {
      for (const refused of [answer, others]) {
        expect(refused.status).toBe(501);
        expect(refused.body).toEqual({
          error: SESSIONS_UNAVAILABLE,
          code: API_ERROR_CODES.sessionsUnavailable,
        });
      }
      expect(await b.app.storage.sql.all('SELECT * FROM account_sessions')).toEqual([]);
      return;
    }
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const { sessions } = apiCalls.sessions.response.parse(answer.body);
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    expect(sessions[0]).toMatchObject({ current: true });
    expect(sessions.slice(1).every((session) => !session.current)).toBe(true);
    expect(others.status).toBe(200);
  });

  it('sign out everywhere, under step-up: every access token of the account is refused from the next call', async () => {
    const b = backend();
    const ada = await b.newAccount();
    // Setting up a factor grants this session step-up (and, embedded, renews its token).
    await setUpAuthenticator(b, ada);
    const other = await b.signIn(ada);
    const isFederated = (token: string) =>
      b.call('GET', pathOf(apiCalls.isFederated.path, { sub: ada.sub }), token);
    expect((await isFederated(other)).status).toBe(200);
    // Okta's tokens are refused by whole seconds of their iat: the change happens in a later second.
    b.clock.advance(2000);
    const answer = await b.call(
      'POST',
      pathOf(apiCalls.sessionsSignOutEverywhere.path, { sub: ada.sub }),
      ada.token,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ status: 'SIGNED_OUT' });
    expect((await isFederated(other)).status).toBe(401);
    expect((await isFederated(ada.token)).status).toBe(401);
  });
});
