/**
 * The authorization matrix, the same against each identity backend: every call of the contract (ALL_API_CALLS)
 * against every way a caller can be refused whoever holds the account (no token, a bad token, another user's sub,
 * a federated user, no step-up grant, a stale sign-in before a first factor). Each case gets its exact refusal
 * (status, error text, machine code, and the Bearer challenge of a 401), never a 2xx or a 5xx, and nothing changes
 * at the identity source or in the portal's own tables. The token flaws only the embedded provider can produce
 * (expired, wrong issuer or audience, another client, no scope, an ended session) are in
 * security/authorization-matrix.test.ts. The matrix is printed at the end of the file's run.
 */
import {
  ALL_API_CALLS,
  releaseCalls,
  API_ERROR_CODES,
  apiCalls,
  errorAnswersOf,
  PASSWORD_CHANGE_ERRORS,
  pathOf,
  REAUTHENTICATION_REQUIRED_ERROR,
  STEP_UP_REQUIRED_ERROR,
  STEP_UP_TTL_MS,
  type ApiCall,
} from 'shared-auth/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useContractBackend, type ContractAccount, type ContractBackend } from './backend.js';
import { challengeOf, setUpAuthenticator } from './support-factors.js';

const backend = useContractBackend();

/**
 * The account holder's calls. Issue 23's are not a holder's: the release API answers a deploy key (its own matrix
 * is test/releases.test.ts) and the load reports take anyone (limited per address there).
 */
const RELEASE_CALLS = new Set<ApiCall>(Object.values(releaseCalls));
const HOLDER_CALLS = ALL_API_CALLS.filter((call) => !RELEASE_CALLS.has(call));

/** The `:factor` of the calls that have one: each concrete path is a variant of the row. */
const FACTOR_SEGMENTS = new Map<string, readonly string[]>([
  [apiCalls.stepUpSendChallenge.path, ['email']],
  [apiCalls.stepUpVerify.path, ['google-auth', 'email']],
]);

/** A body each call accepts, so that only the authorization decides (the account's real password where asked). */
function bodyOf(call: ApiCall, account: ContractAccount): unknown {
  if (call === apiCalls.profileUpdate) return { firstName: 'Mallory' };
  if (call === apiCalls.passwordChange)
    return { OldPassword: account.password, NewPassword: 'Tumbling-Down-7!' };
  if (call === apiCalls.stepUpVerify) return { passCode: '123456' };
  if (call === apiCalls.stepUpVerifyRecoveryCode) return { recoveryCode: 'ABCDE-FGHJK' };
  if (call === apiCalls.reauthenticate) return { password: account.password };
  if (call.path.endsWith('/activate')) return { code: '123456' };
  if (call.path.endsWith('/reset')) return { optOut: true };
  // Passkeys: a WebAuthn answer's outer shape, and a name.
  if (call === apiCalls.passkeyRegistrationVerify || call === apiCalls.stepUpVerifyPasskey) {
    return { response: { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: {} } };
  }
  if (call === apiCalls.passkeyRename) return { name: 'Mallory' };
  // The victim's active method: only the authorization stands between this and a change.
  if (call === apiCalls.preferredMethod) return { method: 'googleAuth' };
  // An event id of the right shape (the victim's own or not: the authorization refuses before it is looked up).
  if (call === apiCalls.activityNotMe) return { eventId: 'AAAAAAAAAAAAAAAAAAAA' };
  return undefined;
}

/** The refusal a federated user gets from a call that refuses them. */
function federatedErrorOf(call: ApiCall): string {
  if (call === apiCalls.profileUpdate) return 'Federated users cannot edit their profile';
  if (call === apiCalls.passwordChange) return PASSWORD_CHANGE_ERRORS.federated;
  return 'Security settings are not available for federated users';
}

/**
 * Devices & activity (issue 22) refuse federated users only where the data is the portal's own provider's
 * (embedded): in Okta mode the sessions and events are the org's, a federated user of the org's as anyone's.
 */
const FEDERATED_REFUSED_WITH_PORTAL_DATA_ONLY = new Set<ApiCall>([
  apiCalls.activity,
  apiCalls.activityNotMe,
  apiCalls.sessions,
  apiCalls.sessionSignOut,
  apiCalls.sessionsSignOutOthers,
  apiCalls.sessionsSignOutEverywhere,
]);

/** What the contract declares of a call (and, for those above, the backend) decides its columns. */
const refusesFederated = (call: ApiCall) =>
  call.errors.includes('federatedUser') &&
  (backend().kind === 'embedded' || !FEDERATED_REFUSED_WITH_PORTAL_DATA_ONLY.has(call));
const needsStepUp = (call: ApiCall) => call.errors.includes('stepUpRequired');
const turnsOnFactor = (call: ApiCall) => call.errors.includes('reauthenticationRequired');

