/**
 * The authorization matrix's embedded columns: every call of the spec (section 7), and the portal's own
 * reauthenticate call, against the token flaws only the embedded provider can produce (expired, another issuer or
 * audience, another client, no scope, an ended sign-in session). Each case must get its exact refusal (status,
 * message, machine code, and the Bearer challenge on a 401), never a 2xx or a 5xx, and nothing may change for the
 * account it aimed at. The columns any backend has (no token, a bad signature, another user's sub, a federated
 * user, no step-up grant, a stale sign-in before a first factor) are test/contract/authorization-matrix.test.ts,
 * run against the embedded and the okta backend. The matrix is printed at the end of the file's run.
 */
import type { LightMyRequestResponse } from 'fastify';
import {
  ALL_API_CALLS,
  errorAnswersOf,
  API_ERROR_CODES,
  apiCalls,
  apiPaths,
  pathOf,
  STEP_UP_TTL_MS,
} from 'shared-auth/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashedId } from '../../src/storage/provider.js';
import { CLIENT_ID, mintAccessToken, sessionClaimsOf, type TokenFlaw } from '../helpers.js';
import {
  enrolAuthenticator,
  newUser,
  signInSession,
  startClockedApp,
  totp,
  type ClockedApp,
  type Session,
} from '../security-helpers.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface Variant {
  /** Shown when a call has more than one concrete path (the step-up verify of each factor). */
  label?: string;
  path: (sub: string) => string;
  /** A body the call accepts, so only the authorization decides; built for the account in the path. */
  body?: (account: Session) => unknown;
}

interface SpecCall {
  method: Method;
  /** The spec's path, as in section 7. */
  spec: string;
  variants: Variant[];
  /** No auth at all (the settings the shell loads before sign-in). */
  public?: true;
  /** A call of the portal beyond the spec's 19 (reauthenticate, the recovery codes', the activity, the devices). */
  portal?: true;
}

const multifactor = (
  factor: 'googleauth' | 'email',
  action: 'enroll' | 'details' | 'activate' | 'opt-in' | 'opt-out' | 'reset',
  method: Method,
  body?: () => unknown,
): SpecCall => ({
  method,
  spec: `/api/multifactor/${factor}/{sub}/${action}`,
  variants: [{ path: (sub) => apiPaths.multifactor(factor, sub, action), ...(body ? { body } : {}) }],
});

