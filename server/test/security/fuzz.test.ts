/**
 * Property-based fuzzing (fast-check) of every request body and path parameter of the spec's calls: malformed
 * JSON, wrong types, huge strings (past the 16 KiB body limit too), unicode (lone surrogates, RTL, emoji, NUL),
 * invalid UTF-8, prototype-pollution keys, arrays for objects, extra keys, odd content types.
 *
 * Properties: never a 5xx and never a crash; every refusal is JSON `{ "error": "…" }` and nothing else; every
 * 2xx is the spec's JSON text; no path other than the caller's own exact sub is ever answered with a 2xx;
 * Object.prototype stays clean; and the server still answers a normal request afterwards.
 *
 * FUZZ_RUNS (default 120 per call) and FUZZ_SEED replay or widen a run; the seed is printed.
 */
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { API_ERROR_CODES, apiCalls, apiPaths, pathOf } from 'shared-auth/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTwice } from '../helpers.js';
import {
  newUser,
  signInSession,
  startClockedApp,
  type ClockedApp,
  type Session,
} from '../security-helpers.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 120);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const BODY_LIMIT = 16 * 1024;

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface FuzzCall {
  method: Method;
  spec: string;
  path: (sub: string, factor?: string) => string;
  /** The body's field names, to build near-valid bodies around. */
  fields: string[];
  /** Values the call expects for those fields (so generated bodies sometimes pass validation). */
  good: Record<string, unknown>;
  /** Path parameters besides sub (the factor of the step-up calls, a session's id) and their valid values. */
  factors?: readonly string[];
  /** A 2xx must answer what was stored: check it against the body sent. */
  stored?: (sent: Record<string, unknown>, answer: Record<string, unknown>, where: string) => void;
}

const mf = (
  factor: 'googleauth' | 'email',
  action: 'enroll' | 'details' | 'activate' | 'opt-in' | 'opt-out' | 'reset',
  method: Method,
  good: Record<string, unknown> = {},
): FuzzCall => ({
  method,
  spec: `/api/multifactor/${factor}/{sub}/${action}`,
  path: (sub) => apiPaths.multifactor(factor, sub, action),
  fields: Object.keys(good),
  good,
});

/**
 * The spec's calls with a caller (all but getSettings, which has no body and no path parameter), reauthenticate and
 * the recovery codes' calls.
 */
