/**
 * Activity through the API, against each identity backend (issue 22). Embedded: the account's own events, newest
 * first (a 2-step method added is one). Okta: the org keeps the account's events (its System Log, not read yet), so
 * the call answers 501 activity_unavailable with a text, never an empty list that would say "nothing happened",
 * and the portal keeps no event. The rest (every kind, transactions, retention, pages) is the embedded backend's
 * own: test/activity.test.ts.
 */
import { API_ERROR_CODES, apiCalls, pathOf } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { useContractBackend } from './backend.js';
import { setUpAuthenticator } from './support-factors.js';

const backend = useContractBackend();

describe('activity', () => {
  it("embedded: the account's events, newest first; Okta: 501 activity_unavailable and nothing kept", async () => {
    const b = backend();
    const ada = await b.newAccount();
    await setUpAuthenticator(b, ada);
    const answer = await b.call(
      'GET',
      `${pathOf(apiCalls.activity.path, { sub: ada.sub })}?limit=5`,
      ada.token,
    );
    if (b.kind === 'okta') {
      expect(answer.status).toBe(501);
      expect(answer.body).toEqual({
        error:
          "Your organization's sign-in service keeps this account's activity; it cannot be shown here yet.",
        code: API_ERROR_CODES.activityUnavailable,
      });
      expect(await b.app.storage.sql.all('SELECT * FROM activity_events')).toEqual([]);
      return;
    }
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const page = apiCalls.activity.response.parse(answer.body);
    expect(page.events[0]).toMatchObject({ kind: 'method-added', detail: 'googleAuth' });
    expect(page.events.length).toBeLessThanOrEqual(5);
  });
});
