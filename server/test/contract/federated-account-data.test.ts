/**
 * Devices & activity for a federated account, against each identity backend (issue 22): refused only where the
 * data is the portal's own provider's. Embedded: the sessions and events are the embedded provider's, so a
 * federated user gets 403 `federated_user` on every call and nothing is signed out. Okta: they are the org's, so a
 * federated user of the org reads activity and sessions, signs out everywhere and reports "This wasn't me" like
 * anyone. The settings tell the shell which it is (`AccountDataFrom`).
 */
import { API_ERROR_CODES, apiCalls, pathOf, settingsSchema } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { parseTwice } from '../helpers.js';
import { useContractBackend, type ContractAccount, type ContractBackend } from './backend.js';

const backend = useContractBackend();

const FEDERATED_REFUSAL = {
  error: 'Security settings are not available for federated users',
  code: API_ERROR_CODES.federatedUser,
};

const url = (call: { path: string }, account: ContractAccount) => pathOf(call.path, { sub: account.sub });

const isFederated = (b: ContractBackend, account: ContractAccount, token: string) =>
  b.call('GET', url(apiCalls.isFederated, account), token);

describe('Devices & activity for a federated account', () => {
  it("the settings say whose the data is: the portal's (embedded) or the org's (Okta)", async () => {
    const b = backend();
    const answer = await b.app.inject('/api/clientConfiguration/getSettings');
    expect(answer.statusCode).toBe(200);
    const settings = settingsSchema.parse(parseTwice(answer.body));
    expect(settings.AccountDataFrom).toBe(b.kind === 'embedded' ? 'portal' : 'org');
  });

  it('reads activity and sessions: embedded refuses (403 federated_user), Okta answers', async () => {
    const b = backend();
    const fed = await b.newAccount({ federated: true });
    const activity = await b.call('GET', `${url(apiCalls.activity, fed)}?limit=5`, fed.token);
    const sessions = await b.call('GET', url(apiCalls.sessions, fed), fed.token);
    if (b.kind === 'embedded') {
      for (const answer of [activity, sessions]) {
        expect(answer.status).toBe(403);
        expect(answer.body).toEqual(FEDERATED_REFUSAL);
      }
    } else {
      expect(activity.status, JSON.stringify(activity.body)).toBe(200);
      expect(() => apiCalls.activity.response.parse(activity.body)).not.toThrow();
      expect(sessions.status, JSON.stringify(sessions.body)).toBe(200);
      expect(apiCalls.sessions.response.parse(sessions.body).sessions[0]).toMatchObject({ current: true });
    }
  });

  it('signs out one other, the others, everywhere: embedded refuses each and signs nobody out; Okta does it', async () => {
    const b = backend();
    const fed = await b.newAccount({ federated: true });
    const other = await b.signIn(fed, { authTimeAgoMs: 5 * 60_000 });
    expect((await isFederated(b, fed, other)).status).toBe(200);
    // Okta's tokens are refused by whole seconds of their iat: the change happens in a later second.
    b.clock.advance(2000);
    const one = pathOf(apiCalls.sessionSignOut.path, { sub: fed.sub, id: 'AAAAAAAAAAAAAAAAAAAA' });
    if (b.kind === 'embedded') {
      for (const [method, path] of [
        ['DELETE', one],
        ['POST', url(apiCalls.sessionsSignOutOthers, fed)],
        ['POST', url(apiCalls.sessionsSignOutEverywhere, fed)],
      ] as const) {
        const answer = await b.call(method, path, fed.token);
        expect(answer.status, `${method} ${path}`).toBe(403);
        expect(answer.body, `${method} ${path}`).toEqual(FEDERATED_REFUSAL);
      }
      expect((await isFederated(b, fed, other)).status).toBe(200);
      expect((await isFederated(b, fed, fed.token)).status).toBe(200);
      return;
    }
    const others = await b.call('POST', url(apiCalls.sessionsSignOutOthers, fed), fed.token);
    expect(others.status, JSON.stringify(others.body)).toBe(200);
    expect((await isFederated(b, fed, other)).status).toBe(401);
    const everywhere = await b.call('POST', url(apiCalls.sessionsSignOutEverywhere, fed), fed.token);
    expect(everywhere.status, JSON.stringify(everywhere.body)).toBe(200);
    expect(everywhere.body).toEqual({ status: 'SIGNED_OUT' });
    expect((await isFederated(b, fed, fed.token)).status).toBe(401);
  });

  it('"This wasn\'t me": embedded refuses it and signs nobody out; Okta signs every session out', async () => {
    const b = backend();
    const fed = await b.newAccount({ federated: true });
    b.clock.advance(2000);
    const answer = await b.call('POST', url(apiCalls.activityNotMe, fed), fed.token, {
      eventId: b.kind === 'embedded' ? 'AAAAAAAAAAAAAAAAAAAA' : '0f8e8c2a-5d1b-11ef-8a6b-2b7584bf8d5a',
    });
    if (b.kind === 'embedded') {
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual(FEDERATED_REFUSAL);
      expect((await isFederated(b, fed, fed.token)).status).toBe(200);
    } else {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body).toEqual({ status: 'SIGNED_OUT' });
      expect((await isFederated(b, fed, fed.token)).status).toBe(401);
    }
  });

  it("a federated user reaches no other account's devices or activity (403 on either backend)", async () => {
    const b = backend();
    const fed = await b.newAccount({ federated: true });
    const victim = await b.newAccount();
    const one = pathOf(apiCalls.sessionSignOut.path, { sub: victim.sub, id: 'AAAAAAAAAAAAAAAAAAAA' });
    for (const [method, path, body] of [
      ['GET', url(apiCalls.activity, victim), undefined],
      ['GET', url(apiCalls.sessions, victim), undefined],
      ['DELETE', one, undefined],
      ['POST', url(apiCalls.sessionsSignOutOthers, victim), undefined],
      ['POST', url(apiCalls.sessionsSignOutEverywhere, victim), undefined],
      ['POST', url(apiCalls.activityNotMe, victim), { eventId: 'AAAAAAAAAAAAAAAAAAAA' }],
    ] as const) {
      const answer = await b.call(method, path, fed.token, body);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body, `${method} ${path}`).toMatchObject({ code: API_ERROR_CODES.forbiddenSub });
    }
    expect((await isFederated(b, victim, victim.token)).status).toBe(200);
  });
});
