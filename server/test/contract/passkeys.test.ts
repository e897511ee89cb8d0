/**
 * Passkeys through the API, against each identity backend. Embedded: available, the ceremonies answer (their whole
 * journeys and attacks: test/passkeys.test.ts). Okta (the contract suite's org has no OKTA_PASSKEY_RP_ID): available
 * through Okta's hosted enrolment, not renamable; the ceremony calls answer 409 passkeys_unavailable and nothing is
 * stored (the ceremony against the stand-in: test/okta-passkeys.test.ts).
 */
import { API_ERROR_CODES, apiCalls, pathOf } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { useContractBackend } from './backend.js';

const backend = useContractBackend();

describe('passkeys', () => {
  it('embedded: the ceremony; Okta without OKTA_PASSKEY_RP_ID: hosted enrolment, no ceremony, no rename', async () => {
    const b = backend();
    const ada = await b.newAccount();
    const sub = ada.sub;
    const list = await b.call('GET', pathOf(apiCalls.passkeys.path, { sub }), ada.token);
    expect(list.status).toBe(200);
    if (b.kind === 'embedded') {
      expect(list.body).toEqual({ available: true, canRename: true, enrolment: 'ceremony', passkeys: [] });
    } else {
      expect(list.body).toEqual({
        available: true,
        canRename: false,
        enrolment: 'hosted',
        hostedEnrolmentUrl: expect.stringMatching(/^https?:\/\//),
        passkeys: [],
      });
    }
    const others = [
      ['POST', pathOf(apiCalls.passkeyRegistrationOptions.path, { sub }), {}],
      ['POST', pathOf(apiCalls.passkeyRegistrationVerify.path, { sub }), { response: { id: 'abc' } }],
      ['PUT', pathOf(apiCalls.passkeyRename.path, { sub, id: 'pk1' }), { name: 'Laptop' }],
      ['POST', pathOf(apiCalls.stepUpPasskeyOptions.path, { sub }), {}],
      ['POST', pathOf(apiCalls.stepUpVerifyPasskey.path, { sub }), { response: { id: 'abc' } }],
    ] as const;
    for (const [method, url, body] of others) {
      const answer = await b.call(method, url, ada.token, body);
      if (b.kind === 'okta') {
        expect(answer, url).toMatchObject({
          status: 409,
          body: { code: API_ERROR_CODES.passkeysUnavailable },
        });
      } else {
        // Embedded: each answers for itself (no such passkey, no challenge, no passkey to step up with).
        expect(answer.status, url).toBeLessThan(500);
        expect(answer.body.code, url).not.toBe(API_ERROR_CODES.passkeysUnavailable);
      }
    }
    // Removing a passkey the holder does not have: 404 in both.
    const removed = await b.call(
      'DELETE',
      pathOf(apiCalls.passkeyRemove.path, { sub, id: 'pk1' }),
      ada.token,
      {},
    );
    expect(removed).toMatchObject({ status: 404, body: { code: API_ERROR_CODES.notFound } });
    if (b.kind === 'okta') {
      expect(await b.app.storage.sql.all('SELECT * FROM webauthn_challenges')).toEqual([]);
    }
  });
});