/** The spec's 19 calls, in its order. */
const CALLS: SpecCall[] = [
  {
    method: 'GET',
    spec: '/api/clientConfiguration/getSettings',
    variants: [{ path: () => apiPaths.settings() }],
    public: true,
  },
  {
    method: 'PUT',
    spec: '/api/profile/{sub}/update',
    variants: [{ path: apiPaths.profileUpdate, body: () => ({ firstName: 'Mallory' }) }],
  },
  { method: 'GET', spec: '/api/profile/{sub}/isfederated', variants: [{ path: apiPaths.isFederated }] },
  {
    method: 'PUT',
    spec: '/api/password/{sub}/change',
    // The account's real current password: only the authorization stands between this and a change.
    variants: [
      {
        path: apiPaths.passwordChange,
        body: (account) => ({ OldPassword: account.password, NewPassword: 'Tumbling-Down-7' }),
      },
    ],
  },
  {
    method: 'GET',
    spec: '/api/stepup/{sub}/challenge',
    variants: [{ path: apiPaths.stepUpChallenge }],
  },
  {
    method: 'POST',
    spec: '/api/stepup/{sub}/{factor}/challenge',
    variants: [{ label: 'email', path: (sub) => apiPaths.stepUpSendChallenge(sub, 'email') }],
  },
  {
    method: 'POST',
    spec: '/api/stepup/{sub}/{factor}/verify',
    variants: (['google-auth', 'email'] as const).map((factor) => ({
      label: factor,
      path: (sub: string) => apiPaths.stepUpVerify(sub, factor),
      body: () => ({ passCode: '123456' }),
    })),
  },
  multifactor('googleauth', 'enroll', 'POST', () => ({})),
  multifactor('googleauth', 'details', 'GET'),
  multifactor('googleauth', 'activate', 'POST', () => ({ code: '123456' })),
  multifactor('googleauth', 'opt-in', 'PUT', () => ({})),
  multifactor('googleauth', 'opt-out', 'DELETE'),
  multifactor('googleauth', 'reset', 'DELETE', () => ({ optOut: true })),
  multifactor('email', 'enroll', 'POST', () => ({})),
  multifactor('email', 'activate', 'POST', () => ({ code: '123456' })),
  multifactor('email', 'details', 'GET'),
  multifactor('email', 'opt-in', 'PUT', () => ({})),
  multifactor('email', 'opt-out', 'DELETE'),
  multifactor('email', 'reset', 'DELETE', () => ({ optOut: true })),
  {
    method: 'POST',
    spec: '/api/stepup/{sub}/reauthenticate',
    // The account's real password: only the authorization stands between this and a confirmation.
    variants: [{ path: apiPaths.reauthenticate, body: (account) => ({ password: account.password }) }],
    portal: true,
  },
  // Issue 20's recovery codes.
  {
    method: 'GET',
    spec: '/api/recoverycodes/{sub}',
    variants: [{ path: (sub) => pathOf(apiCalls.recoveryCodesStatus.path, { sub }) }],
    portal: true,
  },
  {
    method: 'POST',
    spec: '/api/recoverycodes/{sub}/generate',
    variants: [{ path: (sub) => pathOf(apiCalls.recoveryCodesGenerate.path, { sub }), body: () => ({}) }],
    portal: true,
  },
  {
    method: 'POST',
    spec: '/api/stepup/{sub}/recovery-code/verify',
    variants: [
      {
        path: (sub) => pathOf(apiCalls.stepUpVerifyRecoveryCode.path, { sub }),
        body: () => ({ recoveryCode: 'ABCDE-FGHJK' }),
      },
    ],
    portal: true,
  },
  // Issue 22's activity (read only; the query is the page's).
  {
    method: 'GET',
    spec: '/api/v1/users/{sub}/activity',
    variants: [{ path: (sub) => `${pathOf(apiCalls.activity.path, { sub })}?limit=10` }],
    portal: true,
  },
  // Issue 22's devices: the list, and the sign-outs (the victim's own session's id: only authorization decides).
  {
    method: 'GET',
    spec: '/api/v1/users/{sub}/sessions',
    variants: [{ path: (sub) => pathOf(apiCalls.sessions.path, { sub }) }],
    portal: true,
  },
  {
    method: 'DELETE',
    spec: '/api/v1/users/{sub}/sessions/{id}',
    variants: [{ path: (sub) => pathOf(apiCalls.sessionSignOut.path, { sub, id: victimSessionId }) }],
    portal: true,
  },
  {
    method: 'POST',
    spec: '/api/v1/users/{sub}/sessions/sign-out-others',
    variants: [{ path: (sub) => pathOf(apiCalls.sessionsSignOutOthers.path, { sub }), body: () => ({}) }],
    portal: true,
  },
  {
    method: 'POST',
    spec: '/api/v1/users/{sub}/sessions/sign-out-everywhere',
    variants: [{ path: (sub) => pathOf(apiCalls.sessionsSignOutEverywhere.path, { sub }), body: () => ({}) }],
    portal: true,
  },
  // Issue 22's "This wasn't me" on an event (no step-up: the token alone decides).
  {
    method: 'POST',
    spec: '/api/v1/users/{sub}/activity/not-me',
    variants: [
      {
        path: (sub) => pathOf(apiCalls.activityNotMe.path, { sub }),
        body: () => ({ eventId: 'AAAAAAAAAAAAAAAAAAAA' }),
      },
    ],
    portal: true,
  },
  // Issue 22's preferred 2-step method (the victim's active method: only the authorization decides).
  {
    method: 'PUT',
    spec: '/api/v1/users/{sub}/multifactor/preferred',
    variants: [
      {
        path: (sub) => pathOf(apiCalls.preferredMethod.path, { sub }),
        body: () => ({ method: 'googleAuth' }),
      },
    ],
    portal: true,
  },
];

interface Expected {
  status: number;
  error: string | RegExp;
  /** The machine code beside `error` (API_ERROR_CODES). */
  code: string;
  /** The WWW-Authenticate a 401 carries. */
  challenge?: string | RegExp;
}

interface Case {
  name: string;
  applies(call: SpecCall): boolean;
  /** Who calls (the token) and whose path it is, and what the answer must be. */
  actor(call: SpecCall): { token: string | null; pathOwner: Session; bodyOwner: Session; expected: Expected };
}

const INVALID_TOKEN = /^Bearer error="invalid_token", error_description="/;

let t: ClockedApp;
/** A regular user with an active authenticator, whose session's step-up grant has run out. */
let victim: Session;
/** A token of one of the victim's sessions that was revoked at /v1/revoke (its grant ended). */
let revoked: string;
/** The Devices list's id of the victim's session. */
let victimSessionId = '';
const flawed = new Map<TokenFlaw, string>();

