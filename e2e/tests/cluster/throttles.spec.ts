// A throttle counts across the instances: failures spread over both add up to one limit, and once it is reached
// the next attempt is refused whichever instance it reaches. Were the counts kept per instance, neither would
// have reached the limit and the right password would pass.
import { apiBody } from '../../support/cluster.js';
import { SERVED_BY_HEADER } from '../../support/cluster-proxy.js';
import {
  accessTokenOf,
  expect,
  instancesOf,
  isProviderRequest,
  test,
} from '../../support/cluster-fixture.js';
import { signIn, signInOnProvider } from '../../support/sign-in.js';

/** SIGN_IN_LIMIT and PASSWORD_CHANGE_LIMIT of server/src/throttles/limits.ts. */
const SIGN_IN_LIMIT = 10;
const PASSWORD_CHANGE_LIMIT = 5;
/** Attempts after the limit, until each instance has refused one (the page's own requests may come between). */
const MAX_REFUSED_ATTEMPTS = 6;

test('failed sign-ins spread over both instances lock the email on both', async ({ page, cluster }) => {
  const user = await cluster.createUser();
  await page.goto('/profile');
  const failures = cluster.proxy.mark();
  for (let attempt = 0; attempt < SIGN_IN_LIMIT; attempt += 1) {
    await signInOnProvider(page, { email: user.email, password: `Not-the-password-${attempt}` });
    await expect(page.getByRole('alert')).toHaveText('Incorrect email or password.');
  }
  const posts = (mark: number) =>
    cluster.requestsSince(mark).filter((request) => request.method === 'POST' && isProviderRequest(request));
  expect(posts(failures).map((request) => request.status)).toEqual(Array(SIGN_IN_LIMIT).fill(401));
  expect(instancesOf(posts(failures))).toEqual(new Set(['A', 'B']));

  // The right password now: refused by each instance it reaches.
  const refusals = cluster.proxy.mark();
  for (
    let attempt = 0;
    attempt < MAX_REFUSED_ATTEMPTS && instancesOf(posts(refusals)).size < 2;
    attempt += 1
  ) {
    await signInOnProvider(page, user);
    await expect(page.getByRole('alert')).toHaveText(
      /^Too many failed sign-in attempts for this email\. Try again in \d+ minutes?\.$/,
    );
  }
  expect(instancesOf(posts(refusals))).toEqual(new Set(['A', 'B']));
  expect(posts(refusals).every((request) => request.status === 429)).toBe(true);
});

test('wrong current passwords spread over both instances stop password changes on both', async ({
  page,
  cluster,
}) => {
  const user = await cluster.createUser();
  await signIn(page, user, '/password');
  const token = await accessTokenOf(page);
  const change = async (oldPassword: string) => {
    const response = await fetch(`${cluster.origin}/api/password/${user.sub}/change`, {
      method: 'PUT',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
      body: JSON.stringify({ OldPassword: oldPassword, NewPassword: 'Tumbling-Down-7Q' }),
    });
    return {
      status: response.status,
      instance: response.headers.get(SERVED_BY_HEADER),
      retryAfter: response.headers.get('retry-after'),
      body: await apiBody<{ error?: string }>(response),
    };
  };

  const wrong = [];
  for (let attempt = 0; attempt < PASSWORD_CHANGE_LIMIT; attempt += 1) {
    wrong.push(await change(`Not-the-password-${attempt}`));
  }
  expect(wrong.map((answer) => answer.status)).toEqual(Array(PASSWORD_CHANGE_LIMIT).fill(400));
  expect(new Set(wrong.map((answer) => answer.instance))).toEqual(new Set(['A', 'B']));

  const refused = [];
  while (
    refused.length < MAX_REFUSED_ATTEMPTS &&
    new Set(refused.map((answer) => answer.instance)).size < 2
  ) {
    refused.push(await change(user.password));
  }
  for (const answer of refused) {
    expect(answer, `instance ${answer.instance}`).toMatchObject({
      status: 429,
      body: {
        error: expect.stringMatching(/^Too many wrong current passwords\. Try again in \d+ minutes?\.$/),
      },
    });
    expect(Number(answer.retryAfter)).toBeGreaterThan(0);
  }
  expect(new Set(refused.map((answer) => answer.instance))).toEqual(new Set(['A', 'B']));

  // The page says so too, whichever instance its call reaches.
  await page.getByRole('button', { name: 'Change Password' }).click();
  await page.getByLabel('Current Password').fill(user.password);
  await page.getByLabel('New Password').fill('Tumbling-Down-7Q');
  await page.getByLabel('Confirm Password').fill('Tumbling-Down-7Q');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('dialog', { name: 'Changes could not be saved' })).toContainText(
    /Too many wrong current passwords/,
  );
});