interface Expected {
  status: number;
  error: string | RegExp;
  code: string;
  /** What the body carries beside `error` and `code`. */
  more?: Record<string, unknown>;
  /** The WWW-Authenticate a 401 carries. */
  challenge?: string | RegExp;
}

interface Case {
  name: string;
  applies(call: ApiCall): boolean;
  /** Who calls (the token), whose path and body it is, and what the answer must be. */
  actor(call: ApiCall): { token: string | undefined; owner: ContractAccount; expected: Expected };
}

const INVALID_TOKEN = /^Bearer error="invalid_token", error_description="/;

/** A regular user with an active authenticator app, whose session's step-up grant has run out. */
let victim: ContractAccount;
/** Another regular user without a factor (needs no step-up of their own). */
let other: ContractAccount;
/** A sign-in of `other` older than 5 minutes. */
let staleToken: string;
let federated: ContractAccount;
/** The victim's token with the signature of another token of the same issuer. */
let badToken: string;

const CASES: Case[] = [
  {
    name: 'no token',
    applies: () => true,
    actor: () => ({
      token: undefined,
      owner: victim,
      expected: {
        status: 401,
        error: 'Sign in to use this API (no bearer access token was sent)',
        code: API_ERROR_CODES.unauthorized,
        challenge: 'Bearer',
      },
    }),
  },
  {
    name: 'bad token',
    applies: () => true,
    actor: () => ({
      token: badToken,
      owner: victim,
      expected: {
        status: 401,
        error: 'The access token signature is not valid',
        code: API_ERROR_CODES.unauthorized,
        challenge: INVALID_TOKEN,
      },
    }),
  },
  {
    name: "another's sub",
    applies: () => true,
    // A valid caller who needs no step-up, aiming at the victim's account with the victim's password.
    actor: () => ({
      token: other.token,
      owner: victim,
      expected: {
        status: 403,
        error: 'You can only access your own account',
        code: API_ERROR_CODES.forbiddenSub,
      },
    }),
  },
  {
    name: 'federated',
    applies: refusesFederated,
    actor: (call) => ({
      token: federated.token,
      owner: federated,
      expected: { status: 403, error: federatedErrorOf(call), code: API_ERROR_CODES.federatedUser },
    }),
  },
  {
    name: 'no step-up',
    applies: needsStepUp,
    actor: () => ({
      token: victim.token,
      owner: victim,
      expected: {
        status: 403,
        error: new RegExp(`^${STEP_UP_REQUIRED_ERROR}: verify`),
        code: API_ERROR_CODES.stepUpRequired,
      },
    }),
  },
  {
    name: 'stale sign-in',
    applies: turnsOnFactor,
    actor: () => ({
      token: staleToken,
      owner: other,
      expected: {
        status: 403,
        error: new RegExp(`^${REAUTHENTICATION_REQUIRED_ERROR}: `),
        code: API_ERROR_CODES.reauthenticationRequired,
        // How to prove it: Okta's backend cannot check a password, so only a new sign-in will do there.
        more: { proof: backend().kind === 'embedded' ? 'password' : 'sign-in' },
      },
    }),
  },
];

const rowName = (call: ApiCall) => `${call.method.padEnd(6)} ${call.path}`;
const pathsOf = (call: ApiCall, sub: string) =>
  (FACTOR_SEGMENTS.get(call.path) ?? [undefined]).map((factor) => ({
    label: factor,
    // A passkey's `:id`: one the victim does not hold (authorization refuses before it is looked up).
    url: pathOf(call.path, factor === undefined ? { sub, id: 'pk-unknown' } : { sub, factor }),
  }));

function expectRefusal(
  answer: Awaited<ReturnType<ContractBackend['call']>>,
  expected: Expected,
  where: string,
) {
  expect(answer.status, `${where}: ${JSON.stringify(answer.body)}`).toBe(expected.status);
  expect(answer.headers['content-type'], where).toMatch(/^application\/json/);
  const { error, code, ...more } = answer.body as Record<string, unknown>;
  expect(code, where).toBe(expected.code);
  expect(more, where).toEqual(expected.more ?? {});
  if (typeof expected.error === 'string') expect(error, where).toBe(expected.error);
  else expect(error, where).toMatch(expected.error);
  if (expected.challenge === undefined) expect(answer.headers['www-authenticate'], where).toBeUndefined();
  else if (typeof expected.challenge === 'string')
    expect(answer.headers['www-authenticate'], where).toBe(expected.challenge);
  else expect(answer.headers['www-authenticate'], where).toMatch(expected.challenge);
}

/**
 * The portal's own tables a refused call could have written (in Okta mode most stay empty), and their columns
 * that say so: a notice's delivery attempts go on in the background.
 */
