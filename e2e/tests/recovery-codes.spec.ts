import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { expectNoSeriousViolations } from '../support/axe.js';
import { accessTokenOf, signInNewUser, signInOnProvider } from '../support/sign-in.js';
import { NEW_PASSWORD } from '../support/users.js';
import { enrolAuthenticator, noticeFor } from './security-helpers.js';

// Recovery codes (issue 20): made on the Security page once a 2-step method is on, shown once, then a way in at the
// provider's 2-step step and a way through step-up. Each code works once; new codes void the old ones.

const CODE = /[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}/g;
const DIALOG = '[role=dialog]';

const recoverySection = (page: Page) => page.getByRole('region', { name: 'Recovery codes' });

/** The codes of the open 'Save your recovery codes' dialog, saved by ticking the box: the dialog then closes. */
async function saveCodes(page: Page): Promise<string[]> {
  const dialog = page.getByRole('dialog', { name: 'Save your recovery codes' });
  await expect(dialog).toBeVisible();
  const codes =
    (await dialog.getByRole('list', { name: 'Your recovery codes' }).innerText()).match(CODE) ?? [];
  expect(codes).toHaveLength(10);
  expect(new Set(codes).size).toBe(10);
  await expect(dialog.getByRole('button', { name: 'Done' })).toBeDisabled();
  await dialog.getByRole('checkbox', { name: 'I have saved my recovery codes' }).check();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();
  return codes;
}

/** Password, then "Use a recovery code" on the provider's 2-step step with `typed`. */
async function signInWithRecoveryCode(page: Page, user: { email: string; password: string }, typed: string) {
  await page.goto('/security');
  await signInOnProvider(page, user);
  await expect(page.getByRole('heading', { name: '2-step verification' })).toBeVisible();
  await page.getByRole('button', { name: 'Use a recovery code' }).click();
  await page.getByLabel('Recovery code').fill(typed);
  await page.getByRole('button', { name: 'Verify' }).click();
}

