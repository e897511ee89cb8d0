/**
 * The password change through the API, the same tests against each identity backend (embedded and Okta): a right
 * current password (the source then refuses the old one and accepts the new), a wrong one, the portal's own policy
 * checked first (refused without asking the source), the source's own policy text, the refusals of a bad body or a
 * federated user, the generic text for the unforeseen, and the throttle of wrong current passwords. What only one
 * backend does stays with it: the embedded argon2 hash, its Server-Timing, the other sessions it ends and the
 * count surviving a restart (password.test.ts); Okta's requests (okta-backend.test.ts).
 */
import {
  API_ERROR_CODES,
  apiPaths,
  PASSWORD_CHANGE_ERRORS,
  PASSWORD_CHANGE_GENERIC_ERROR,
  PASSWORD_RULE_SERVER_ERRORS,
  type PasswordRuleId,
} from 'shared-auth/contract';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { PASSWORD_CHANGE_LIMIT } from '../../src/throttles/limits.js';
import { useContractBackend, type ContractAccount, type ContractBackend } from './backend.js';

const backend = useContractBackend();

/** Meets the portal's rules and an org policy asking for a symbol. */
const NEW_PASSWORD = 'Tumbling-Down-7!';
const CHANGED = 'Your F5 account password was changed';
const PAUSED = 'Password changes on your F5 account are paused after wrong passwords';

const change = (b: ContractBackend, account: ContractAccount, body: unknown) =>
  b.call('PUT', apiPaths.passwordChange(account.sub), account.token, body);

/** The notices queued for the account, by subject (the portal's own, whichever backend holds the account). */
async function notices(b: ContractBackend, account: ContractAccount): Promise<string[]> {
  const rows = await b.app.storage.sql.all<{ subject: string }>(
    'SELECT subject FROM notifications WHERE user_id = ? ORDER BY id',
    [account.sub],
  );
  return rows.map((row) => row.subject);
}

describe('a change with the right current password', () => {
  it('answers changed; the source accepts the new password and refuses the old one; the holder is told', async () => {
    const b = backend();
    const ada = await b.newAccount();
    const changed = await change(b, ada, { OldPassword: ada.password, NewPassword: NEW_PASSWORD });
    expect(changed.status).toBe(200);
    expect(changed.headers['content-type']).toMatch(/^application\/json/);
    expect(changed.body).toEqual({ status: 'changed' });
    expect(await b.passwordAccepted(ada, NEW_PASSWORD)).toBe(true);
    expect(await b.passwordAccepted(ada, ada.password)).toBe(false);
    expect(await notices(b, ada)).toEqual([CHANGED]);

    // The old password is now a wrong current password; the session that made the change keeps working.
    const again = await change(b, ada, { OldPassword: ada.password, NewPassword: 'Third-Pass-333!' });
    expect(again).toMatchObject({
      status: 400,
      body: { error: PASSWORD_CHANGE_ERRORS.wrongCurrentPassword, code: API_ERROR_CODES.wrongPassword },
    });
    const back = await change(b, ada, { OldPassword: NEW_PASSWORD, NewPassword: 'Third-Pass-333!' });
    expect(back).toMatchObject({ status: 200, body: { status: 'changed' } });
    expect(await b.passwordAccepted(ada, 'Third-Pass-333!')).toBe(true);
  });
});

