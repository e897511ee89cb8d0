import type { Page } from '@playwright/test';

/**
 * Waits until nothing on the page is moving or fading: antd's motions (rc-motion) and CSS animations. A dialog
 * that opens sits for a frame or more in a first-frame class (see-through, zoomed) before its animation runs, then
 * zooms in: a click in that window lands on a moving button (the press and the release on different spots, so no
 * click), and colours measured then are see-through. Endless animations (spinners) are not waited for.
 */
export async function motionsSettled(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      ![...document.querySelectorAll('[class*="-appear"], [class*="-enter"], [class*="-leave"]')].some(
        (element) => /(^|\s)ant-[\w-]+-(appear|enter|leave)(\s|$)/.test(element.className.toString()),
      ),
    undefined,
    { timeout: 10_000 },
  );
  await page.waitForFunction(
    () =>
      document
        .getAnimations()
        .every(
          (animation) =>
            animation.playState !== 'running' || animation.effect?.getComputedTiming().endTime === Infinity,
        ),
    undefined,
    { timeout: 10_000 },
  );
}
