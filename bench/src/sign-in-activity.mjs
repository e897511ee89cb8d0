// Issue 22's "Measure": the sign-in's time with and without its activity event write, median of 50 each, one run.
// The event is written in the transaction that saves the sign-in's result (server/src/oidc/adapter.ts). The product
// has no setting that turns the write off in embedded mode (the activity is off only in Okta mode), so this builds
// the server in this process (server/dist, from `pnpm build`) and turns the write off for half the sign-ins the way
// server/test/activity-timing.test.ts does: `app.activity.enabled` reads false, so the sign-in prepares no event and
// its transaction writes none. Everything else of the sign-in is the product's: real argon2 hashing, SQLite in a data
// folder of the bench's own. No port: requests go through app.inject().
//
// Timed: the password form's POST, the request that finishes a sign-in and holds the write (the authorization
// request and the sign-in page before it are not timed). 50 with the event and 50 without, interleaved, the order
// alternating, after 5 warm-up sign-ins.
//
//   node bench/src/sign-in-activity.mjs     (after `pnpm build`, or `pnpm --filter server build` and shared-auth's)
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { freshDataDir } from './instance.mjs';
import { ROOT } from './portal.mjs';

export const SIGN_INS = 50;
const WARM_UP = 5;
/** The bound the issue sets in words ("does not slow the sign-in path"), as a figure: within 10 % of it. */
export const GOAL_RATIO = 1.1;
const ALICE = { email: 'alice@example.com', password: 'Wonderland-42' };
const CLIENT_ID = 'account-portal';
const ORIGIN = 'http://localhost:3000';

/** Every cookie goes back on every request (paths ignored): enough for the provider's own pages. */
function cookieJar() {
  const cookies = new Map();
  return {
    store(setCookie) {
      for (const header of [setCookie ?? []].flat()) {
        const [pair = ''] = header.split(';');
        const index = pair.indexOf('=');
        const value = pair.slice(index + 1).trim();
        if (value === '' || /max-age=0(;|$)/i.test(header)) cookies.delete(pair.slice(0, index).trim());
        else cookies.set(pair.slice(0, index).trim(), value);
      }
    },
    header: () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
  };
}

const unescapeHtml = (value) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function authorizeUrl() {
  const verifier = randomBytes(32).toString('base64url');
  return `/oauth2/default/v1/authorize?${new URLSearchParams({
    client_id: CLIENT_ID,
    response_type: 'code',
    scope: 'openid profile email phone',
    redirect_uri: `${ORIGIN}/login/callback`,
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  })}`;
}

