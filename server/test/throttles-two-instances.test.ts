/**
 * A throttle counts across the instances of a deployment: failures spread over two instances over one database add
 * up to one limit, and once it is reached the next attempt is refused whichever instance it reaches. Were the
 * counts kept per instance, neither would have reached the limit and the right password would pass. (Moved down
 * from the e2e cluster project, which proved the same through a round-robin proxy in Chromium.)
 */
import type { FastifyInstance } from 'fastify';
import { apiPaths } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { PASSWORD_CHANGE_LIMIT, SIGN_IN_LIMIT } from '../src/throttles/limits.js';
import {
  appForBlock,
  authorizeUrl,
  CookieJar,
  follow,
  hiddenFields,
  pkcePair,
  startAppPair,
} from './helpers.js';
import { call, formAction, newUser, signInSession } from './security-helpers.js';

/** Two instances of the server over one database. */
const pair = appForBlock(startAppPair);

/** Instance a for even attempts, b for odd ones: every other request, as a round-robin proxy sends them. */
const instance = (attempt: number): FastifyInstance => (attempt % 2 === 0 ? pair.a.app : pair.b.app);

/** A new sign-in on `app` whose form is posted with these credentials: the page it ends on. */
async function signInOnce(app: FastifyInstance, credentials: { email: string; password: string }) {
  const jar = new CookieJar();
  const page = await follow(
    app,
    jar,
    await app.inject({ url: authorizeUrl({ challenge: pkcePair().challenge }) }),
  );
  const answer = await app.inject({
    method: 'POST',
    url: formAction(page.body),
    headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...hiddenFields(page.body), ...credentials }).toString(),
  });
  return { status: answer.statusCode, alert: /role="alert">([^<]+)</.exec(answer.body)?.[1] ?? '' };
}

describe('two instances over one database', () => {
  it('failed sign-ins spread over both instances lock the email on both', async () => {
    const account = await newUser(pair.a.app);
    const email = account.user.email;
    for (let attempt = 0; attempt < SIGN_IN_LIMIT.max; attempt += 1) {
      const refused = await signInOnce(instance(attempt), { email, password: `Not-the-password-${attempt}` });
      expect(refused, `attempt ${attempt}`).toEqual({ status: 401, alert: 'Incorrect email or password.' });
    }
    // The right password now: refused by each instance.
    for (const app of [pair.a.app, pair.b.app]) {
      const locked = await signInOnce(app, { email, password: account.password });
      expect(locked.status).toBe(429);
      expect(locked.alert).toMatch(
        /^Too many failed sign-in attempts for this email\. Try again in \d+ minutes?\.$/,
      );
    }
  });

  it('wrong current passwords spread over both instances stop password changes on both', async () => {
    const account = await newUser(pair.a.app);
    const { token } = await signInSession(pair.a.app, account);
    const change = (app: FastifyInstance, oldPassword: string) =>
      call(app, 'PUT', apiPaths.passwordChange(account.user.id), {
        token,
        body: { OldPassword: oldPassword, NewPassword: 'Tumbling-Down-7Q' },
      });

    for (let attempt = 0; attempt < PASSWORD_CHANGE_LIMIT.max; attempt += 1) {
      expect(
        (await change(instance(attempt), `Not-the-password-${attempt}`)).status,
        `attempt ${attempt}`,
      ).toBe(400);
    }
    for (const app of [pair.a.app, pair.b.app]) {
      const refused = await change(app, account.password);
      expect(refused.status).toBe(429);
      expect(refused.data.error).toMatch(/^Too many wrong current passwords\. Try again in \d+ minutes?\.$/);
      expect(Number(refused.response.headers['retry-after'])).toBeGreaterThan(0);
    }
  });
});
