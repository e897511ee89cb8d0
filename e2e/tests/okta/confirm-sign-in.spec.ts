// Okta mode: "Confirm it's you" before the first 2-step factor. The portal cannot check a password in Okta mode, so a
// sign-in older than 5 minutes (the access token's auth_time) is refused with 403 reauthentication_required, proof
// 'sign-in'; the dialog's 'Sign in again' sends the browser to Okta's sign-in form although the org session is alive
// (prompt=login, max_age=0), and back on the Security page the set-up it interrupted goes on by itself, the fresh
// sign-in letting the factor be set up in Okta. The
// portal runs as a production process (no clock to move): the org stand-in backdates the first sign-in instead.
import { expect, signInOnOkta, signInWithOkta, test } from '../../support/okta-fixture.js';
import { expectNoSeriousViolations } from '../../support/axe.js';
import { appSwitch, Authenticator, googleSection } from '../security-helpers.js';

/** Older than the portal's 5-minute window for a first factor. */
const STALE_MINUTES = 10;
const SIGN_IN_AGAIN_TEXT =
  'For your security, you need to sign in again to turn on 2-step verification. You will come back to this page afterwards.';

/** An API answer's JSON: the spec's answers may be JSON text inside a JSON string. */
async function jsonOf(response: { json(): Promise<unknown> }): Promise<Record<string, unknown>> {
  const body = await response.json();
  return (typeof body === 'string' ? JSON.parse(body) : body) as Record<string, unknown>;
}

test("a sign-in older than 5 minutes: 'Confirm it's you' sends the user to Okta's sign-in again, and back on the page the authenticator app's set-up resumes by itself", async ({
  page,
  okta,
  user,
}) => {
  // Two sign-ins at Okta, an axe pass over the dialog and an enrolment: past 60 s when the cluster project shares
  // the machine's 2 cores.
  test.setTimeout(120_000);
  okta.org.backdateNextSignIn(user.sub, STALE_MINUTES);
  await signInWithOkta(page, user, '/security');
  const enrolUrl = `/api/multifactor/googleauth/${user.sub}/enroll`;
  const enrolAnswer = () =>
    page.waitForResponse(
      (response) => response.url().endsWith(enrolUrl) && response.request().method() === 'POST',
    );

  // No factor yet: the page shows the switches at once; turning the app on asks for fresh proof.
  const refusedAnswer = enrolAnswer();
  await expect(appSwitch(page)).toBeEnabled();
  await appSwitch(page).click();
  const refused = await refusedAnswer;
  expect(refused.status()).toBe(403);
  expect(await jsonOf(refused)).toEqual({
    error: "Confirm it's you: sign in again to turn on 2-step verification.",
    code: 'reauthentication_required',
    proof: 'sign-in',
  });
  const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
  await expect(dialog).toContainText(SIGN_IN_AGAIN_TEXT);
  await expect(dialog.getByLabel('Password')).toHaveCount(0);
  const signInAgain = dialog.getByRole('button', { name: 'Sign in again' });
  await expect(signInAgain).toBeFocused();
  await expect(signInAgain).toHaveAccessibleDescription(SIGN_IN_AGAIN_TEXT);
  await expectNoSeriousViolations(page, "the 'Confirm it's you' dialog (sign in again) in Okta mode", {
    include: '[role=dialog]',
  });
  // Nothing reached Okta: no factor was started.
  expect(okta.org.user(user.sub)?.factors).toEqual([]);

  // Okta's form although the org session is alive; then back on the Security page.
  const authorize = page.waitForRequest((request) => request.url().includes('/oauth2/default/v1/authorize'));
  await signInAgain.click();
  const params = new URL((await authorize).url()).searchParams;
  expect({ prompt: params.get('prompt'), maxAge: params.get('max_age') }).toEqual({
    prompt: 'login',
    maxAge: '0',
  });
  await expect(page).toHaveURL(new RegExp(`^${okta.org.url.replace(/\./g, '\\.')}/signin/`));
  // Back on the Security page, what was started finishes by itself: no second click on the switch.
  const enrolledAnswer = enrolAnswer();
  await signInOnOkta(page, user);
  await expect(page).toHaveURL(/\/security$/);

  // The fresh sign-in is the proof: the app is set up in Okta with a code from Okta's shared secret.
  expect((await enrolledAnswer).status()).toBe(200);
  await expect(appSwitch(page)).toBeChecked();
  await expect(dialog).toHaveCount(0);
  const pending = okta.org
    .user(user.sub)
    ?.factors.find((factor) => factor.factorType === 'token:software:totp');
  expect(pending).toMatchObject({ provider: 'GOOGLE', status: 'PENDING_ACTIVATION' });
  const app = new Authenticator(pending?.sharedSecret ?? '');
  const section = googleSection(page);
  await section.getByLabel('Verification code').fill(await app.code());
  await section.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByText('Google Authenticator is set up.')).toBeVisible();
  expect(
    okta.org
      .user(user.sub)
      ?.factors.map(({ factorType, provider, status }) => ({ factorType, provider, status })),
  ).toEqual([{ factorType: 'token:software:totp', provider: 'GOOGLE', status: 'ACTIVE' }]);
});