test('recovery codes: made once a 2-step method is on and shown once (Copy, Download, the tick gates Done); a way in, through step-up and through a password reset; a used or voided code is refused', async ({
  page,
  context,
  browser,
  request,
}) => {
  test.setTimeout(150_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const user = await signInNewUser(page, '/security');
  const section = recoverySection(page);
  await expect(section).toContainText('Turn on a 2-step method first');
  await expect(section.getByRole('button', { name: 'Generate recovery codes' })).toBeDisabled();

  // Setting up the first factor earns this session a step-up grant: the codes follow without another check.
  await enrolAuthenticator(page);
  await section.getByRole('button', { name: 'Generate recovery codes' }).click();
  const dialog = page.getByRole('dialog', { name: 'Save your recovery codes' });
  await expect(dialog).toBeVisible();
  await expectNoSeriousViolations(page, "the 'Save your recovery codes' dialog", { include: DIALOG });
  const shown =
    (await dialog.getByRole('list', { name: 'Your recovery codes' }).innerText()).match(CODE) ?? [];

  await dialog.getByRole('button', { name: 'Copy' }).click();
  await expect(dialog.getByText('Codes copied.')).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  for (const code of shown) expect(copied).toContain(code);

  const downloading = page.waitForEvent('download');
  await dialog.getByRole('button', { name: 'Download' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('recovery-codes.txt');
  const file = await readFile(await download.path(), 'utf8');
  expect(file).toContain(user.email);
  for (const code of shown) expect(file).toContain(code);

  const codes = await saveCodes(page);
  expect(codes).toEqual(shown);
  await expect(section).toContainText('10 of 10 codes left');
  await expectNoSeriousViolations(page, 'the factors page with recovery codes');

  let renewed: string[] = [];
  const other = await browser.newContext();
  try {
    // A way in: lower case, no dash. The Security page then asks for step-up: another code.
    const second = await other.newPage();
    await signInWithRecoveryCode(second, user, codes[0]!.toLowerCase().replace('-', ''));
    await expect(second).toHaveURL(/\/security$/);
    await expect(second.getByRole('heading', { name: 'Verify to continue' })).toBeVisible();
    await second.getByRole('button', { name: 'Verify' }).click();
    await second.getByRole('button', { name: 'Use a recovery code' }).click();
    await expectNoSeriousViolations(second, 'the step-up recovery code screen');
    await second.getByRole('textbox', { name: 'Recovery code' }).fill(codes[1]!);
    await second.getByRole('button', { name: 'Verify' }).click();
    await expect(recoverySection(second)).toContainText('8 of 10 codes left');

    // New codes, in place of the old ones.
    await recoverySection(second).getByRole('button', { name: 'Generate new codes' }).click();
    const confirm = second.getByRole('dialog', { name: 'Generate new codes?' });
    await expect(confirm).toContainText('Your old codes will stop working.');
    await confirm.getByRole('button', { name: 'Confirm' }).click();
    renewed = await saveCodes(second);
    expect(renewed.some((code) => codes.includes(code))).toBe(false);
    await expect(recoverySection(second)).toContainText('10 of 10 codes left');
  } finally {
    await other.close();
  }

  const third = await browser.newContext();
  try {
    const refused = await third.newPage();
    // Used, then voided by the new set.
    await signInWithRecoveryCode(refused, user, codes[0]!);
    await expect(refused.getByRole('alert')).toHaveText(
      'That recovery code is not correct or was already used. Check it and try again.',
    );
    await expectNoSeriousViolations(refused, "the provider's recovery code step with a wrong code");
    await refused.getByLabel('Recovery code').fill(codes[2]!);
    await refused.getByRole('button', { name: 'Verify' }).click();
    await expect(refused.getByRole('alert')).toHaveText(
      'That recovery code is not correct or was already used. Check it and try again.',
    );
    await expect(refused).not.toHaveURL(/\/security$/);
  } finally {
    await third.close();
  }

  // A lost phone and a lost password: the reset takes a recovery code in place of the authenticator's.
  const resetting = await browser.newContext();
  try {
    const lost = await resetting.newPage();
    const since = new Date(Date.now() - 1000).toISOString();
    await lost.goto('/profile');
    await lost.getByRole('link', { name: 'Forgot password?' }).click();
    await lost.getByLabel('Email').fill(user.email);
    await lost.getByRole('button', { name: 'Send reset link' }).click();
    await expect(lost.getByRole('heading', { name: 'Check your email' })).toBeVisible();
    const mail = await noticeFor(request, user.email, 'Reset your password', since);
    const link = /https?:\/\/\S+\/reset-password\/link\?token=[\w-]+/.exec(mail.text)?.[0];
    expect(link).toBeDefined();
    await lost.goto(link!);
    await expect(
      lost.getByText('Lost your authenticator app? Enter one of your recovery codes instead.'),
    ).toBeVisible();
    await lost.getByLabel('Verification code').fill(renewed[0]!);
    await lost.getByRole('button', { name: 'Verify' }).click();
    await expect(lost.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    const newPassword = NEW_PASSWORD;
    await lost.getByLabel('New Password').fill(newPassword);
    await lost.getByLabel('Confirm Password').fill(newPassword);
    await lost.getByRole('button', { name: 'Save' }).click();
    await expect(
      lost.getByText('Your password has been changed. Sign in with your new password.'),
    ).toBeVisible();
  } finally {
    await resetting.close();
  }
});

test('Print shows only the codes; at 3 codes left, the page and the notice mail of the use say to generate new ones', async ({
  page,
  request,
}) => {
  const user = await signInNewUser(page, '/security');
  await enrolAuthenticator(page);
  const section = recoverySection(page);
  await section.getByRole('button', { name: 'Generate recovery codes' }).click();

  // Print: the browser's print dialog (counted here: headless Chromium has none), and in print media only the
  // codes show, at the top left of the sheet.
  const dialog = page.getByRole('dialog', { name: 'Save your recovery codes' });
  await page.evaluate(() => {
    const counted = window as unknown as { printed: number };
    counted.printed = 0;
    window.print = () => {
      counted.printed += 1;
    };
  });
  await dialog.getByRole('button', { name: 'Print' }).click();
  expect(await page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);
  await page.emulateMedia({ media: 'print' });
  // The dialog itself is hidden in print: found with the hidden ones, then only its list shows.
  const printed = page.getByRole('dialog', { name: 'Save your recovery codes', includeHidden: true });
  const list = printed.getByRole('list', { name: 'Your recovery codes' });
  await expect(list).toBeVisible();
  await expect(list.getByRole('listitem')).toHaveCount(10);
  await expect(printed.getByText('Keep these codes somewhere safe')).toBeHidden();
  await expect(printed.getByRole('button', { name: 'Done', includeHidden: true })).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Recovery codes' })).toBeHidden();
  await expect(page.getByRole('navigation', { name: 'Account pages' })).toBeHidden();
  await expect(printed.getByText(`Recovery codes for ${user.email}`)).toBeVisible();
  const sheet = await printed.locator('.recovery-codes-print').boundingBox();
  expect(sheet).toMatchObject({ x: 0, y: 0 });
  await page.emulateMedia({ media: 'screen' });
  // On the screen, the sheet's heading is not shown: the dialog says it all.
  await expect(dialog.getByText(`Recovery codes for ${user.email}`)).toBeHidden();
  const codes = await saveCodes(page);

  // Seven codes spent through step-up, as seven lost-phone moments would (the call the step-up screen makes).
  const since = new Date(Date.now() - 1000).toISOString();
  const token = await accessTokenOf(page);
  for (const code of codes.slice(0, 7)) {
    const used = await request.post(`/api/stepup/${user.sub}/recovery-code/verify`, {
      headers: { Authorization: `Bearer ${token}` },
      data: { recoveryCode: code },
    });
    expect(used.status(), await used.text()).toBe(200);
  }
  const warning = "Only 3 recovery codes left. Generate new ones so you don't get locked out.";
  const notice = await noticeFor(
    request,
    user.email,
    'A recovery code was used for your F5 account',
    since,
    (message) => message.text.includes('Recovery codes left: 3.'),
  );
  expect(notice.text).toContain(warning);

  await page.reload();
  await expect(section).toContainText('3 of 10 codes left');
  await expect(section).toContainText(warning);
  await expectNoSeriousViolations(page, 'the recovery codes section with few codes left');
});