const PORTAL_TABLES: Record<string, string> = {
  users: '*',
  user_factors: '*',
  email_codes: '*',
  stepup_grants: '*',
  recovery_codes: '*',
  activity_events: '*',
  // A valid call moves its session's "last active" (the setup's own calls): not a change a refusal could make.
  account_sessions: 'id, user_id, session_uid, signed_in_at',
  passkeys: '*',
  webauthn_challenges: '*',
  factor_throttle_events: '*',
  password_change_failures: '*',
  mailbox_messages: '*',
  notifications: 'user_id, subject, created_at',
  revoked_access_tokens: '*',
  account_preferred_methods: '*',
};

/** Everything a refused call could have changed: each account at the source, and the portal's tables. */
async function snapshot(b: ContractBackend) {
  const accounts = await Promise.all(
    [victim, other, federated].map(async (account) => ({
      profile: await b.profileAtSource(account),
      factors: await b.factorsAtSource(account),
      password: await b.passwordAccepted(account, account.password),
    })),
  );
  const tables = Object.fromEntries(
    await Promise.all(
      Object.entries(PORTAL_TABLES).map(async ([table, columns]) => {
        const rows = await b.app.storage.sql.all<Record<string, unknown>>(`SELECT ${columns} FROM ${table}`);
        return [table, rows.map((row) => JSON.stringify(row)).sort()] as const;
      }),
    ),
  );
  return { accounts, tables };
}

/** call → case → status, for the printed matrix. */
const matrix = new Map<string, Map<string, string>>();
let before: Awaited<ReturnType<typeof snapshot>> | undefined;

beforeAll(async () => {
  const b = backend();
  victim = await b.newAccount();
  other = await b.newAccount();
  federated = await b.newAccount({ federated: true });
  staleToken = await b.signIn(other, { authTimeAgoMs: STEP_UP_TTL_MS + 60_000 });
  await setUpAuthenticator(b, victim);
  // The Security page reloads after the change; embedded, the change ended its grant and it renews with its
  // session cookie first (issue 18), so the snapshot below is of the state the matrix starts from.
  await challengeOf(b, victim);
  const [header, payload] = victim.token.split('.');
  badToken = `${header}.${payload}.${other.token.split('.')[2]}`;
});

// The activation granted the victim's session step-up; every test runs after it has run out (the fixture puts
// the clock back in step with the real one before each test).
beforeEach(async () => {
  backend().clock.advance(STEP_UP_TTL_MS + 60_000);
  before ??= await snapshot(backend());
});

afterAll(() => {
  const columns = CASES.map((c) => c.name);
  const width = Math.max(...HOLDER_CALLS.map((call) => rowName(call).length));
  const line = (cells: string[]) =>
    [cells[0]?.padEnd(width), ...cells.slice(1).map((cell, i) => cell.padEnd(columns[i]?.length ?? 0))].join(
      ' | ',
    );
  console.log(
    [
      `Authorization matrix (${backend().kind}): ${HOLDER_CALLS.length} calls × ${CASES.length} cases` +
        ' (— = not applicable)',
      line(['call', ...columns]),
      ...HOLDER_CALLS.map((call) =>
        call.public
          ? `${rowName(call).padEnd(width)} | public: no auth, so no authorization row`
          : line([rowName(call), ...columns.map((column) => matrix.get(rowName(call))?.get(column) ?? '?')]),
      ),
    ].join('\n'),
  );
});

describe('authorization matrix: every call of the contract × every way to be refused', () => {
  it('starts from a victim who must step up', async () => {
    expect(await challengeOf(backend(), victim)).toMatchObject({ challengeUser: true });
  });

  it.each(HOLDER_CALLS.map((call) => [rowName(call), call] as const))('%s', async (name, call) => {
    const b = backend();
    const row = new Map<string, string>();
    matrix.set(name, row);
    if (call.public) {
      // No auth at all: any token, or none, gets the answer.
      for (const token of [undefined, badToken, 'not-a-jwt']) {
        expect((await b.call(call.method, pathOf(call.path), token)).status).toBe(200);
      }
      return;
    }
    const declared = errorAnswersOf(call).map((answer) => answer.code);
    for (const testCase of CASES) {
      if (!testCase.applies(call)) {
        row.set(testCase.name, '—');
        continue;
      }
      const { token, owner, expected } = testCase.actor(call);
      expect(declared, `${name}: the contract declares ${expected.code}`).toContain(expected.code);
      for (const { label, url } of pathsOf(call, owner.sub)) {
        const where = `${name}${label ? ` (${label})` : ''} × ${testCase.name}`;
        expectRefusal(await b.call(call.method, url, token, bodyOf(call, owner)), expected, where);
      }
      row.set(testCase.name, String(expected.status));
    }
  });

  it('changed nothing: no profile, password or factor at the source, no grant, count, notice or row here', async () => {
    expect(await snapshot(backend())).toEqual(before);
  });
});
