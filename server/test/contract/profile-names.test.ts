/**
 * Issue 18: names with invisible characters. A right-to-left override, an isolate or a zero-width character can
 * make a name read as something else in mails and pages ("Bob\u202Eecila" shows as "Bobalice"). The profile update
 * refuses them with 400 and a plain message, against each identity backend (embedded and Okta: the server decides,
 * with the contract's schema that the page shares), while letters of every script, combining marks, spaces,
 * apostrophes and hyphens keep working.
 */
import { API_ERROR_CODES, apiPaths } from 'shared-auth/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { useContractBackend, type ContractAccount } from './backend.js';

const backend = useContractBackend();

const hidden = (label: string) =>
  `${label} contains invisible characters, such as text-direction marks. Type your name again without them.`;

describe('PUT profile/{sub}/update: invisible characters in names', () => {
  let ada: ContractAccount;
  beforeAll(async () => {
    ada = await backend().newAccount();
  });

  it.each([
    ['a right-to-left override (U+202E)', 'lastName', 'Bob\u202Eecila'],
    ['a left-to-right override (U+202D)', 'firstName', '\u202DAda'],
    ['a right-to-left embedding (U+202B)', 'firstName', 'A\u202Bda'],
    ['a pop directional formatting (U+202C)', 'lastName', 'Love\u202Clace'],
    ['a left-to-right isolate (U+2066)', 'lastName', 'Love\u2066lace'],
    ['a right-to-left isolate (U+2067)', 'firstName', 'Ada\u2067'],
    ['a first strong isolate (U+2068)', 'firstName', '\u2068Ada'],
    ['a pop directional isolate (U+2069)', 'lastName', 'Lovelace\u2069'],
    ['a right-to-left mark (U+200F)', 'lastName', 'Love\u200Flace'],
    ['an Arabic letter mark (U+061C)', 'lastName', 'Love\u061Clace'],
    ['a zero-width space (U+200B)', 'firstName', 'A\u200Bda'],
    ['a zero-width non-joiner (U+200C)', 'firstName', 'A\u200Cda'],
    ['a zero-width joiner (U+200D)', 'firstName', 'A\u200Dda'],
    ['a word joiner (U+2060)', 'lastName', 'Love\u2060lace'],
    ['a byte order mark (U+FEFF) inside the name', 'firstName', 'A\uFEFFda'],
    ['a soft hyphen (U+00AD)', 'lastName', 'Love\u00ADlace'],
    ['a line separator (U+2028)', 'lastName', 'Love\u2028lace'],
    ['a Hangul filler (U+3164)', 'firstName', '\u3164'],
    ['a tag character (U+E0041)', 'firstName', 'Ada\u{E0041}'],
  ])('refuses %s with 400 and a plain message; the source is unchanged', async (_what, field, value) => {
    const b = backend();
    const refused = await b.call('PUT', apiPaths.profileUpdate(ada.sub), ada.token, { [field]: value });
    expect(refused).toMatchObject({
      status: 400,
      body: {
        error: hidden(field === 'firstName' ? 'First name' : 'Last name'),
        code: API_ERROR_CODES.invalidRequest,
      },
    });
    expect(await b.profileAtSource(ada)).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
  });

  it.each([
    ['an apostrophe and a hyphen', "O'Brien-Smith", 'Zoë'],
    ['accents, precomposed and combining', 'José', 'Zoe\u0308 Mary-Ann'],
    ['Chinese', '李', '小龍'],
    ['Arabic (right-to-left by itself, no marks needed)', 'محمد', 'عبد الله'],
    ['Devanagari with combining vowel signs', 'प्रिया', 'शर्मा'],
    ['Hebrew', 'דוד', 'כהן'],
  ])('keeps %s working', async (_what, firstName, lastName) => {
    const b = backend();
    const account = await b.newAccount();
    const saved = await b.call('PUT', apiPaths.profileUpdate(account.sub), account.token, {
      firstName,
      lastName,
    });
    expect(saved).toMatchObject({ status: 200, body: { firstName, lastName } });
    expect(await b.profileAtSource(account)).toMatchObject({ firstName, lastName });
  });
});