const CALLS: FuzzCall[] = [
  {
    method: 'PUT',
    spec: '/api/profile/{sub}/update',
    path: apiPaths.profileUpdate,
    fields: ['firstName', 'lastName', 'country', 'email'],
    good: { firstName: 'Ada', lastName: 'Lovelace', country: 'GB' },
    // What was accepted is what is stored and answered, character for character (names trimmed).
    stored: (sent, answer, where) => {
      for (const field of ['firstName', 'lastName', 'country'] as const) {
        const value = sent[field];
        if (typeof value === 'string') {
          expect(answer[field], `${where}: ${field}`).toBe(field === 'country' ? value : value.trim());
        }
      }
    },
  },
  { method: 'GET', spec: '/api/profile/{sub}/isfederated', path: apiPaths.isFederated, fields: [], good: {} },
  {
    method: 'PUT',
    spec: '/api/password/{sub}/change',
    path: apiPaths.passwordChange,
    fields: ['OldPassword', 'NewPassword'],
    good: { OldPassword: 'Not-The-Password-1', NewPassword: 'Tumbling-Down-7' },
  },
  {
    method: 'GET',
    spec: '/api/stepup/{sub}/challenge',
    path: apiPaths.stepUpChallenge,
    fields: [],
    good: {},
  },
  {
    method: 'POST',
    spec: '/api/stepup/{sub}/{factor}/challenge',
    path: (sub, factor = 'email') => `/api/stepup/${sub}/${factor}/challenge`,
    fields: [],
    good: {},
    factors: ['email'],
  },
  {
    method: 'POST',
    spec: '/api/stepup/{sub}/{factor}/verify',
    path: (sub, factor = 'google-auth') => `/api/stepup/${sub}/${factor}/verify`,
    fields: ['passCode'],
    good: { passCode: '123456' },
    factors: ['google-auth', 'email'],
  },
  mf('googleauth', 'enroll', 'POST'),
  mf('googleauth', 'details', 'GET'),
  mf('googleauth', 'activate', 'POST', { code: '123456' }),
  mf('googleauth', 'opt-in', 'PUT'),
  mf('googleauth', 'opt-out', 'DELETE'),
  mf('googleauth', 'reset', 'DELETE', { optOut: true }),
  mf('email', 'enroll', 'POST'),
  mf('email', 'activate', 'POST', { code: '123456' }),
  mf('email', 'details', 'GET'),
  mf('email', 'opt-in', 'PUT'),
  mf('email', 'opt-out', 'DELETE'),
  mf('email', 'reset', 'DELETE', { optOut: true }),
  {
    method: 'POST',
    spec: '/api/stepup/{sub}/reauthenticate',
    path: apiPaths.reauthenticate,
    fields: ['password'],
    good: { password: 'Not-The-Password-1' },
  },
  // Issue 20's recovery codes.
  {
    method: 'GET',
    spec: '/api/recoverycodes/{sub}',
    path: (sub) => pathOf(apiCalls.recoveryCodesStatus.path, { sub }),
    fields: [],
    good: {},
  },
  {
    method: 'POST',
    spec: '/api/recoverycodes/{sub}/generate',
    path: (sub) => pathOf(apiCalls.recoveryCodesGenerate.path, { sub }),
    fields: [],
    good: {},
  },
  {
    method: 'POST',
    spec: '/api/stepup/{sub}/recovery-code/verify',
    path: (sub) => pathOf(apiCalls.stepUpVerifyRecoveryCode.path, { sub }),
    fields: ['recoveryCode'],
    good: { recoveryCode: 'ABCDE-FGHJK' },
  },
  // Passkeys: the WebAuthn answers' outer shape is the contract's, the rest is verified by the server.
  ...passkeyCalls(),
  // Issue 22's activity: no body; its query is fuzzed in test/activity.test.ts.
  {
    method: 'GET',
    spec: apiCalls.activity.path,
    path: (sub) => pathOf(apiCalls.activity.path, { sub }),
    fields: [],
    good: {},
  },
  // Issue 22's devices: the list, signing out one (its id fuzzed as a path parameter; an unknown one is a 404) and
  // the others (the caller's only session stays). "Sign out everywhere" would end the fuzzing caller's own
  // session: it is in the authorization matrix and test/devices.test.ts instead.
  {
    method: 'GET',
    spec: apiCalls.sessions.path,
    path: (sub) => pathOf(apiCalls.sessions.path, { sub }),
    fields: [],
    good: {},
  },
  {
    method: 'DELETE',
    spec: apiCalls.sessionSignOut.path,
    path: (sub, id) => pathOf(apiCalls.sessionSignOut.path, { sub, id: id ?? 'AAAAAAAAAAAAAAAAAAAA' }),
    fields: [],
    good: {},
    factors: ['AAAAAAAAAAAAAAAAAAAA'],
  },
  {
    method: 'POST',
    spec: apiCalls.sessionsSignOutOthers.path,
    path: (sub) => pathOf(apiCalls.sessionsSignOutOthers.path, { sub }),
    fields: [],
    good: {},
  },
];