const tokenCase = (name: string, flaw: TokenFlaw, error: string): Case => ({
  name,
  applies: (call) => !call.public,
  actor: () => ({
    token: flawed.get(flaw) ?? '',
    pathOwner: victim,
    bodyOwner: victim,
    expected: {
      status: 401,
      error,
      code: API_ERROR_CODES.unauthorized,
      challenge: INVALID_TOKEN,
    },
  }),
});

const CASES: Case[] = [
  tokenCase('expired', 'expired', 'The access token has expired'),
  tokenCase('wrong issuer', 'wrong-issuer', 'The access token was issued by another issuer'),
  tokenCase('wrong audience', 'wrong-audience', 'The access token is not meant for this API'),
  tokenCase('other client', 'other-client', 'The access token was issued to another application'),
  tokenCase('no scope', 'no-scope', 'The access token lacks the openid scope'),
  {
    name: 'ended session',
    applies: (call) => !call.public,
    actor: () => ({
      token: revoked,
      pathOwner: victim,
      bodyOwner: victim,
      expected: {
        status: 401,
        error: 'The sign-in session of this access token has ended; sign in again',
        code: API_ERROR_CODES.unauthorized,
        challenge: INVALID_TOKEN,
      },
    }),
  },
];

/** call → case → status (or a note), for the printed matrix. */
const matrix = new Map<string, Map<string, string>>();
const rowName = (call: SpecCall) => `${call.method.padEnd(6)} ${call.spec}`;

