// Any request may reach any instance: a user's whole journey (sign-in, authenticator app, a new sign-in with a
// code, profile, a password change behind step-up) through the round-robin proxy, with the proxy's record showing
// both instances at work in each part, and the state each part leaves (a session ended, a step-up done) checked
// on each instance directly.
import { apiBody, type Cluster } from '../../support/cluster.js';
import {
  accessTokenOf,
  alternates,
  expect,
  instancesOf,
  isApiCall,
  isProviderRequest,
  NoWaitAuthenticator,
  test,
} from '../../support/cluster-fixture.js';
import { signIn, signInOnProvider } from '../../support/sign-in.js';
import { appSwitch, googleSection, logout, readSetupKey, signInWithCode } from '../security-helpers.js';
import { NEW_PASSWORD } from '../../support/users.js';

/** `GET path` with the token on each instance itself (past the proxy): what every instance says. */
async function askEachInstance(cluster: Cluster, token: string, path: string) {
  return Promise.all(
    cluster.instances.map(async (instance) => {
      const response = await fetch(`${instance.origin}${path}`, {
        headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
      });
      return { instance: instance.name, status: response.status, body: await apiBody(response) };
    }),
  );
}

test('a whole journey through the round-robin proxy: every part is served by both instances, and what one stores the other knows', async ({
  page,
  browser,
  cluster,
}) => {
  // A whole journey (two sign-ins, enrolment, profile, password with step-up, a second browser): it took up to
  // 60 s on a loaded machine, the default limit.
  test.setTimeout(120_000);
  const user = await cluster.createUser();
  const journey = cluster.proxy.mark();

  // Sign-in: the provider's requests (authorize, the sign-in page, its form, token) are spread over both.
  let mark = cluster.proxy.mark();
  await signIn(page, user, '/security');
  expect(instancesOf(cluster.requestsSince(mark).filter(isProviderRequest))).toEqual(new Set(['A', 'B']));

  // The authenticator app: the secret is stored through one instance (encrypted with the shared key) and the
  // code checked by whichever instance the next call reaches.
  mark = cluster.proxy.mark();
  await appSwitch(page).click();
  const app = new NoWaitAuthenticator(await readSetupKey(page));
  await googleSection(page)
    .getByLabel('Verification code')
    .fill(await app.code());
  await googleSection(page).getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Google Authenticator is set up.' })).toBeVisible();
  expect(instancesOf(cluster.requestsSince(mark).filter(isApiCall))).toEqual(new Set(['A', 'B']));

  // Signing out ends the session on every instance at once.
  const firstToken = await accessTokenOf(page);
  await logout(page, user.name);
  for (const answer of await askEachInstance(cluster, firstToken, `/api/profile/${user.sub}/isfederated`)) {
    expect(answer, `instance ${answer.instance}`).toMatchObject({ status: 401 });
  }

  // A new sign-in needs the code; the new session has not stepped up yet, on either instance.
  mark = cluster.proxy.mark();
  await signInWithCode(page, user, () => app.code(), '/profile');
  expect(instancesOf(cluster.requestsSince(mark).filter(isProviderRequest))).toEqual(new Set(['A', 'B']));
  const token = await accessTokenOf(page);
  for (const answer of await askEachInstance(cluster, token, `/api/stepup/${user.sub}/challenge`)) {
    expect(answer, `instance ${answer.instance}`).toMatchObject({
      status: 200,
      body: { challengeUser: true },
    });
  }

  // The profile: saved through one instance, shown after reloads through either. (Between the two codes: the
  // next code's 30-second step comes meanwhile.)
  await page.getByRole('button', { name: 'Edit My Profile' }).click();
  await page.getByLabel('Last Name').fill('Hargreaves');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Your changes are saved.')).toBeVisible();
  for (let reload = 0; reload < 2; reload += 1) {
    await page.reload();
    await expect(page.getByRole('table')).toContainText('Hargreaves');
  }

  // The password change asks for step-up first; the verified change is sent again, with nothing retyped.
  await page
    .getByRole('navigation', { name: 'Account pages' })
    .getByRole('link', { name: 'Password' })
    .click();
  mark = cluster.proxy.mark();
  const since = new Date(Date.now() - 1000).toISOString();
  await page.getByRole('button', { name: 'Change Password' }).click();
  await page.getByLabel('Current Password').fill(user.password);
  await page.getByLabel('New Password').fill(NEW_PASSWORD);
  await page.getByLabel('Confirm Password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Save' }).click();
  const dialog = page.getByRole('dialog', { name: '2-step verification' });
  await expect(dialog.getByRole('heading', { name: 'Verify to continue' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Verify' }).click();
  // On the dialog's text, not the heading alone: a failure then prints what the dialog shows instead.
  await expect(dialog).toContainText('Please check your code on Google Authenticator');
  await dialog.getByLabel('Enter authentication code').fill(await app.code());
  await dialog.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByText('Your changes are saved.')).toBeVisible();
  expect(instancesOf(cluster.requestsSince(mark).filter(isApiCall))).toEqual(new Set(['A', 'B']));
  // The change ended every grant of the account, this page's too: its next call (on a reload) renews silently
  // with the provider's session, and the step-up done through one instance is handed to the new grant, on both.
  // The page may have renewed once before the change ended that grant too: the token to check is the one the page
  // holds once its renewal after the reload is done, so each try reads the page's current token again.
  await page.reload();
  await expect
    .poll(async () => {
      const current = await accessTokenOf(page);
      if (current === token) return 'the token from before the change';
      const answers = await askEachInstance(cluster, current, `/api/stepup/${user.sub}/challenge`);
      return answers.map(({ instance, status, body }) => ({ instance, status, body }));
    })
    .toEqual([
      { instance: 'A', status: 200, body: expect.objectContaining({ challengeUser: false }) },
      { instance: 'B', status: 200, body: expect.objectContaining({ challengeUser: false }) },
    ]);
  // The notice was queued by one instance and is in the one mailbox.
  const notice = await cluster.mailFor(
    user.email,
    (message) => message.subject === 'Your F5 account password was changed',
    since,
  );
  expect(notice.text).not.toContain(NEW_PASSWORD);

  // Another browser: the old password is refused, the new one passes the password step (the code comes next).
  const context = await browser.newContext();
  try {
    const other = await context.newPage();
    await other.goto('/profile');
    await signInOnProvider(other, user);
    await expect(other.getByRole('alert')).toHaveText('Incorrect email or password.');
    await signInOnProvider(other, { email: user.email, password: NEW_PASSWORD });
    await expect(other.getByRole('heading', { name: '2-step verification' })).toBeVisible();
  } finally {
    await context.close();
  }

  // Over the whole journey: the API calls alternated between the instances, none was refused by the proxy.
  const requests = cluster.requestsSince(journey);
  const apiCalls = requests.filter(isApiCall);
  expect(alternates(apiCalls)).toBe(true);
  expect(requests.filter((request) => request.proxyError !== undefined)).toEqual([]);
  const count = (name: string) => requests.filter((request) => request.instance === name).length;
  test.info().annotations.push({
    type: 'proxy',
    description: `${requests.length} requests (${apiCalls.length} API calls): A answered ${count('A')}, B ${count('B')}`,
  });
});