/** The passkeys' calls; the answers' good body is a well-formed assertion of no known credential. */
function passkeyCalls(): FuzzCall[] {
  const clientDataJSON = Buffer.from(
    JSON.stringify({ type: 'webauthn.get', challenge: 'AAAA', origin: 'http://localhost:3000' }),
  ).toString('base64url');
  const answer = {
    response: {
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      response: { clientDataJSON, authenticatorData: 'AAAA', signature: 'AAAA', attestationObject: 'AAAA' },
      clientExtensionResults: {},
    },
  };
  const withId = (path: string) => (sub: string) => pathOf(path, { sub, id: 'pk-unknown' });
  return [
    {
      method: 'GET',
      spec: apiCalls.passkeys.path,
      path: withId(apiCalls.passkeys.path),
      fields: [],
      good: {},
    },
    {
      method: 'POST',
      spec: apiCalls.passkeyRegistrationOptions.path,
      path: withId(apiCalls.passkeyRegistrationOptions.path),
      fields: [],
      good: {},
    },
    {
      method: 'POST',
      spec: apiCalls.passkeyRegistrationVerify.path,
      path: withId(apiCalls.passkeyRegistrationVerify.path),
      fields: ['response'],
      good: answer,
    },
    {
      method: 'PUT',
      spec: apiCalls.passkeyRename.path,
      path: withId(apiCalls.passkeyRename.path),
      fields: ['name'],
      good: { name: 'Laptop' },
    },
    {
      method: 'DELETE',
      spec: apiCalls.passkeyRemove.path,
      path: withId(apiCalls.passkeyRemove.path),
      fields: [],
      good: {},
    },
    {
      method: 'POST',
      spec: apiCalls.stepUpPasskeyOptions.path,
      path: withId(apiCalls.stepUpPasskeyOptions.path),
      fields: [],
      good: {},
    },
    {
      method: 'POST',
      spec: apiCalls.stepUpVerifyPasskey.path,
      path: withId(apiCalls.stepUpVerifyPasskey.path),
      fields: ['response'],
      good: answer,
    },
  ];
}

// ---- Generators -------------------------------------------------------------------------------------------

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uDBFFy',
  '\u202Eevil\u202C',
  'שלום عربي',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  '\uFEFF',
  'e\u0301\u0301\u0301',
  'ｆｕｌｌｗｉｄｔｈ',
  '\r\n\t',
  '<script>alert(1)</script>',
  "'; DROP TABLE users; --",
  '${7*7}{{7*7}}',
  '../../etc/passwd',
  '%00',
  'null',
  'true',
  '123456',
  '1e309',
  '__proto__',
];

/** One UTF-16 unit or character of the kinds that break things: lone surrogates, controls, bidi marks, emoji. */
const oddChar = fc.oneof(
  { arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)), weight: 3 },
  { arbitrary: fc.constantFrom('\u0000', '\u0007', '\n', '\u007F', '\u0085'), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      '\u202E',
      '\u200F',
      '\u2066',
      '\u200B',
      '\uFEFF',
      '\uFFFD',
      '\u0301',
      '😀',
      '👩‍👩‍👧',
      'ß',
      'İ',
      'a',
      ' ',
    ),
    weight: 6,
  },
);

const nastyString = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ unit: oddChar, maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  // Long, up to past the body limit (413), built from one odd character.
  fc
    .tuple(
      fc.constantFrom('x', 'é', '😀', '\u0000', '\uD800', '"', '\\'),
      fc.integer({ min: 60, max: 24_000 }),
    )
    .map(([char, length]) => char.repeat(length)),
);

const scalar = fc.oneof(
  nastyString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -0, 1e308),
);

/** A JSON value as text, written by hand so keys like __proto__ stay plain keys in the text. */
type Tree = string | { kind: 'object'; entries: [string, Tree][] } | { kind: 'array'; items: Tree[] };

const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

function treeOf(fields: string[]) {
  const key = fc.oneof(
    fc.constantFrom(...POLLUTION_KEYS),
    ...(fields.length > 0 ? [fc.constantFrom(...fields)] : []),
    fc.string({ unit: 'binary', maxLength: 12 }),
  );
  const leaf = scalar.map((value) => JSON.stringify(value) ?? 'null');
  const { tree } = fc.letrec<{ tree: Tree; object: Tree; array: Tree }>((tie) => ({
    tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('object'), tie('array')),
    object: fc
      .array(fc.tuple(key, tie('tree')), { maxLength: 5 })
      .map((entries) => ({ kind: 'object' as const, entries })),
    array: fc.array(tie('tree'), { maxLength: 4 }).map((items) => ({ kind: 'array' as const, items })),
  }));
  return tree;
}

