/**
 * Activity through the API, against each identity backend (issue 22): the account's own events, newest first (a
 * 2-step method set up through the portal is one). Embedded: the portal's own events; Okta: the org's System Log
 * (the stand-in records the activation as Okta would), and the portal keeps no event. Either way another account's
 * sub is refused and a `before` that is not a cursor of this mode is a 400. The rest is each backend's own:
 * test/activity.test.ts (every kind, transactions, retention, pages) and test/okta-activity.test.ts (the System
 * Log's reads, paging, 501 and 502).
 */
import { API_ERROR_CODES, apiCalls, pathOf } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { useContractBackend } from './backend.js';
import { setUpAuthenticator } from './support-factors.js';

const backend = useContractBackend();

const activityUrl = (sub: string, query: string) => `${pathOf(apiCalls.activity.path, { sub })}?${query}`;

describe('activity', () => {
  it("is the account's events, newest first: a 2-step method set up is the newest", async () => {
    const b = backend();
    const ada = await b.newAccount();
    await setUpAuthenticator(b, ada);
    const answer = await b.call('GET', activityUrl(ada.sub, 'limit=5'), ada.token);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const page = apiCalls.activity.response.parse(answer.body);
    expect(page.events[0]).toMatchObject({ kind: 'method-added', detail: 'googleAuth' });
    expect(page.events.length).toBeLessThanOrEqual(5);
    const times = page.events.map((event) => event.at);
    expect([...times].sort().reverse()).toEqual(times);
    if (b.kind === 'okta') {
      expect(await b.app.storage.sql.all('SELECT * FROM activity_events')).toEqual([]);
    }
  });

  it("refuses another account's sub, and a cursor of the other mode or none", async () => {
    const b = backend();
    const ada = await b.newAccount();
    const bob = await b.newAccount();
    const stolen = await b.call('GET', activityUrl(bob.sub, 'limit=5'), ada.token);
    expect(stolen.status).toBe(403);
    const otherMode =
      b.kind === 'okta' ? `1767225600000_${'A'.repeat(20)}` : `o${Date.now()}.1767225600000_1`;
    for (const before of [otherMode, 'yesterday']) {
      const answer = await b.call(
        'GET',
        activityUrl(ada.sub, `before=${encodeURIComponent(before)}`),
        ada.token,
      );
      expect(answer.status, before).toBe(400);
      expect(answer.body).toEqual({
        error: 'before must be the next of an earlier page',
        code: API_ERROR_CODES.invalidRequest,
      });
    }
  });
});
