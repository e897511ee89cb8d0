import { expect, type Page } from '@playwright/test';

/** On the Password page, signed in as `email`: opens the change view. */
export async function openPasswordChange(page: Page, email: string) {
  await expect(page.getByRole('heading', { level: 1, name: 'Password' })).toBeVisible();
  await expect(page.getByRole('table')).toContainText(email);
  await page.getByRole('button', { name: 'Change Password' }).click();
  await expect(page.getByText(`You are changing your password for: ${email}`)).toBeVisible();
}

/** Fills the change form: the current password, the new one and its confirmation. */
export async function fillPasswordForm(page: Page, current: string, next: string) {
  await page.getByLabel('Current Password').fill(current);
  await page.getByLabel('New Password').fill(next);
  await page.getByLabel('Confirm Password').fill(next);
}