function serialize(tree: Tree): string {
  if (typeof tree === 'string') return tree;
  if (tree.kind === 'array') return `[${tree.items.map(serialize).join(',')}]`;
  return `{${tree.entries.map(([key, value]) => `${JSON.stringify(key)}:${serialize(value)}`).join(',')}}`;
}

interface Payload {
  kind: string;
  body: string | Buffer | undefined;
  contentType: string | undefined;
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON'];
const OTHER_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/jsonx',
  '',
];

function payloads(call: FuzzCall): fc.Arbitrary<Payload> {
  const json = (kind: string, text: fc.Arbitrary<string | Buffer>) =>
    fc
      .tuple(text, fc.constantFrom(...JSON_TYPES))
      .map(([body, contentType]): Payload => ({ kind, body, contentType }));
  const good = JSON.stringify(call.good);
  // The call's own fields with odd values, missing ones, and extra keys.
  // The call's valid body with one field changed (an odd value, often odd text), some fields left out, and
  // sometimes extra keys: most checks pass, so the one changed value meets the deeper ones.
  const fieldValue = fc.oneof(
    { arbitrary: nastyString, weight: 4 },
    scalar,
    fc.jsonValue(),
    fc.constantFrom('GB', 'FR', 'DE'),
  );
  const nearValid = fc
    .tuple(
      fc.constantFrom(...(call.fields.length > 0 ? call.fields : ['x'])),
      fieldValue,
      fc.subarray(Object.keys(call.good)),
      fc.option(fc.dictionary(fc.string({ unit: 'binary', maxLength: 10 }), scalar, { maxKeys: 3 }), {
        freq: 3,
      }),
    )
    .map(([field, value, kept, extra]) => {
      const body: Record<string, unknown> = Object.fromEntries(kept.map((name) => [name, call.good[name]]));
      body[field] = value;
      // Defined with defineProperty, so a key named __proto__ is an own key and is serialized.
      for (const [name, extraValue] of Object.entries(extra ?? {})) {
        Object.defineProperty(body, name, {
          value: extraValue,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return JSON.stringify(body);
    });
  return fc.oneof(
    { arbitrary: json('near-valid', nearValid), weight: 4 },
    json(
      'any JSON',
      fc.jsonValue().map((value) => JSON.stringify(value)),
    ),
    json('nested/pollution', treeOf(call.fields).map(serialize)),
    json(
      'pollution',
      fc
        .tuple(
          fc.constantFrom(...POLLUTION_KEYS),
          fc.constantFrom('{"polluted":"yes"}', '{"prototype":{"polluted":"yes"}}', '"x"', '[]'),
        )
        .map(([key, value]) => `${good.slice(0, -1)}${good.length > 2 ? ',' : ''}"${key}":${value}}`),
    ),
    json(
      'malformed JSON',
      fc.oneof(
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc.json().map((text) => text.slice(0, Math.max(1, text.length - 1))),
        fc.constantFrom(
          '{',
          '{"a":',
          '{"a":1,}',
          "{'a':1}",
          '{"a":1}{',
          'NaN',
          '{"a":01}',
          '\uFEFF{}',
          '{"a":"\\x"}',
        ),
      ),
    ),
    json(
      'invalid UTF-8',
      fc
        .uint8Array({ maxLength: 80 })
        .map((bytes) =>
          Buffer.concat([
            Buffer.from(`${good.slice(0, -1)}${good.length > 2 ? ',' : ''}"z":"`),
            bytes,
            Buffer.from('"}'),
          ]),
        ),
    ),
    json(
      'huge',
      fc
        .integer({ min: BODY_LIMIT - 64, max: 4 * BODY_LIMIT })
        .map((size) => `{"${call.fields[0] ?? 'x'}":"${'a'.repeat(size)}"}`),
    ),
    fc
      .tuple(
        fc.constantFrom(...OTHER_TYPES),
        fc.oneof(fc.constant(good), fc.string({ unit: 'binary', maxLength: 60 })),
      )
      .map(([contentType, body]): Payload => ({
        kind: `content-type ${contentType || '(empty)'}`,
        body,
        contentType,
      })),
    fc.constant<Payload>({ kind: 'no body', body: undefined, contentType: undefined }),
    fc.constant<Payload>({ kind: 'empty JSON body', body: '', contentType: 'application/json' }),
  );
}

/** How a generated string goes into the path: percent-encoded as UTF-8 (lone surrogates as WTF-8), or raw bytes. */
function encodeSegment(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (/^[A-Za-z0-9\-_.~]$/.test(char)) out += char;
    else if (code >= 0xd800 && code <= 0xdfff) {
      // What a broken client would send for a lone surrogate: not valid UTF-8.
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

function segments(ownSub: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: 'binary', maxLength: 30 }).map(encodeSegment),
    fc.constantFrom(...NASTY_STRINGS).map(encodeSegment),
    // Percent-escapes of arbitrary bytes: invalid UTF-8, NUL, encoded slashes and dots.
    fc
      .uint8Array({ minLength: 1, maxLength: 12 })
      .map((bytes) => [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('')),
    fc.constantFrom('..', '.', '%2e%2e', '..%2f..%2f', '%2F', '%', '%zz', '%E0%A4%A', '*', '%20'),
    // Near the caller's own sub: another case, a suffix, a prefix, encoded.
    fc.constantFrom(
      ownSub.toUpperCase(),
      ownSub.toLowerCase(),
      `${ownSub}%00`,
      `${ownSub}%20`,
      `%20${ownSub}`,
      `${ownSub}x`,
      ownSub.slice(0, -1),
      `${ownSub};`,
      `${ownSub}%2F..`,
      encodeSegment(`${ownSub}\u200B`),
    ),
    fc.integer({ min: 90, max: 400 }).map((length) => 'a'.repeat(length)),
  );
}

// ---- The properties ---------------------------------------------------------------------------------------

let t: ClockedApp;
let caller: Session;
const counts = { bodies: 0, paths: 0 };

function checkAnswer(response: LightMyRequestResponse, where: string) {
  expect(response.statusCode, `${where}: ${response.body.slice(0, 300)}`).toBeLessThan(500);
  expect(response.headers['content-type'], where).toMatch(/^application\/json/);
  if (response.statusCode >= 400) {
    const body = response.json<Record<string, unknown>>();
    // `{ error }`, and for the refusals the page reacts to, a machine `code` from the contract beside it; "Confirm
    // it's you" also says which proof the backend takes.
    const proof = body.code === API_ERROR_CODES.reauthenticationRequired ? ['proof'] : [];
    expect(['error', ...(body.code === undefined ? [] : ['code']), ...proof], where).toEqual(
      Object.keys(body),
    );
    if (body.code !== undefined) expect(Object.values(API_ERROR_CODES), where).toContain(body.code);
    expect(typeof body.error, where).toBe('string');
    expect((body.error as string).length, where).toBeGreaterThan(0);
  } else {
    expect(() => parseTwice(response.body), where).not.toThrow();
  }
  // Nothing reached Object.prototype.
  expect(Object.getOwnPropertyNames(Object.prototype).sort(), where).toEqual(PROTOTYPE_KEYS);
  expect(({} as Record<string, unknown>).polluted, where).toBeUndefined();
}

const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();

async function stillServes() {
  const response = await t.app.inject({
    url: apiPaths.isFederated(caller.user.id),
    headers: { authorization: `Bearer ${caller.token}` },
  });
  expect(response.statusCode).toBe(200);
  expect(parseTwice(response.body)).toEqual({ isFederated: false });
}

beforeAll(async () => {
  // The /api flood guard (600 a minute by default) would answer the fuzzing's thousands of requests with 429.
  t = await startClockedApp({ API_RATE_LIMIT: '1000000' });
  // A regular user without factors: no step-up is needed, so every call reaches its validation and handler.
  caller = await signInSession(t.app, await newUser(t.app));
});

afterAll(async () => {
  console.log(
    `Fuzzing: ${counts.bodies + counts.paths} generated requests over ${CALLS.length} calls ` +
      `(${counts.bodies} bodies, ${counts.paths} paths; ${RUNS} runs per call and kind; seed ${SEED})`,
  );
  await t.close();
});

describe('fuzzing the request bodies', () => {
  it.each(
    CALLS.filter((call) => call.method !== 'GET').map(
      (call) => [`${call.method} ${call.spec}`, call] as const,
    ),
  )('%s', async (name, call) => {
    await fc.assert(
      fc.asyncProperty(
        payloads(call),
        fc.constantFrom(...(call.factors ?? [undefined])),
        async (payload, factor) => {
          counts.bodies += 1;
          // Keep the email-send and step-up clocks moving, so sends are not all refused by the 30 s limit.
          t.clock.advance(31_000);
          const response = await t.app.inject({
            method: call.method,
            url: call.path(caller.user.id, factor),
            headers: {
              authorization: `Bearer ${caller.token}`,
              ...(payload.contentType === undefined ? {} : { 'content-type': payload.contentType }),
            },
            ...(payload.body === undefined ? {} : { payload: payload.body }),
          });
          const where = `${name} with ${payload.kind}`;
          checkAnswer(response, where);
          if (response.statusCode < 300 && call.stored && typeof payload.body === 'string') {
            call.stored(
              JSON.parse(payload.body) as Record<string, unknown>,
              parseTwice(response.body) as Record<string, unknown>,
              where,
            );
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    await stillServes();
  });
});

describe('fuzzing the path parameters', () => {
  it.each(CALLS.map((call) => [`${call.method} ${call.spec}`, call] as const))('%s', async (name, call) => {
    const factor = call.factors
      ? fc.oneof(fc.constantFrom(...call.factors), segments('email'))
      : fc.constant(undefined);
    await fc.assert(
      fc.asyncProperty(segments(caller.user.id), factor, async (sub, factorSegment) => {
        counts.paths += 1;
        const good = JSON.stringify(call.good);
        const response = await t.app.inject({
          method: call.method,
          url: call.path(sub, factorSegment),
          headers: {
            authorization: `Bearer ${caller.token}`,
            ...(call.method === 'GET' ? {} : { 'content-type': 'application/json' }),
          },
          ...(call.method === 'GET' ? {} : { payload: good }),
        });
        const where = `${call.method} ${call.path(sub, factorSegment)}`;
        checkAnswer(response, where);
        // Only the caller's own sub, exactly, is ever served.
        if (response.statusCode < 400) expect(decodeURIComponent(sub), where).toBe(caller.user.id);
        else expect([400, 403, 404, 414], where).toContain(response.statusCode);
      }),
      { numRuns: Math.ceil(RUNS / 2), seed: SEED },
    );
    await stillServes();
  });
});

describe('what the fuzzing found', () => {
  it('refuses half a surrogate pair in a name, which SQLite would have stored as U+FFFD (400, not 200)', async () => {
    for (const name of ['\udfff', 'Ad\ud800a', 'a\ud83d']) {
      const response = await t.app.inject({
        method: 'PUT',
        url: apiPaths.profileUpdate(caller.user.id),
        headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ lastName: name }),
      });
      expect(response.statusCode, JSON.stringify(name)).toBe(400);
      expect(response.json()).toEqual({
        error: 'Last name must not contain broken characters',
        code: 'invalid_request',
      });
    }
    // A whole pair (an emoji) is a character like any other.
    const emoji = await t.app.inject({
      method: 'PUT',
      url: apiPaths.profileUpdate(caller.user.id),
      headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ lastName: 'Lovelace 😀' }),
    });
    expect(parseTwice(emoji.body)).toMatchObject({ lastName: 'Lovelace 😀' });
  });
});

describe('after the fuzzing', () => {
  it('still serves normal requests, and the account is intact', async () => {
    await stillServes();
    const saved = await t.app.inject({
      method: 'PUT',
      url: apiPaths.profileUpdate(caller.user.id),
      headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ firstName: 'Ada', lastName: 'Lovelace', country: 'GB' }),
    });
    expect(saved.statusCode).toBe(200);
    expect(parseTwice(saved.body)).toMatchObject({ email: caller.user.email, firstName: 'Ada' });
    expect((await t.app.directory.findById(caller.user.id))?.email).toBe(caller.user.email);
  });
});
