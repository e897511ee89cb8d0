import {
  canSavePasswordChange,
  emailParts,
  failedPasswordRules,
  passwordLength,
  passwordRuleResults,
  PASSWORD_RULE_IDS,
  PASSWORD_RULE_MESSAGES,
  sharedEmailRun,
  type PasswordRuleId,
} from './password-policy.js';
import {
  passwordChangeRequestSchema,
  PASSWORD_CHANGE_ERRORS,
  PASSWORD_RULE_SERVER_ERRORS,
} from './password.js';

const EMAIL = 'alice@example.com';
const CURRENT = 'Wonderland-42';

interface Case {
  name: string;
  password: string;
  email?: string;
  current?: string;
  fails: PasswordRuleId[];
}

// A password of exactly n characters that meets every other rule: 'Zz9' then 'q' padding ("q" is in no email below).
const ofLength = (n: number) => `Zz9${'q'.repeat(n - 3)}`;

const CASES: Case[] = [
  // Length, counted in characters.
  { name: 'a typical strong password', password: 'Tumbling-Down-7', fails: [] },
  { name: '7 characters is too short', password: ofLength(7), fails: ['length'] },
  { name: 'exactly 8 characters', password: ofLength(8), fails: [] },
  { name: 'exactly 72 characters', password: ofLength(72), fails: [] },
  { name: '73 characters is too long', password: ofLength(73), fails: ['length'] },
  {
    name: '72 emoji-padded characters count as 72, not 141 UTF-16 units',
    password: `Zz9${'😀'.repeat(69)}`,
    fails: [],
  },
  { name: '7 characters with 2 astral ones stay too short', password: 'Zz9😀😀qq', fails: ['length'] },
  { name: 'the empty password meets no rule', password: '', fails: [...PASSWORD_RULE_IDS] },

  // Character classes.
  { name: 'no number', password: 'Tumbling-Down', fails: ['number'] },
  { name: 'no lowercase letter', password: 'TUMBLING-DOWN-7', fails: ['lowercase'] },
  { name: 'no uppercase letter', password: 'tumbling-down-7', fails: ['uppercase'] },
  { name: 'only digits and symbols', password: '12345678-!?', fails: ['lowercase', 'uppercase'] },
  { name: 'non-ASCII lowercase counts (é, ß)', password: 'ÉTÉ-HIVER-7ß', fails: [] },
  { name: 'non-ASCII uppercase counts (Ж)', password: 'жжжжжж-Ж-7', fails: [] },
  { name: 'Greek letters of both cases', password: 'Ωμέγα-2024', fails: [] },
  { name: 'titlecase ǅ counts as uppercase', password: 'ǅungla-99x', fails: [] },
  {
    name: 'caseless letters (CJK) count as neither',
    password: '密码密码密码-7',
    fails: ['lowercase', 'uppercase'],
  },
  { name: 'digits of other scripts count as numbers (٣)', password: 'Tumbling-٣-Down', fails: [] },
  { name: 'a superscript ² is not a decimal digit', password: 'Tumbling-Down²', fails: ['number'] },

  // Email parts: local part runs and the first domain label, case-insensitive.
  { name: 'the local part at the start of a run', password: 'Ali-Tumbling-7', fails: ['emailPart'] },
  { name: 'the local part at the end of a run', password: 'Tumbling-ICE-7', fails: ['emailPart'] },
  { name: 'a run from the middle of the local part', password: 'xLIcx-Tumbling-7', fails: ['emailPart'] },
  { name: '2 characters of a part are allowed', password: 'Al-Tumbling-7', fails: [] },
  { name: 'the first domain label', password: 'Tumbling-Xam-7', fails: ['emailPart'] },
  { name: 'the top-level domain is not a part', password: 'Tumbling-Com-7', fails: [] },
  {
    name: 'several dots: each run of the local part counts',
    email: 'mary.ann.o-neil_jr#x@example.org',
    password: 'Wonder-NEI-7',
    fails: ['emailPart'],
  },
  {
    name: 'several dots: a run spanning a separator does not count',
    email: 'mary.ann@example.org',
    password: 'Tumbling-YAN-7',
    fails: [],
  },
  {
    name: 'short runs (jr, x) are ignored',
    email: 'mary.ann.o-neil_jr#x@example.org',
    password: 'Tumbling-jr-x-7',
    fails: [],
  },
  {
    name: 'subdomains: only the first label counts, at its end',
    email: 'ops@mail.eu.example.co.uk',
    password: 'Tumbling-AIL-7',
    fails: ['emailPart'],
  },
  {
    name: 'subdomains: later labels do not count',
    email: 'ops@mail.eu.example.co.uk',
    password: 'Tumbling-Example-7',
    fails: [],
  },
  {
    name: 'a first domain label with a hyphen is cut into runs',
    email: 'zed@big-corp.example',
    password: 'Tumbling-Orp-7',
    fails: ['emailPart'],
  },
  {
    name: 'a + does not split the local part: its runs span it',
    email: 'ada+news@example.org',
    password: 'Tumbling-A+N-7',
    fails: ['emailPart'],
  },
  {
    name: 'a + tag is part of the local part',
    email: 'ada+news@example.org',
    password: 'Tumbling-NEW-7',
    fails: ['emailPart'],
  },
  {
    name: 'mixed case in the email and the password',
    email: 'Bob.SMITH@Example.ORG',
    password: 'Tumbling-sMiT-7',
    fails: ['emailPart'],
  },
  {
    name: 'non-ASCII email parts compare case-insensitively',
    email: 'éloïse@exemple.fr',
    password: 'ÉLOtu-Mbling-7',
    fails: ['emailPart'],
  },

  // The current password.
  { name: 'the current password again', password: CURRENT, fails: ['notCurrent'] },
  { name: 'the current password in another case is different', password: 'WONDERLAND-42x', fails: [] },
  {
    name: 'several failures at once',
    password: 'alice',
    fails: ['length', 'number', 'uppercase', 'emailPart'],
  },
];

