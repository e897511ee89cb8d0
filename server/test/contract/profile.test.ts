/**
 * The profile through the API, the same tests against each identity backend (embedded and Okta): isfederated from
 * the source, a partial update whose answer and source hold the new values and keep the others, the refusals of a
 * bad body (400 with a clear `error`, never a 500) and of a federated user. What only one backend has stays with
 * it: the next ID token of the embedded provider (api.test.ts), Okta's partial POST, its federated attribute and
 * its per-call cache (okta-backend.test.ts).
 */
import { API_ERROR_CODES, apiPaths } from 'shared-auth/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { useContractBackend, type ContractAccount, type ContractBackend } from './backend.js';

const backend = useContractBackend();

const update = (b: ContractBackend, account: ContractAccount, body: unknown) =>
  b.call('PUT', apiPaths.profileUpdate(account.sub), account.token, body);

describe('GET profile/{sub}/isfederated', () => {
  it("answers the source's flag: false for a local user, true for a federated one", async () => {
    const b = backend();
    const ada = await b.newAccount();
    const sam = await b.newAccount({ federated: true });
    expect(await b.call('GET', apiPaths.isFederated(ada.sub), ada.token)).toMatchObject({
      status: 200,
      body: { isFederated: false },
    });
    const federated = await b.call('GET', apiPaths.isFederated(sam.sub), sam.token);
    expect(federated).toMatchObject({ status: 200, body: { isFederated: true } });
    // The spec's shape exactly: JSON text holding the object.
    expect(federated.headers['content-type']).toMatch(/^application\/json/);
    expect(federated.body).toEqual({ isFederated: true });
  });
});

describe('PUT profile/{sub}/update', () => {
  it('saves only the fields sent: the answer and the source hold the new values, the others are kept', async () => {
    const b = backend();
    const ada = await b.newAccount({ profile: { firstName: 'Ada', lastName: 'Lovelace', country: 'GB' } });
    const saved = await update(b, ada, { firstName: '  Augusta ', country: 'FR' });
    expect(saved.status).toBe(200);
    // Names are trimmed; the answer is the stored profile, so the page shows what was kept.
    expect(saved.body).toEqual({
      sub: ada.sub,
      email: ada.email,
      firstName: 'Augusta',
      lastName: 'Lovelace',
      country: 'FR',
    });
    expect(await b.profileAtSource(ada)).toEqual({
      firstName: 'Augusta',
      lastName: 'Lovelace',
      country: 'FR',
      email: ada.email,
    });

    // One field alone: the other two stay as the last update left them.
    const lastOnly = await update(b, ada, { lastName: 'King' });
    expect(lastOnly.body).toMatchObject({ firstName: 'Augusta', lastName: 'King', country: 'FR' });
    expect(await b.profileAtSource(ada)).toMatchObject({
      firstName: 'Augusta',
      lastName: 'King',
      country: 'FR',
    });
    const all = await update(b, ada, { firstName: 'Ada', lastName: 'Lovelace', country: 'GB' });
    expect(all.body).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', country: 'GB' });
  });

  it('accepts names of exactly 50 characters with real-world punctuation and accents', async () => {
    const b = backend();
    const ada = await b.newAccount();
    const name = `O'Brien-${'é'.repeat(42)}`;
    expect([...name]).toHaveLength(50);
    const saved = await update(b, ada, { lastName: name, firstName: 'Zoë Ann' });
    expect(saved).toMatchObject({ status: 200, body: { firstName: 'Zoë Ann', lastName: name } });
    expect(await b.profileAtSource(ada)).toMatchObject({ firstName: 'Zoë Ann', lastName: name });
  });

  describe('bad bodies', () => {
    // One account for the refusals: none of them changes it (checked each time).
    let ada: ContractAccount;
    beforeAll(async () => {
      ada = await backend().newAccount();
    });

    it.each([
      ['email', { email: 'new@example.com' }, 'Email cannot be changed'],
      ['email with other fields', { firstName: 'A', email: 'new@example.com' }, 'Email cannot be changed'],
      ['an unknown key', { nickname: 'Al' }, 'Unknown field: nickname'],
      ['an empty object', {}, 'Nothing to update'],
      ['an empty first name', { firstName: '' }, 'First name must not be empty'],
      ['a blank last name', { lastName: '   ' }, 'Last name must not be empty'],
      ['51 characters', { firstName: 'x'.repeat(51) }, 'First name must be at most 50 characters'],
      ['a control character', { lastName: 'Lid\u0007dell' }, 'Last name must not contain control characters'],
      ['a newline', { firstName: 'Al\nice' }, 'First name must not contain control characters'],
      ['a lone surrogate', { firstName: 'Al\ud800' }, 'First name must not contain broken characters'],
      ['an unknown country', { country: 'XX' }, 'Country must be one of the listed countries'],
      ['a lower-case country', { country: 'gb' }, 'Country must be one of the listed countries'],
      ['a country of the wrong type', { country: 44 }, 'Country must be a two-letter country code'],
      ['a name of the wrong type', { firstName: 42 }, 'First name must be text'],
      ['null', null, 'The body must be a JSON object'],
      ['an array', [{ firstName: 'A' }], 'The body must be a JSON object'],
      ['a string', 'Alice', 'The body must be a JSON object'],
    ])('refuses %s with 400 and a clear error; the source is unchanged', async (_name, body, error) => {
      const b = backend();
      const refused = await update(b, ada, body);
      expect(refused).toMatchObject({
        status: 400,
        body: { error, code: API_ERROR_CODES.invalidRequest },
      });
      expect(await b.profileAtSource(ada)).toEqual({
        firstName: 'Ada',
        lastName: 'Lovelace',
        country: 'GB',
        email: ada.email,
      });
    });
  });

  it("refuses a federated user with the server's text (403 federated_user); the source is unchanged", async () => {
    const b = backend();
    const sam = await b.newAccount({ federated: true, profile: { firstName: 'Sam' } });
    const refused = await update(b, sam, { firstName: 'Samuel' });
    expect(refused).toMatchObject({
      status: 403,
      body: { error: 'Federated users cannot edit their profile', code: API_ERROR_CODES.federatedUser },
    });
    expect((await b.profileAtSource(sam)).firstName).toBe('Sam');
  });
});