/** Opens a sign-in page (not timed) and returns the timed POST of its password form. */
async function preparedPost(app, account) {
  const jar = cookieJar();
  let url = authorizeUrl();
  let page;
  for (let hops = 0; hops < 10; hops += 1) {
    page = await app.inject({ method: 'GET', url, headers: { cookie: jar.header() } });
    jar.store(page.headers['set-cookie']);
    if (page.statusCode < 300 || page.statusCode >= 400) break;
    const next = new URL(String(page.headers.location), ORIGIN);
    url = `${next.pathname}${next.search}`;
  }
  const action = /<form method="post" action="([^"]+)"/.exec(page.body)?.[1];
  if (page.statusCode !== 200 || !action)
    throw new Error(`expected the sign-in page, got ${page.statusCode}: ${page.body.slice(0, 300)}`);
  const hidden = Object.fromEntries(
    [...page.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((match) => [
      unescapeHtml(match[1]),
      unescapeHtml(match[2]),
    ]),
  );
  const request = {
    method: 'POST',
    url: unescapeHtml(action),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
    payload: new URLSearchParams({ ...hidden, ...account }).toString(),
  };
  return async () => {
    const started = performance.now();
    const answer = await app.inject(request);
    const ms = performance.now() - started;
    // 303: on to the authorization's end, signed in. Anything else is no sign-in and no figure.
    if (answer.statusCode !== 303) throw new Error(`the sign-in POST answered ${answer.statusCode}`);
    return ms;
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * @returns {Promise<{ runs: number, storage: string, withEventMs: number, withoutEventMs: number, ratio: number,
 *   eventsWritten: number }>}
 */
export async function measureSignInActivity() {
  const dist = (file) => pathToFileURL(path.join(ROOT, 'server', 'dist', file)).href;
  const { buildApp } = await import(dist('app.js'));
  const { loadConfig } = await import(dist('config/index.js'));
  const dataDir = path.join(freshDataDir('sign-in-activity'), 'data');
  // SQLite in the bench's own folder, whatever the shell's environment says.
  const { DATABASE_URL: _database, ...env } = process.env;
  const config = loadConfig({
    ...env,
    DATA_DIR: dataDir,
    PUBLIC_URL: ORIGIN,
    SETTINGS_FILE: path.join(ROOT, 'config', 'settings.json'),
    LOG_LEVEL: 'warn',
    // Past the per-address limits of sign-in requests and form posts: one address signs in 105 times here.
    AUTHORIZE_RATE_LIMIT: '100000',
    SIGN_IN_POSTS_PER_MINUTE: '100000',
  });
  const app = await buildApp(config, { logger: false });
  try {
    if (!app.activity.enabled) throw new Error('the activity is off: is the server in Okta mode?');
    const user = await app.directory.findByEmail(ALICE.email);
    if (!user) throw new Error(`${ALICE.email} is not seeded (DEMO_ACCOUNTS)`);
    // The switch: an own property over the class's getter, removed to turn the write back on.
    const writeOff = () =>
      Object.defineProperty(app.activity, 'enabled', { value: false, configurable: true });
    const writeOn = () => delete app.activity.enabled;

    for (let i = 0; i < WARM_UP; i += 1) await (await preparedPost(app, ALICE))();
    const withEvent = [];
    const without = [];
    const timeWithout = async () => {
      writeOff();
      try {
        without.push(await (await preparedPost(app, ALICE))());
      } finally {
        writeOn();
      }
    };
    const timeWith = async () => withEvent.push(await (await preparedPost(app, ALICE))());
    for (let i = 0; i < SIGN_INS; i += 1) {
      if (i % 2 === 0) {
        await timeWith();
        await timeWithout();
      } else {
        await timeWithout();
        await timeWith();
      }
    }
    // Only the sign-ins with the write on have an event: proof the switch did what it says.
    const events = await app.storage.activity.list(user.id, { since: 0, limit: 1000 });
    const eventsWritten = events.filter((event) => event.kind === 'signed-in').length;
    if (eventsWritten !== WARM_UP + SIGN_INS)
      throw new Error(
        `${eventsWritten} sign-in events, expected ${WARM_UP + SIGN_INS}: the switch did not hold`,
      );
    const [withEventMs, withoutEventMs] = [median(withEvent), median(without)];
    return {
      runs: SIGN_INS,
      storage: app.storage.sql.dialect,
      withEventMs,
      withoutEventMs,
      ratio: withEventMs / withoutEventMs,
      eventsWritten,
    };
  } finally {
    await app.close();
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
}

/** The figure beside its goal, as report lines. */
export function formatSignInActivity(result) {
  const { runs, storage, withEventMs, withoutEventMs, ratio } = result;
  return [
    `Sign-in with and without its activity event (the password POST, median of ${runs} each, interleaved, one run, ${storage}, in process)`,
    `  with the event write      ${withEventMs.toFixed(2).padStart(8)} ms`,
    `  without it                ${withoutEventMs.toFixed(2).padStart(8)} ms   (difference ${(withEventMs - withoutEventMs).toFixed(2)} ms)`,
    `  ratio ${ratio.toFixed(3)} (goal ≤ ${GOAL_RATIO}: ${ratio <= GOAL_RATIO ? 'met' : 'not met'})`,
  ].join('\n');
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename);
if (isMain) {
  const result = await measureSignInActivity();
  console.log(formatSignInActivity(result));
  console.log(
    `  events written: ${result.eventsWritten}, one per sign-in with the write on (${WARM_UP} warm-up + ${SIGN_INS}), none without`,
  );
}
