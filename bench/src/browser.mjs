import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

/** The system's Chromium, with the flags this machine's closed network needs. */
export async function launchChromium() {
  const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
    (candidate) => candidate && existsSync(candidate),
  );
  if (!executablePath)
    throw new Error('No Chromium found: install it (apt-get install chromium) or set CHROMIUM_PATH.');
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Signs in on the provider's page and returns the context, holding the tokens in its local storage. */
export async function signedInContext(browser, portal, account) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${portal}/profile`);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('table').getByText(account.familyName).waitFor();
  await page.close();
  return context;
}
