import { AxeBuilder } from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { motionsSettled } from './motion.js';

/** The WCAG 2.0 and 2.1 A and AA rules: what the portal promises. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const BLOCKING = new Set(['serious', 'critical']);

interface AxeOptions {
  /** Only this part of the page, e.g. '[role=dialog]' for an open dialog. */
  include?: string;
}

/**
 * Runs axe on the page (or the part of it given) and fails on any serious or critical violation. Every
 * violation, blocking or not, is printed as `id (impact): target` and attached to the test report.
 */
export async function expectNoSeriousViolations(page: Page, screen: string, options: AxeOptions = {}) {
  // Colours are measured as they are at that moment: let fades (a toast appearing, a dialog opening) finish.
  await motionsSettled(page);
  // Legacy mode runs axe in each frame of the page itself; the default opens a blank page per pass to merge the
  // frames' results, which cost seconds a pass on 2 busy cores. Axe is injected into every frame either way.
  let builder = new AxeBuilder({ page }).withTags(WCAG_TAGS).setLegacyMode(true);
  if (options.include) builder = builder.include(options.include);
  const violations = (await builder.analyze()).violations;
  const lines = violations.flatMap((violation) =>
    violation.nodes.map((node) => {
      // The first finding, e.g. 'Element has insufficient color contrast of 3.27 (foreground color: …)'.
      const finding = node.failureSummary?.split('\n')[1]?.trim();
      return `${violation.id} (${violation.impact ?? 'unknown'}): ${node.target.join(' ')} — ${violation.help}${finding ? ` — ${finding}` : ''}`;
    }),
  );
  const summary = `axe on ${screen}: ${violations.length} rule(s) violated${lines.length ? `\n  ${lines.join('\n  ')}` : ''}`;
  if (lines.length) {
    console.log(summary);
    test.info().annotations.push({ type: 'axe', description: summary });
  }
  const blocking = violations.filter((violation) => BLOCKING.has(violation.impact ?? ''));
  expect(
    blocking.map((violation) => violation.id),
    summary,
  ).toEqual([]);
}