describe('refusals', () => {
  // One account for the refusals that change nothing (checked where it matters).
  let ada: ContractAccount;
  beforeAll(async () => {
    ada = await backend().newAccount();
  });

  it('a wrong current password: 400 with the spec text; nothing changes at the source', async () => {
    const b = backend();
    const wrong = await change(b, ada, { OldPassword: 'Not-My-Password-1', NewPassword: NEW_PASSWORD });
    expect(wrong).toMatchObject({
      status: 400,
      body: { error: PASSWORD_CHANGE_ERRORS.wrongCurrentPassword, code: API_ERROR_CODES.wrongPassword },
    });
    expect(await b.passwordAccepted(ada, ada.password)).toBe(true);
    expect(await b.passwordAccepted(ada, NEW_PASSWORD)).toBe(false);
  });

  it.each([
    ['no OldPassword', { NewPassword: NEW_PASSWORD }, 'Current password is a required field'],
    [
      'an empty OldPassword',
      { OldPassword: '', NewPassword: NEW_PASSWORD },
      'Current password is a required field',
    ],
    ['no NewPassword', { OldPassword: 'x' }, 'The new password is a required field'],
    ['a number as NewPassword', { OldPassword: 'x', NewPassword: 12345678 }, 'NewPassword must be text'],
    ['camelCase names', { oldPassword: 'x', newPassword: 'y' }, 'Current password is a required field'],
    [
      'an unknown field',
      { OldPassword: 'x', NewPassword: 'y', ConfirmPassword: 'y' },
      'Unknown field: ConfirmPassword',
    ],
    ['an array', [], 'The body must be a JSON object with OldPassword and NewPassword'],
    ['null', null, 'The body must be a JSON object with OldPassword and NewPassword'],
  ])('%s: 400 with a clear error', async (_name, body, error) => {
    const answer = await change(backend(), ada, body);
    expect(answer).toMatchObject({ status: 400, body: { error, code: API_ERROR_CODES.invalidRequest } });
  });

  it.each([
    ['length', (): string => 'Short-1'],
    ['length', () => `Long-1${'x'.repeat(67)}`],
    ['number', () => 'Tumbling-Down!'],
    ['lowercase', () => 'TUMBLING-DOWN-7!'],
    ['uppercase', () => 'tumbling-down-7!'],
    ['notCurrent', () => ada.password],
    // Three characters of the email's local part.
    ['emailPart', () => `Zz9-${ada.email.slice(0, 3)}!`],
  ] as const satisfies ReadonlyArray<readonly [PasswordRuleId, () => string]>)(
    "the portal's %s rule: 400 with its text",
    async (rule, password) => {
      const b = backend();
      const answer = await change(b, ada, { OldPassword: ada.password, NewPassword: password() });
      expect(answer).toMatchObject({
        status: 400,
        body: { error: PASSWORD_RULE_SERVER_ERRORS[rule], code: API_ERROR_CODES.passwordPolicy },
      });
      expect(await b.passwordAccepted(ada, ada.password)).toBe(true);
    },
  );

  it("the portal's policy comes first: every failing rule in checklist order, the source not asked (a wrong current password is not even noticed, nor counted)", async () => {
    const b = backend();
    const failing = `${ada.email.slice(0, 3)}xyz`;
    const expected = {
      status: 400,
      body: {
        error: [
          PASSWORD_RULE_SERVER_ERRORS.length,
          PASSWORD_RULE_SERVER_ERRORS.number,
          PASSWORD_RULE_SERVER_ERRORS.uppercase,
          PASSWORD_RULE_SERVER_ERRORS.emailPart,
        ].join(' '),
        code: API_ERROR_CODES.passwordPolicy,
      },
    };
    for (let i = 0; i <= PASSWORD_CHANGE_LIMIT.max; i += 1) {
      expect(
        await change(b, ada, { OldPassword: `Not-My-Password-${i}`, NewPassword: failing }),
      ).toMatchObject(expected);
    }
    // None of them was a wrong password to the throttle: a wrong one now is still only a wrong one.
    const wrong = await change(b, ada, { OldPassword: 'Not-My-Password-1', NewPassword: NEW_PASSWORD });
    expect(wrong).toMatchObject({ status: 400, body: { code: API_ERROR_CODES.wrongPassword } });
    expect(await b.passwordAccepted(ada, ada.password)).toBe(true);
  });

  it('a federated user: 403 with the spec text; nothing changes at the source', async () => {
    const b = backend();
    const sam = await b.newAccount({ federated: true });
    const before = await b.passwordAccepted(sam, sam.password);
    const refused = await change(b, sam, { OldPassword: sam.password, NewPassword: NEW_PASSWORD });
    expect(refused).toMatchObject({
      status: 403,
      body: { error: PASSWORD_CHANGE_ERRORS.federated, code: API_ERROR_CODES.federatedUser },
    });
    expect(await b.passwordAccepted(sam, sam.password)).toBe(before);
    expect(await b.passwordAccepted(sam, NEW_PASSWORD)).toBe(false);
  });

  it('the generic text for the unforeseen only (500), when the source fails in a way nobody foresaw', async () => {
    const b = backend();
    const broken = vi
      .spyOn(b.app.identity, 'changePassword')
      .mockRejectedValue(new Error('the disk is on fire'));
    try {
      const answer = await change(b, ada, { OldPassword: ada.password, NewPassword: NEW_PASSWORD });
      expect(answer).toMatchObject({
        status: 500,
        body: { error: PASSWORD_CHANGE_GENERIC_ERROR, code: API_ERROR_CODES.internalError },
      });
    } finally {
      broken.mockRestore();
    }
    expect(await b.passwordAccepted(ada, ada.password)).toBe(true);
  });
});

