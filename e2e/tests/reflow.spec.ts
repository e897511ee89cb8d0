import { expect, test, type Locator, type Page } from '@playwright/test';
import { expectNoSeriousViolations } from '../support/axe.js';
import { signInNewUser } from '../support/sign-in.js';

// WCAG 1.4.10 (reflow): at 320 CSS px wide (a phone, or a 1280 px window at 400 % zoom) every page reads without
// scrolling sideways, nothing covers the page's heading, and the navigation still reaches every page (issue 22).
test.use({ viewport: { width: 320, height: 640 } });

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

async function boxOf(locator: Locator): Promise<Box> {
  const box = await locator.boundingBox();
  expect(box, 'the element has a box on the page').not.toBeNull();
  return box!;
}

const overlap = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function expectNoSidewaysScroll(page: Page, where: string) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(scrollWidth, `${where}: ${scrollWidth} px of content in ${clientWidth} px`).toBeLessThanOrEqual(
    clientWidth,
  );
}

/** The header's controls, each whole on the screen, none over another or over the page's heading. */
async function expectHeaderClearOfHeading(page: Page, menu: Locator, userMenu: Locator, heading: Locator) {
  const [menuBox, userMenuBox, headingBox] = await Promise.all([
    boxOf(menu),
    boxOf(userMenu),
    boxOf(heading),
  ]);
  for (const box of [menuBox, userMenuBox]) expect(box.x + box.width).toBeLessThanOrEqual(320);
  expect(overlap(menuBox, headingBox), 'the Menu button covers the heading').toBe(false);
  expect(overlap(userMenuBox, headingBox), 'the user menu covers the heading').toBe(false);
  expect(overlap(menuBox, userMenuBox), 'the Menu button and the user menu overlap').toBe(false);
}

test('at 320 px every page reflows: no sideways scroll, nothing over the heading, the Menu reaches each page', async ({
  page,
}) => {
  // One sign-in for the whole walk; the new user's long name ("Tess Tester 1a2b3c4d") once pushed the header wide.
  const user = await signInNewUser(page);
  const menu = page.getByRole('button', { name: 'Menu', exact: true });
  const userMenu = page.getByRole('button', { name: `User menu for ${user.name}` });
  const nav = page.getByRole('navigation', { name: 'Account pages' });

  const pages = [
    { name: 'My Profile', path: /\/profile$/, ready: page.getByRole('table') },
    { name: 'Password', path: /\/password$/, ready: page.getByRole('button', { name: 'Change Password' }) },
    { name: 'Security', path: /\/security$/, ready: page.getByRole('switch').first() },
  ];

  // Folded away: the side navigation is behind the Menu button, a touch target of 44 px.
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(nav).toBeHidden();
  const menuBox = await boxOf(menu);
  expect(Math.min(menuBox.width, menuBox.height)).toBeGreaterThanOrEqual(44);

  for (const [index, { name, path, ready }] of pages.entries()) {
    if (index === 0) {
      // From the keyboard: Enter opens the menu, its first page is the next Tab stop.
      await menu.focus();
      await page.keyboard.press('Enter');
      await expect(menu).toHaveAttribute('aria-expanded', 'true');
      await page.keyboard.press('Tab');
      await expect(nav.getByRole('link', { name })).toBeFocused();
      await expectNoSidewaysScroll(page, 'the open menu');
      await expectNoSeriousViolations(page, 'the open menu at 320 px');
      await page.keyboard.press('Enter');
    } else {
      await menu.click();
      await expect(menu).toHaveAttribute('aria-expanded', 'true');
      await nav.getByRole('link', { name }).click();
    }
    await expect(page).toHaveURL(path);
    const heading = page.getByRole('heading', { level: 1, name, exact: true });
    await expect(heading).toBeVisible();
    await expect(ready).toBeVisible();
    // Chosen, the page closes the menu and gives the focus back to its button.
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(nav).toBeHidden();
    await expect(menu).toBeFocused();

    await expectNoSidewaysScroll(page, name);
    await expectHeaderClearOfHeading(page, menu, userMenu, heading);
    await expectNoSeriousViolations(page, `${name} at 320 px`);
  }

  // Signed out, on the provider's sign-in page.
  await userMenu.click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  await expectNoSidewaysScroll(page, 'the sign-in page');
  await expectNoSeriousViolations(page, 'the sign-in page at 320 px');
});
