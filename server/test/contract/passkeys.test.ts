/**
 * Passkeys through the API, against each identity backend. Embedded: available, the ceremonies answer (their whole
 * journeys and attacks: test/passkeys.test.ts). Okta: not available yet (the portal does not speak to Okta's
 * WebAuthn factor): the list says so and is empty, every other passkey call answers 409 passkeys_unavailable, and
 * nothing is stored.
 */
import { API_ERROR_CODES, apiCalls, pathOf } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { useContractBackend } from './backend.js';

const backend = useContractBackend();

const UNAVAILABLE = {
  error: "Passkeys are not available here yet: your organization's sign-in manages your security keys.",
  code: API_ERROR_CODES.passkeysUnavailable,
};

describe('passkeys', () => {
  it('embedded: listed as available; Okta: unavailable, every other call 409 passkeys_unavailable', async () => {
    const b = backend();
    const ada = await b.newAccount();
    const sub = ada.sub;
    const list = await b.call('GET', pathOf(apiCalls.passkeys.path, { sub }), ada.token);
    expect(list.status).toBe(200);
    expect(list.body).toEqual(
      b.kind === 'embedded'
        ? { available: true, canRename: true, enrolment: 'ceremony', passkeys: [] }
        : { available: false, canRename: false, enrolment: 'ceremony', passkeys: [] },
    );
    const others = [
      ['POST', pathOf(apiCalls.passkeyRegistrationOptions.path, { sub }), {}],
      ['POST', pathOf(apiCalls.passkeyRegistrationVerify.path, { sub }), { response: { id: 'abc' } }],
      ['PUT', pathOf(apiCalls.passkeyRename.path, { sub, id: 'pk1' }), { name: 'Laptop' }],
      ['DELETE', pathOf(apiCalls.passkeyRemove.path, { sub, id: 'pk1' }), {}],
      ['POST', pathOf(apiCalls.stepUpPasskeyOptions.path, { sub }), {}],
      ['POST', pathOf(apiCalls.stepUpVerifyPasskey.path, { sub }), { response: { id: 'abc' } }],
    ] as const;
    for (const [method, url, body] of others) {
      const answer = await b.call(method, url, ada.token, body);
      if (b.kind === 'okta') {
        expect(answer, url).toMatchObject({ status: 409, body: UNAVAILABLE });
      } else {
        // Embedded: each answers for itself (no such passkey, no challenge, no passkey to step up with).
        expect(answer.status, url).toBeLessThan(500);
        expect(answer.body.code, url).not.toBe(API_ERROR_CODES.passkeysUnavailable);
      }
    }
    if (b.kind === 'okta') {
      expect(await b.app.storage.sql.all('SELECT * FROM webauthn_challenges')).toEqual([]);
    }
  });
});