describe("the source's own password policy", () => {
  it("a password the portal's rules accept is the source's to refuse, with its text for the page's dialog (okta: the org's policy; embedded: the directory has no rules beyond the portal's)", async () => {
    const b = backend();
    const ada = await b.newAccount();
    const policy = b.sourcePasswordPolicy;
    // Passes the portal's rules; no symbol (the stand-in org asks for one).
    const candidate = policy?.refused ?? 'NoSymbolHere42';
    const answer = await change(b, ada, { OldPassword: ada.password, NewPassword: candidate });
    if (policy) {
      expect(answer).toMatchObject({
        status: 400,
        body: { error: policy.error, code: API_ERROR_CODES.passwordPolicy },
      });
      expect(await b.passwordAccepted(ada, ada.password)).toBe(true);
      expect(await b.passwordAccepted(ada, candidate)).toBe(false);
      // A policy refusal is no wrong password: not counted, no notice.
      expect(await notices(b, ada)).toEqual([]);
    } else {
      expect(answer).toMatchObject({ status: 200, body: { status: 'changed' } });
      expect(await b.passwordAccepted(ada, candidate)).toBe(true);
    }
  });
});

describe('the throttle of wrong current passwords', () => {
  const wrong = (b: ContractBackend, account: ContractAccount) =>
    change(b, account, { OldPassword: 'Not-My-Password-1', NewPassword: NEW_PASSWORD });
  const right = (b: ContractBackend, account: ContractAccount) =>
    change(b, account, { OldPassword: account.password, NewPassword: NEW_PASSWORD });

  it(`${PASSWORD_CHANGE_LIMIT.max} wrong in ${PASSWORD_CHANGE_LIMIT.windowMs / 60_000} minutes, then 429 even for the right one, saying when; the source is not asked; the holder is told once`, async () => {
    const b = backend();
    const ada = await b.newAccount();
    const other = await b.newAccount();
    const start = b.clock.now();
    const at = (ms: number) => b.clock.advance(start + ms - b.clock.now());
    for (let attempt = 1; attempt <= PASSWORD_CHANGE_LIMIT.max; attempt += 1) {
      at(attempt * 1000);
      expect((await wrong(b, ada)).status, `attempt ${attempt}`).toBe(400);
    }
    at(10_000);
    const refused = await right(b, ada);
    // The first failure (start + 1 s) leaves the window 15 minutes later: 14 min 51 s from now.
    expect(refused).toMatchObject({
      status: 429,
      body: { error: PASSWORD_CHANGE_ERRORS.throttled(891), code: API_ERROR_CODES.rateLimited },
      headers: { 'retry-after': '891' },
    });
    expect(refused.body.error).toBe('Too many wrong current passwords. Try again in 15 minutes.');
    expect(await b.passwordAccepted(ada, ada.password)).toBe(true);
    expect(await b.passwordAccepted(ada, NEW_PASSWORD)).toBe(false);
    expect(await notices(b, ada)).toEqual([PAUSED]);
    // Per account: someone else is not affected.
    expect((await wrong(b, other)).status).toBe(400);

    // A minute before the window ends: still refused, and says so; the holder is not told again.
    at(1000 + PASSWORD_CHANGE_LIMIT.windowMs - 60_000);
    const later = await right(b, ada);
    expect(later).toMatchObject({
      status: 429,
      body: { error: 'Too many wrong current passwords. Try again in 1 minute.' },
      headers: { 'retry-after': '60' },
    });
    expect(await notices(b, ada)).toEqual([PAUSED]);

    // Once the oldest failure leaves the window, the right password works, and the count starts again.
    at(1000 + PASSWORD_CHANGE_LIMIT.windowMs);
    expect(await right(b, ada)).toMatchObject({ status: 200, body: { status: 'changed' } });
    expect(await b.passwordAccepted(ada, NEW_PASSWORD)).toBe(true);
    const count = await b.app.storage.sql.get<{ n: number }>(
      'SELECT count(*) AS n FROM password_change_failures WHERE user_id = ?',
      [ada.sub],
    );
    expect(Number(count?.n)).toBe(0);
  });

  it('one failure leaving the window frees one attempt only (a sliding window)', async () => {
    const b = backend();
    const ada = await b.newAccount();
    for (let attempt = 0; attempt < PASSWORD_CHANGE_LIMIT.max; attempt += 1) {
      if (attempt > 0) b.clock.advance(60_000);
      expect((await wrong(b, ada)).status).toBe(400);
    }
    b.clock.advance(PASSWORD_CHANGE_LIMIT.windowMs - (PASSWORD_CHANGE_LIMIT.max - 1) * 60_000);
    expect((await wrong(b, ada)).status).toBe(400);
    const refused = await right(b, ada);
    expect(refused).toMatchObject({ status: 429, headers: { 'retry-after': '60' } });
  });
});