describe('password policy', () => {
  it.each(CASES)('$name', ({ password, email = EMAIL, current = CURRENT, fails }) => {
    const failed = failedPasswordRules({ password, email, currentPassword: current });
    // Always in checklist order.
    expect(failed).toEqual(PASSWORD_RULE_IDS.filter((id) => fails.includes(id)));
  });

  it('reports every rule by id, met or not', () => {
    expect(passwordRuleResults({ password: 'Tumbling', email: EMAIL, currentPassword: CURRENT })).toEqual({
      length: true,
      number: false,
      lowercase: true,
      uppercase: true,
      emailPart: true,
      notCurrent: true,
    });
  });

  it('has the spec text of every rule', () => {
    expect(PASSWORD_RULE_IDS.map((id) => PASSWORD_RULE_MESSAGES[id])).toEqual([
      'At least 8 characters',
      'At least 1 number',
      'At least 1 lowercase letter',
      'At least 1 uppercase letter',
      'Does not contains part of email',
      'Must not match current password field',
    ]);
    for (const id of PASSWORD_RULE_IDS) expect(PASSWORD_RULE_SERVER_ERRORS[id]).toMatch(/^The new password /);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(passwordLength('😀é')).toBe(2);
    expect('😀é'.length).toBe(3);
  });

  it('splits the email into the runs that count', () => {
    expect(emailParts('Mary.Ann.O-Neil_Jr#x+tag@Mail.Example.co.uk')).toEqual([
      'mary',
      'ann',
      'neil',
      'x+tag',
      'mail',
    ]);
    expect(emailParts('ab@cd.example')).toEqual([]);
    expect(emailParts('')).toEqual([]);
    expect(emailParts('no-at-sign')).toEqual(['sign']);
  });

  it('names the shared run', () => {
    expect(sharedEmailRun('xxNEWSxx', 'ada+news@example.org')).toBe('new');
    expect(sharedEmailRun('Tumbling-7', 'ada+news@example.org')).toBeUndefined();
  });
});

describe('canSavePasswordChange', () => {
  const ok = { currentPassword: CURRENT, newPassword: 'Tumbling-Down-7', confirmPassword: 'Tumbling-Down-7' };

  it.each([
    ['all fields valid', true, ok],
    ['current empty', false, { ...ok, currentPassword: '' }],
    ['new empty', false, { ...ok, newPassword: '', confirmPassword: '' }],
    ['confirm empty', false, { ...ok, confirmPassword: '' }],
    ['confirm differs', false, { ...ok, confirmPassword: 'Tumbling-Down-8' }],
    ['a rule fails', false, { ...ok, newPassword: 'tumbling-down-7', confirmPassword: 'tumbling-down-7' }],
    ['new equals current', false, { ...ok, newPassword: CURRENT, confirmPassword: CURRENT }],
  ])('%s → Save enabled: %s', (_name, expected, fields) => {
    expect(canSavePasswordChange(fields, EMAIL)).toBe(expected);
  });
});

describe('passwordChangeRequestSchema', () => {
  it('accepts OldPassword and NewPassword', () => {
    expect(passwordChangeRequestSchema.parse({ OldPassword: 'a', NewPassword: 'b' })).toEqual({
      OldPassword: 'a',
      NewPassword: 'b',
    });
  });

  it.each([
    ['no OldPassword', { NewPassword: 'x' }, 'Current password is a required field'],
    ['an empty OldPassword', { OldPassword: '', NewPassword: 'x' }, 'Current password is a required field'],
    ['no NewPassword', { OldPassword: 'x' }, 'The new password is a required field'],
    ['a number as OldPassword', { OldPassword: 1, NewPassword: 'x' }, 'OldPassword must be text'],
    [
      'an unknown field',
      { OldPassword: 'x', NewPassword: 'y', oldPassword: 'z' },
      'Unknown field: oldPassword',
    ],
    ['an array', [], 'The body must be a JSON object with OldPassword and NewPassword'],
    [
      'a NewPassword of 1025 characters',
      { OldPassword: 'x', NewPassword: 'y'.repeat(1025) },
      'NewPassword is too long',
    ],
  ])('refuses %s with a clear message', (_name, body, message) => {
    const result = passwordChangeRequestSchema.safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(message);
  });

  it('says when to try again after too many wrong current passwords', () => {
    expect(PASSWORD_CHANGE_ERRORS.throttled(14 * 60 + 1)).toBe(
      'Too many wrong current passwords. Try again in 15 minutes.',
    );
    expect(PASSWORD_CHANGE_ERRORS.throttled(60)).toBe(
      'Too many wrong current passwords. Try again in 1 minute.',
    );
    expect(PASSWORD_CHANGE_ERRORS.throttled(42.2)).toBe(
      'Too many wrong current passwords. Try again in 43 seconds.',
    );
  });
});
