import type { Page } from '@playwright/test';

/**
 * Console errors and uncaught exceptions while the page is on `origin`, to assert there are none. (The identity
 * provider's sign-in page, on the server's origin, is not under test.)
 */
export function collectErrors(page: Page, origin: string): string[] {
  const errors: string[] = [];
  const onOrigin = () => page.url().startsWith(`${origin}/`);
  page.on('console', (message) => {
    if (message.type() === 'error' && onOrigin())
      errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => onOrigin() && errors.push(error.message));
  return errors;
}
