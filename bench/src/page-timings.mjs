// Page timings in headless Chromium, each the median of 7 runs on a fresh page of a signed-in context.
const RUNS = 7;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

async function timed(action) {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

/** Opens /profile and waits until the profile is rendered. */
async function openProfile(context, portal, account) {
  const page = await context.newPage();
  const ms = await timed(async () => {
    await page.goto(`${portal}/profile`);
    await page.getByRole('table').getByText(account.familyName).waitFor();
  });
  return { page, ms };
}

async function switchTo(page, label) {
  const link = page.getByRole('navigation', { name: 'Account pages' }).getByRole('link', { name: label });
  return timed(async () => {
    await link.click();
    await page.getByRole('heading', { level: 1, name: label, exact: true }).waitFor();
  });
}

export async function measurePageTimings(context, portal, account, otherPage = 'Password') {
  const navigation = [];
  const coldSwitch = [];
  const preloadedSwitch = [];
  const loadedSwitch = [];
  for (let run = 0; run < RUNS; run += 1) {
    const { page, ms } = await openProfile(context, portal, account);
    navigation.push(ms);
    coldSwitch.push(await switchTo(page, otherPage));
    // Back to a remote this page has loaded already: what an in-bundle route costs.
    loadedSwitch.push(await switchTo(page, 'My Profile'));
    await page.close();

    const hovered = (await openProfile(context, portal, account)).page;
    const link = hovered
      .getByRole('navigation', { name: 'Account pages' })
      .getByRole('link', { name: otherPage });
    // A user's hover lasts a few hundred milliseconds before the click: long enough for the page module to come.
    // (Not 'networkidle': Playwright can see the shell's keepalive load report as never finished, and wait forever.)
    const preloaded = hovered.waitForResponse((response) => response.url().includes('/__federation_expose_'));
    await link.hover();
    await preloaded;
    preloadedSwitch.push(await switchTo(hovered, otherPage));
    await hovered.close();
  }
  return {
    runs: RUNS,
    navigationToProfileMs: median(navigation),
    switchToRemoteColdMs: median(coldSwitch),
    switchToRemotePreloadedMs: median(preloadedSwitch),
    switchToLoadedRemoteMs: median(loadedSwitch),
    otherPage,
  };
}
