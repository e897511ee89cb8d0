/**
 * "This wasn't me" on an event of the activity, against each identity backend (issue 22): with no step-up, every
 * session of the account ends, the caller's too, and the holder gets a notice. Embedded: the event must be one of
 * the caller's own (the portal keeps them); Okta: the org ends the sessions with their OAuth tokens (DELETE
 * /api/v1/users/{id}/sessions?oauthTokens=true at the stand-in) and the account's "not before" refuses every access
 * token issued so far. The rest (another's event, the one transaction, bursts, the mailed link): test/not-me.test.ts.
 */
import { API_ERROR_CODES, apiCalls, pathOf } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { REPORTED_NOT_ME_SUBJECT } from '../../src/devices/not-me-mails.js';
import { useContractBackend } from './backend.js';

const backend = useContractBackend();

describe('"This wasn\'t me" on an event', () => {
  it("signs out every session of the account, the caller's too, with no step-up, and sends a notice", async () => {
    const b = backend();
    const ada = await b.newAccount();
    const other = await b.signIn(ada);
    const isFederated = (token: string) =>
      b.call('GET', pathOf(apiCalls.isFederated.path, { sub: ada.sub }), token);
    expect((await isFederated(other)).status).toBe(200);
    // Embedded: a sign-in of the account's own activity; Okta: an id of the org's System Log, as the page shows it.
    const [event] =
      b.kind === 'embedded' ? await b.app.storage.activity.list(ada.sub, { since: 0, limit: 1 }) : [];
    const eventId = event?.id ?? '0f8e8c2a-5d1b-11ef-8a6b-2b7584bf8d5a';
    // Okta's tokens are refused by whole seconds of their iat: the report happens in a later second.
    b.clock.advance(2000);
    const answer = await b.call('POST', pathOf(apiCalls.activityNotMe.path, { sub: ada.sub }), ada.token, {
      eventId,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ status: 'SIGNED_OUT' });
    expect((await isFederated(other)).status).toBe(401);
    expect((await isFederated(ada.token)).status).toBe(401);
    const notices = await b.app.storage.sql.all<{ subject: string }>(
      'SELECT subject FROM notifications WHERE user_id = ?',
      [ada.sub],
    );
    expect(notices.map((notice) => notice.subject)).toContain(REPORTED_NOT_ME_SUBJECT);
  });

  it("refuses what is not an event id (400); embedded: one that is not the caller's event (404), signing nobody out", async () => {
    const b = backend();
    const ada = await b.newAccount();
    const url = pathOf(apiCalls.activityNotMe.path, { sub: ada.sub });
    const malformed = await b.call('POST', url, ada.token, { eventId: '"; DROP' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: API_ERROR_CODES.invalidRequest });
    if (b.kind === 'embedded') {
      const unknown = await b.call('POST', url, ada.token, { eventId: 'AAAAAAAAAAAAAAAAAAAA' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ code: API_ERROR_CODES.notFound });
    }
    const isFederated = await b.call('GET', pathOf(apiCalls.isFederated.path, { sub: ada.sub }), ada.token);
    expect(isFederated.status).toBe(200);
  });
});
