// Passkeys in Chromium's own WebAuthn stack, with a software authenticator per tab (support/virtual-authenticator.ts):
// the browser binds each ceremony to the portal's origin and RP ID, and the server checks what it signed.
import { expect, test, type Page } from '@playwright/test';
import { expectNoSeriousViolations } from '../support/axe.js';
import { signInNewUser, signInOnProvider } from '../support/sign-in.js';
import { VirtualAuthenticator } from '../support/virtual-authenticator.js';
import { noticeFor } from './security-helpers.js';

const passkeysSection = (page: Page) => page.getByRole('region', { name: 'Passkeys' });
const DIALOG = '[role=dialog]';

/** On the Security page: Add a passkey, then the name dialog (the server's default name filled in) saved as `name`. */
async function addPasskey(page: Page, name: string): Promise<void> {
  await passkeysSection(page).getByRole('button', { name: 'Add a passkey' }).click();
  const dialog = page.getByRole('dialog', { name: 'Name your passkey' });
  await expect(dialog.getByLabel('Name')).toHaveValue(/^Chrome on /);
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(passkeysSection(page).getByRole('listitem').filter({ hasText: name })).toBeVisible();
}

test.describe.configure({ timeout: 150_000 });

test('a passkey: added as the first 2-step method and named, renamed with the keyboard, the second step of a sign-in and the step-up in another browser (which had none at first; a refused fingerprint first), the whole sign-in in a third, and removed only while another method remains', async ({
  page,
  browser,
  request,
}) => {
  const user = await signInNewUser(page, '/security');
  const laptop = await VirtualAuthenticator.add(page);
  const section = passkeysSection(page);
  await expect(
    section.getByText(
      'Sign in with your fingerprint, face or screen lock, or a security key, instead of a code.',
    ),
  ).toBeVisible();
  await expect(section.getByText('You have no passkeys yet.')).toBeVisible();

  // The first 2-step method, minutes after signing in: no step-up, straight to the browser's ceremony.
  const since = new Date(Date.now() - 1000).toISOString();
  await section.getByRole('button', { name: 'Add a passkey' }).click();
  const nameDialog = page.getByRole('dialog', { name: 'Name your passkey' });
  await expect(nameDialog.getByLabel('Name')).toHaveValue(/^Chrome on /);
  await expectNoSeriousViolations(page, "the 'Name your passkey' dialog", { include: DIALOG });
  await nameDialog.getByLabel('Name').fill('Work laptop');
  await nameDialog.getByRole('button', { name: 'Save' }).click();
  const item = section.getByRole('listitem').filter({ hasText: 'Work laptop' });
  await expect(item).toContainText(/Added [A-Z][a-z]{2} \d{1,2}, \d{4} · Never used/);
  await expect(page.getByText('Your passkey is set up.')).toBeVisible();
  await expectNoSeriousViolations(page, 'the Security page with a passkey');
  await noticeFor(request, user.email, 'A passkey was added to your F5 account', since);
  expect(await laptop.credentials()).toHaveLength(1);

  // Rename with the keyboard: the dialog takes the focus, Enter saves.
  await section.getByRole('button', { name: 'Rename Work laptop' }).focus();
  await page.keyboard.press('Enter');
  const renameDialog = page.getByRole('dialog', { name: 'Rename passkey' });
  await expect(renameDialog.getByLabel('Name')).toBeFocused();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('Laptop');
  await page.keyboard.press('Enter');
  await expect(renameDialog).toBeHidden();
  await expect(section.getByRole('listitem').filter({ hasText: /^Laptop/ })).toBeVisible();

  // Another browser of the holder's, without the passkey yet: "Sign in with a passkey" finds none there and says
  // so; after the password, the passkey is the second step of the sign-in. (The passkey arrives once the sign-in
  // page is left behind: on that page the browser would offer it at once.)
  const context = await browser.newContext();
  try {
    const other = await context.newPage();
    const phone = await VirtualAuthenticator.add(other);
    await other.goto('/security');
    await other.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect(other.getByRole('alert')).toHaveText(
      'The passkey check was cancelled or timed out. Try again.',
    );
    await signInOnProvider(other, user);
    await expect(other.getByRole('heading', { name: '2-step verification' })).toBeVisible();
    await expect(other.getByLabel('Verification code')).toHaveCount(0);
    await expectNoSeriousViolations(other, "the provider's 2-step page with a passkey");
    const [credential] = await laptop.credentials();
    await phone.addCredential(credential!);
    await other.getByRole('button', { name: 'Use a passkey' }).click();
    await expect(other).toHaveURL(/\/security$/);

    // Step-up with the passkey: the fingerprint is refused first, then accepted.
    await other.getByRole('button', { name: 'Verify' }).click();
    await expect(other.getByRole('heading', { name: 'Use your passkey' })).toBeVisible();
    await expectNoSeriousViolations(other, 'the step-up passkey screen');
    await phone.setUserVerified(false);
    await other.getByRole('button', { name: 'Use passkey' }).click();
    await expect(other.getByRole('alert')).toHaveText(
      /^(The passkey check was cancelled or timed out\. Try again\.|Your passkey could not be verified\.)$/,
    );
    await phone.setUserVerified(true);
    await other.getByRole('button', { name: 'Use passkey' }).click();
    const laptopItem = passkeysSection(other)
      .getByRole('listitem')
      .filter({ hasText: /^Laptop/ });
    await expect(laptopItem).toContainText(/Last used [A-Z][a-z]{2} \d{1,2}, \d{4}/);

    // A third browser with the passkey (as it stands now: its signature counter moved on): the sign-in page
    // offers it in the email field's autofill, and the passkey alone signs in.
    const [latest] = await phone.credentials();
    const third = await browser.newContext();
    try {
      const tablet = await third.newPage();
      await (await VirtualAuthenticator.add(tablet)).addCredential(latest!);
      await tablet.goto('/profile');
      await expect(tablet.getByRole('table')).toContainText(user.email);
    } finally {
      await third.close();
    }

    // The only 2-step method cannot go.
    await laptopItem.getByRole('button', { name: 'Remove Laptop' }).click();
    const removeDialog = other.getByRole('dialog', { name: 'Remove this passkey?' });
    await expect(removeDialog).toContainText(
      'You will no longer be able to sign in or verify with "Laptop".',
    );
    await removeDialog.getByRole('button', { name: 'Confirm' }).click();
    await expect(passkeysSection(other).getByRole('alert')).toContainText(
      'You cannot remove your only 2-step method.',
    );

    // A security key as a second passkey; then the laptop's can go.
    await phone.remove();
    await VirtualAuthenticator.add(other, { transport: 'usb' });
    const sinceRemoval = new Date(Date.now() - 1000).toISOString();
    await addPasskey(other, 'Security key');
    await laptopItem.getByRole('button', { name: 'Remove Laptop' }).click();
    await removeDialog.getByRole('button', { name: 'Confirm' }).click();
    await expect(other.getByText('The passkey was removed.')).toBeVisible();
    await expect(laptopItem).toHaveCount(0);
    await expect(passkeysSection(other).getByRole('listitem')).toHaveCount(1);
    await noticeFor(request, user.email, 'A passkey was removed from your F5 account', sinceRemoval);
  } finally {
    await context.close();
  }
});
