/**
 * Okta mode's activity (issue 22) against the org stand-in's System Log (project `okta`): the portal reads
 * `GET /api/v1/logs` for the caller's own user id (bounded to the last 90 days, newest first, Okta's `after` paging
 * through the Link header), and shows the events the stand-in recorded as its own operations happened (a sign-in,
 * a refused password, a factor set up through the portal) or that a test gave it (an admin's change, old events).
 * Who may read what: the filter is the server's (never the request's), another account's sub is refused, a cursor
 * that is not one is a 400; the org unreachable is a 502; credentials that may not read the log answer 501.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Secret, TOTP } from 'otpauth';
import { API_ERROR_CODES, apiCalls, apiPaths, pathOf } from 'shared-auth/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_ACTIVITY_EVENT_TYPES } from '../src/activity/org-events.js';
import { parseEnv } from '../src/config/env.js';
import { oktaSettingsOf } from '../src/config/okta.js';
import { OktaOrg } from '../src/identity/okta/client.js';
import { OktaSystemLog } from '../src/identity/okta/system-log.js';
import { inject } from './contract/inject.js';
import type { TestApp } from './helpers.js';
import { startOktaOrg, type OktaOrg as StandIn } from './support/okta-org/index.js';
import { useOktaOrg } from './support/okta-org/vitest.js';
import { newOrgAccount, oktaAuthorizationServer, startOktaPortal } from './support/okta-portal.js';

const NATIVE_CLIENT_ID = '0oaNativeSignIn';
const LOGS_SCOPES = 'okta.users.read okta.users.manage okta.logs.read';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const DAY_MS = 24 * 60 * 60 * 1000;
const UNAVAILABLE =
  "Your organization's sign-in service keeps this account's activity; it cannot be shown here yet.";
const CURSOR_REFUSED = { error: 'before must be the next of an earlier page', code: 'invalid_request' };

const server = oktaAuthorizationServer();
const org = useOktaOrg({
  jwks: server.jwks,
  authorizationServer: { clients: [{ clientId: NATIVE_CLIENT_ID, passwordGrant: true }] },
});
let t: TestApp;

beforeAll(async () => {
  t = await startOktaPortal(org(), { OKTA_SCOPES: LOGS_SCOPES });
});
afterAll(async () => {
  await t?.close();
});

interface Account {
  id: string;
  login: string;
  password: string;
  token: string;
}

async function newAccount(firstName = 'Ada'): Promise<Account> {
  const account = newOrgAccount(org(), firstName, 'Lovelace', 'GB');
  return { ...account, token: await server.token(org(), { id: account.id, login: account.login }) };
}

/** A sign-in at the org (its password grant), from Firefox on Linux: the stand-in logs user.session.start. */
function signInAtOrg(account: Account, password = account.password) {
  return fetch(`${org().issuer}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': FIREFOX_LINUX },
    body: new URLSearchParams({
      grant_type: 'password',
      client_id: NATIVE_CLIENT_ID,
      username: account.login,
      password,
      scope: 'openid',
    }),
  });
}

const activityUrl = (sub: string, query: Record<string, string> = {}) => {
  const search = new URLSearchParams(query).toString();
  return `${pathOf(apiCalls.activity.path, { sub })}${search ? `?${search}` : ''}`;
};
const activityOf = (account: Account, query: Record<string, string> = {}, app = t.app) =>
  inject(app, 'GET', activityUrl(account.id, query), account.token);
const pageOf = async (account: Account, query: Record<string, string> = {}) => {
  const answer = await activityOf(account, query);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return apiCalls.activity.response.parse(answer.body);
};
/** The portal's reads of the System Log since `seq` (the stand-in logs every request). */
const logReads = (after = 0) =>
  org()
    .requests()
    .filter((request) => request.operationId === 'listLogEvents' && request.seq > after)
    .map((request) => ({ ...request, params: new URLSearchParams(request.query) }));
const lastSeq = () => org().requests().at(-1)?.seq ?? 0;

/** An event of Okta's shape for the test to give the stand-in (what its own operations do not make). */
function given(account: Account, eventType: string, publishedAgoMs: number, fields: object = {}) {
  return org().addLogEvent({
    eventType,
    displayMessage: eventType,
    result: 'SUCCESS',
    actor: { id: account.id, type: 'User', alternateId: account.login, displayName: 'Ada Lovelace' },
    targets: [{ id: account.id, type: 'User', alternateId: account.login, displayName: 'Ada Lovelace' }],
    client: { userAgent: FIREFOX_LINUX, ipAddress: '81.2.69.160' },
    published: Date.now() - publishedAgoMs,
    ...fields,
  });
}

describe("Okta mode's activity, from the org's System Log", () => {
  it('lists what the org recorded: a sign-in, a wrong password, a factor set up through the portal, newest first', async () => {
    const ada = await newAccount();
    expect((await signInAtOrg(ada)).status).toBe(200);
    expect((await signInAtOrg(ada, 'Wrong-password-1')).status).toBe(400);
    const enrolled = await inject(
      t.app,
      'POST',
      apiPaths.multifactor('googleauth', ada.id, 'enroll'),
      ada.token,
    );
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
    const secret = org().user(ada.id)?.factors[0]?.sharedSecret ?? '';
    const code = TOTP.generate({ secret: Secret.fromBase32(secret) });
    const activated = await inject(
      t.app,
      'POST',
      apiPaths.multifactor('googleauth', ada.id, 'activate'),
      ada.token,
      {
        code,
      },
    );
    expect(activated.status, JSON.stringify(activated.body)).toBe(200);

    const before = lastSeq();
    const page = await pageOf(ada);
    expect(page.events.map(({ kind, detail }) => `${kind} ${String(detail)}`)).toEqual([
      'method-added googleAuth',
      'sign-in-failed wrong-password',
      'signed-in password',
    ]);
    expect(page.events[2]).toMatchObject({
      browser: 'Firefox',
      os: 'Linux',
      deviceType: 'desktop',
      country: null,
    });
    // Loopback: the address coarse, never in full.
    expect(page.events[2]?.address).toBe('127.0.0.x');
    expect(JSON.stringify(page)).not.toContain('127.0.0.1');
    expect(page.next).toBeNull();

    // One bounded read, newest first, of the listed types, done by or to this user only.
    const [read, ...more] = logReads(before);
    expect(more).toEqual([]);
    const params = read?.params ?? new URLSearchParams();
    const types = ORG_ACTIVITY_EVENT_TYPES.map((type) => `eventType eq "${type}"`).join(' or ');
    expect(params.get('filter')).toBe(`(${types}) and (actor.id eq "${ada.id}" or target.id eq "${ada.id}")`);
    expect(params.get('sortOrder')).toBe('DESCENDING');
    expect(params.get('limit')).toBe('20');
    expect(params.has('after')).toBe(false);
    const since = Date.parse(params.get('since') ?? '');
    const until = Date.parse(params.get('until') ?? '');
    // 90 days back from now, and up to 5 minutes ahead (the org's clock may be ahead of the portal's).
    expect(until - since).toBe(90 * DAY_MS + 5 * 60_000);
    expect(Math.abs(since + 90 * DAY_MS - Date.now())).toBeLessThan(60_000);
  });

  it("pages through Okta's Link header, 90 days back: every event once, newest first, then next null", async () => {
    const ada = await newAccount();
    // Five events of the last days, and one of 91 days ago that the list no longer reaches.
    for (const [index, type] of [
      'user.account.update_password',
      'user.session.end',
      'user.account.lock',
    ].entries()) {
      given(ada, type, (index + 1) * DAY_MS);
    }
    given(ada, 'user.session.start', 4 * DAY_MS, { credentialType: 'PASSWORD', sessionId: 'idxOldSession' });
    given(ada, 'user.account.reset_password', 89 * DAY_MS);
    given(ada, 'user.account.update_password', 91 * DAY_MS);

    const before = lastSeq();
    const first = await pageOf(ada, { limit: '2' });
    const second = await pageOf(ada, { limit: '2', before: first.next ?? '' });
    const third = await pageOf(ada, { limit: '2', before: second.next ?? '' });
    expect([first, second, third].map((page) => page.events.length)).toEqual([2, 2, 1]);
    expect(first.next).toMatch(/^o\d+\./);
    expect(third.next).toBeNull();
    const all = [...first.events, ...second.events, ...third.events];
    expect(all.map((event) => event.kind)).toEqual([
      'password-changed',
      'signed-out',
      'sign-in-failed',
      'signed-in',
      'password-reset',
    ]);
    expect(new Set(all.map((event) => event.id)).size).toBe(5);
    expect(all[0]).toMatchObject({ country: 'GB', address: '81.2.69.x', browser: 'Firefox' });

    // The second read is Okta's next link: its `after` and `until`, with the server's own filter again.
    const reads = logReads(before);
    expect(reads).toHaveLength(3);
    const [, next] = reads;
    expect(next?.params.get('after')).toBe(
      org()
        .logEvents()
        .find((e) => e.published === all[1]?.at)?.uuid,
    );
    expect(next?.params.get('until')).toBe(all[1]?.at);
    expect(next?.params.get('filter')).toBe(reads[0]?.params.get('filter'));
  });

  it("is the caller's own: another user's events never show, another sub is refused, the filter is the server's", async () => {
    const ada = await newAccount();
    const bob = await newAccount('Bob');
    expect((await signInAtOrg(bob)).status).toBe(200);
    // Ada (an admin, say) resets Bob's factors: Ada is the actor, the account is Bob's.
    given(ada, 'user.mfa.factor.reset_all', DAY_MS, {
      targets: [{ id: bob.id, type: 'User', alternateId: bob.login, displayName: 'Bob Lovelace' }],
    });
    given(ada, 'user.session.end', 2 * DAY_MS);

    expect((await pageOf(ada)).events.map((event) => event.kind)).toEqual(['signed-out']);
    expect((await pageOf(bob)).events.map((event) => event.kind)).toEqual(['signed-in', 'method-removed']);

    const before = lastSeq();
    const stolen = await inject(t.app, 'GET', activityUrl(bob.id), ada.token);
    expect(stolen.status).toBe(403);
    expect(logReads(before)).toEqual([]);
    // The request's own parameters never reach Okta's: a `filter` or `q` of the caller's is not passed on.
    const widened = await inject(
      t.app,
      'GET',
      activityUrl(ada.id, { filter: 'actor.id pr', q: bob.id, limit: '5' }),
      ada.token,
    );
    expect(widened.status).toBe(200);
    const reads = logReads(before);
    expect(reads).toHaveLength(1);
    for (const read of reads) {
      expect(read.params.get('filter')).toMatch(
        new RegExp(`\\) and \\(actor\\.id eq "${ada.id}" or target\\.id eq "${ada.id}"\\)$`),
      );
      expect(read.query).not.toContain(bob.id);
      expect(read.params.has('q')).toBe(false);
    }
  });

  it('refuses a cursor that is not one with 400, asking Okta only with a well-formed one', async () => {
    const ada = await newAccount();
    given(ada, 'user.session.end', DAY_MS);
    given(ada, 'user.session.end', 2 * DAY_MS);
    const { next } = await pageOf(ada, { limit: '1' });
    expect(next).not.toBeNull();
    const before = lastSeq();
    for (const cursor of [
      'yesterday',
      `1767225600000_${'A'.repeat(20)}`,
      `o${Date.now() + DAY_MS}.abc`,
      `o${Date.now() - 91 * DAY_MS}.abc`,
      `o1.${'a'.repeat(10)}`,
      `${next ?? ''}"or"x`,
      `o${Date.now()}.a b`,
    ]) {
      const answer = await activityOf(ada, { before: cursor });
      expect(answer.status, cursor).toBe(400);
      expect(answer.body).toEqual(CURSOR_REFUSED);
    }
    expect(logReads(before)).toEqual([]);
    // Well-formed, in the window, an `after` Okta never gave: Okta's 400, the same refusal.
    const forged = await activityOf(ada, { before: `o${Date.now() - DAY_MS}.forged-after-token` });
    expect(forged.status).toBe(400);
    expect(forged.body).toEqual(CURSOR_REFUSED);
    expect(logReads(before)).toHaveLength(1);
  });

  it("answers 501 activity_unavailable when the portal's credentials may not read the System Log", async () => {
    // The default OKTA_SCOPES: no okta.logs.read asked for, so Okta is not asked.
    const plain = await startOktaPortal(org());
    try {
      const ada = await newAccount();
      const before = lastSeq();
      const answer = await activityOf(ada, {}, plain.app);
      expect(answer.status).toBe(501);
      expect(answer.body).toEqual({ error: UNAVAILABLE, code: API_ERROR_CODES.activityUnavailable });
      expect(logReads(before)).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it("reads Okta's 403 (a token without okta.logs.read) as 'forbidden', not as a failure", async () => {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    org().registerServiceApp({
      clientId: '0oaNoLogsApp',
      publicJwk: { ...pair.publicKey.export({ format: 'jwk' }), kid: 'nologs-1', alg: 'RS256' },
      scopes: ['okta.users.read', 'okta.users.manage'],
    });
    const { credentials } = oktaSettingsOf(
      parseEnv({
        OKTA_CLIENT_ID: '0oaNoLogsApp',
        OKTA_PRIVATE_KEY: pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        OKTA_KEY_ID: 'nologs-1',
      }),
    );
    // Told it may read (as an API token would be): Okta's answer decides.
    const log = new OktaSystemLog(new OktaOrg({ orgUrl: org().url, credentials }), true);
    const ada = await newAccount();
    const answer = await log.read(ada.id, {
      eventTypes: ORG_ACTIVITY_EVENT_TYPES,
      since: new Date(Date.now() - DAY_MS),
      until: new Date(),
      limit: 5,
    });
    expect(answer).toEqual({ kind: 'forbidden' });
    expect(org().requests().at(-1)).toMatchObject({ operationId: 'listLogEvents', status: 403 });
  });

  it('fails as upstream_failed (502) when Okta does not answer within the request timeout', async () => {
    // An "org" that takes the connection and never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const { credentials } = oktaSettingsOf(parseEnv({ OKTA_API_TOKEN: '00-portal-api-token' }));
      const orgClient = new OktaOrg({
        orgUrl: `http://127.0.0.1:${port}`,
        credentials,
        requestTimeoutMs: 200,
      });
      const read = new OktaSystemLog(orgClient, true).read('00uAdaLovelace000001', {
        eventTypes: ORG_ACTIVITY_EVENT_TYPES,
        since: new Date(Date.now() - DAY_MS),
        until: new Date(),
        limit: 5,
      });
      await expect(read).rejects.toMatchObject({ statusCode: 502, code: API_ERROR_CODES.upstreamFailed });
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('answers 502 upstream_failed when the org cannot be reached', async () => {
    const gone: StandIn = await startOktaOrg({ jwks: server.jwks });
    const portal = await startOktaPortal(gone, { OKTA_SCOPES: LOGS_SCOPES });
    try {
      const account = newOrgAccount(gone, 'Ada', 'Lovelace', 'GB');
      const token = await server.token(gone, { id: account.id, login: account.login });
      // The caller is known (the per-call cache), then the org goes away before the log is read.
      expect((await inject(portal.app, 'GET', apiPaths.isFederated(account.id), token)).status).toBe(200);
      await gone.close();
      const answer = await inject(portal.app, 'GET', activityUrl(account.id), token);
      expect(answer.status).toBe(502);
      expect(answer.body).toMatchObject({ code: API_ERROR_CODES.upstreamFailed });
    } finally {
      await portal.close();
    }
  });
});