function send(call: SpecCall, variant: Variant, token: string | null, pathOwner: Session, body: unknown) {
  return t.app.inject({
    method: call.method,
    url: variant.path(pathOwner.user.id),
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** The codes the contract declares for this call's refusals (errorAnswersOf): the matrix's must be among them. */
function declaredCodesOf(call: SpecCall): string[] {
  const path = call.spec.replace(/\{(\w+)\}/g, ':$1');
  const declared = ALL_API_CALLS.find(
    (candidate) => candidate.method === call.method && candidate.path === path,
  );
  if (!declared) throw new Error(`${call.method} ${call.spec} is not a call of the contract`);
  return errorAnswersOf(declared).map((answer) => answer.code);
}

function expectRefusal(response: LightMyRequestResponse, expected: Expected, where: string) {
  expect(response.statusCode, `${where}: ${response.body}`).toBe(expected.status);
  expect(response.headers['content-type'], where).toMatch(/^application\/json/);
  const body = response.json<Record<string, unknown>>();
  expect(Object.keys(body), where).toEqual(['error', 'code']);
  expect(body.code, where).toBe(expected.code);
  if (typeof expected.error === 'string') expect(body.error, where).toBe(expected.error);
  else expect(body.error, where).toMatch(expected.error);
  if (expected.challenge === undefined) {
    expect(response.headers['www-authenticate'], where).toBeUndefined();
  } else if (typeof expected.challenge === 'string') {
    expect(response.headers['www-authenticate'], where).toBe(expected.challenge);
  } else {
    expect(response.headers['www-authenticate'], where).toMatch(expected.challenge);
  }
}

/**
 * Everything the refused calls could have changed, for every account. Each table's rows in a fixed order of their
 * own (their JSON text): the tables have no common key, and the engines' row addresses differ.
 */
async function snapshot(): Promise<Record<string, unknown[]>> {
  const tables = [
    'users',
    'user_factors',
    'email_codes',
    'stepup_grants',
    'recovery_codes',
    'activity_events',
    'account_sessions',
    'factor_throttle_events',
    'password_change_failures',
    'mailbox_messages',
    'notifications',
    'oidc_payloads',
    'revoked_access_tokens',
    'account_preferred_methods',
    'not_me_links',
  ];
  // A valid call (the setup's own) moves its session's "last active": not a change a refusal could make.
  const columnsOf = (table: string) =>
    table === 'account_sessions' ? 'id, user_id, session_uid, signed_in_at' : '*';
  const rowsOf = async (table: string) =>
    (await t.app.storage.sql.all<Record<string, unknown>>(`SELECT ${columnsOf(table)} FROM ${table}`))
      .map((row) => JSON.stringify(row))
      .sort();
  return Object.fromEntries(
    await Promise.all(tables.map(async (table) => [table, await rowsOf(table)] as const)),
  );
}

let before: Record<string, unknown[]>;

beforeAll(async () => {
  t = await startClockedApp();
  victim = await signInSession(t.app, await newUser(t.app));
  const secret = await enrolAuthenticator(t, victim);
  const ended = await signInSession(t.app, victim, () => ({ code: totp(secret, t.clock.now) }));
  const revocation = await t.app.inject({
    method: 'POST',
    url: '/oauth2/default/v1/revoke',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      client_id: CLIENT_ID,
      token: ended.tokens.refresh_token ?? '',
    }).toString(),
  });
  expect(revocation.statusCode).toBe(200);
  revoked = ended.token;
  victimSessionId =
    (
      await t.app.storage.sql.get<{ id: string }>('SELECT id FROM account_sessions WHERE session_uid = ?', [
        hashedId(victim.sid),
      ])
    )?.id ?? '';
  expect(victimSessionId).toMatch(/^[A-Za-z0-9]{20}$/);
  // Activation granted the victim's session 5 minutes of step-up; let them run out, so no refusal below is
  // answered by the grant's absence instead.
  t.clock.advance(STEP_UP_TTL_MS + 60_000);
  for (const flaw of ['expired', 'wrong-issuer', 'wrong-audience', 'other-client', 'no-scope'] as const) {
    // Otherwise exactly the victim's token: same user, same sign-in session.
    flawed.set(
      flaw,
      await mintAccessToken(t.app, victim.user.id, { claims: sessionClaimsOf(victim.token), flaw }),
    );
  }
  before = await snapshot();
});

afterAll(async () => {
  const columns = CASES.map((c) => c.name);
  const width = Math.max(...CALLS.map((call) => rowName(call).length));
  const line = (cells: string[]) =>
    [cells[0]?.padEnd(width), ...cells.slice(1).map((cell, i) => cell.padEnd(columns[i]?.length ?? 0))].join(
      ' | ',
    );
  const rows = CALLS.map((call) => {
    if (call.public) return `${rowName(call).padEnd(width)} | public: no auth, so no authorization row`;
    return line([rowName(call), ...columns.map((column) => matrix.get(rowName(call))?.get(column) ?? '?')]);
  });
  const cases = CALLS.reduce(
    (sum, call) => sum + CASES.filter((c) => c.applies(call)).length * call.variants.length,
    0,
  );
  console.log(
    [
      `Authorization matrix: ${CALLS.length} calls × ${CASES.length} cases, ${cases} requests` +
        ' (the columns any backend has: test/contract/authorization-matrix.test.ts)',
      line(['call', ...columns]),
      '-'.repeat(line(['call', ...columns]).length),
      ...rows,
    ].join('\n'),
  );
  await t.close();
});

describe("authorization matrix: the spec calls × the embedded provider's token flaws", () => {
  it("has the spec section 7 calls, 19 of them, and the portal's own: reauthenticate, the recovery codes', the activity and its not-me report, the devices, the preferred method", () => {
    expect(CALLS.filter((call) => !call.portal)).toHaveLength(19);
    expect(new Set(CALLS.map(rowName)).size).toBe(30);
  });

  it('starts from a victim who must step up (sanity of the setup)', async () => {
    const challenge = await t.app.inject({
      url: apiPaths.stepUpChallenge(victim.user.id),
      headers: { authorization: `Bearer ${victim.token}` },
    });
    expect(challenge.statusCode).toBe(200);
    expect(challenge.body).toContain('\\"challengeUser\\":true');
  });

  it.each(CALLS.map((call) => [rowName(call), call] as const))('%s', async (name, call) => {
    const row = new Map<string, string>();
    matrix.set(name, row);
    if (call.public) {
      // No auth at all: any token, or none, gets the settings.
      for (const token of [null, flawed.get('expired') ?? '', 'not-a-jwt']) {
        const response = await send(call, call.variants[0]!, token, victim, undefined);
        expect(response.statusCode).toBe(200);
      }
      return;
    }
    for (const testCase of CASES) {
      if (!testCase.applies(call)) {
        row.set(testCase.name, '—');
        continue;
      }
      const { token, pathOwner, bodyOwner, expected } = testCase.actor(call);
      const statuses = new Set<number>();
      for (const variant of call.variants) {
        const where = `${call.method} ${call.spec}${variant.label ? ` (${variant.label})` : ''} × ${testCase.name}`;
        const response = await send(call, variant, token, pathOwner, variant.body?.(bodyOwner));
        expect(response.statusCode, where).toBeGreaterThanOrEqual(400);
        expect(response.statusCode, where).toBeLessThan(500);
        expectRefusal(response, expected, where);
        expect(declaredCodesOf(call), `${where}: the contract declares this refusal`).toContain(
          expected.code,
        );
        statuses.add(response.statusCode);
      }
      row.set(testCase.name, [...statuses].join('/'));
    }
  });

  it('changed nothing: no profile, password, factor, code, grant, throttle count, session, notice or email', async () => {
    expect(await snapshot()).toEqual(before);
  });
});
