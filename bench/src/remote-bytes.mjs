// The bytes each remote adds when the shell loads it: every response from where its remoteEntry.js is deployed
// while its page renders in a signed-in shell (remoteEntry.js, the exposed page's chunks, any chunk the page loads
// at once), gzip -9 each. The shared packages (React, shared-ui/antd, shared-auth, the router) come from the shell
// and must not appear here; a remote whose figure jumps by hundreds of kB has lost a singleton.
import { gzipSync } from 'node:zlib';

/** Each remote's page in the shell, and the heading that says it has rendered. */
export const REMOTE_PAGES = [
  { remote: 'remote_profile', path: '/profile', heading: 'My Profile' },
  { remote: 'remote_password', path: '/password', heading: 'Password' },
  { remote: 'remote_security', path: '/security', heading: 'Security' },
  { remote: 'remote_activity', path: '/activity', heading: 'Devices & activity' },
];

/**
 * @param {import('playwright-core').BrowserContext} context signed in (bench/src/browser.mjs signedInContext)
 * @param {string} portal e.g. http://localhost:3000
 * @returns {Promise<{ remote: string, entry: string, files: { file: string, raw: number, gzip: number }[],
 *   raw: number, gzip: number }[]>} one row per remote deployed in the portal's remotes.json
 */
export async function measureRemoteBytes(context, portal) {
  const { remotes } = await (await fetch(`${portal}/remotes.json`)).json();
  const rows = [];
  for (const { remote, path, heading } of REMOTE_PAGES) {
    const entry = remotes[remote]?.entry;
    if (!entry) continue;
    // The folder the build is deployed in (a CDN path works as well as an origin of its own).
    const base = entry.slice(0, entry.lastIndexOf('/') + 1);
    const page = await context.newPage();
    const responses = [];
    page.on('response', (response) => {
      if (response.url().startsWith(base) && response.ok()) responses.push(response);
    });
    await page.goto(`${portal}${path}`);
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    const files = [];
    for (const response of responses) {
      const body = await response.body();
      files.push({
        file: response.url().slice(base.length),
        raw: body.length,
        gzip: gzipSync(body, { level: 9 }).length,
      });
    }
    await page.close();
    rows.push({
      remote,
      entry,
      files,
      raw: files.reduce((sum, file) => sum + file.raw, 0),
      gzip: files.reduce((sum, file) => sum + file.gzip, 0),
    });
  }
  return rows;
}

/** The rows as report lines. */
export function formatRemoteBytes(rows) {
  const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
  const lines = [
    'Bytes a remote adds when the shell loads its page (gzip -9; shared packages come from the shell)',
  ];
  for (const row of rows) {
    lines.push(
      `  ${kB(row.gzip).padStart(10)}  ${row.remote} (${row.files.length} files, ${kB(row.raw)} raw)`,
    );
    for (const file of row.files) lines.push(`  ${kB(file.gzip).padStart(20)}  ${file.file}`);
  }
  return lines.join('\n');
}

/**
 * The bytes a remote costs an integrator's page that embeds it alone (examples/embed-security at :3100/,
 * examples/embed-activity at :3100/activity/): everything the page loads until the remote's page has rendered, split into what comes from the remote's
 * deploy folder (its remoteEntry, its own copies of React, antd and shared-auth, the page) and what the page itself
 * serves (the MF runtime ES modules and okta-auth-js). The context must be signed in to the portal's provider, so
 * the page's redirect sign-in comes straight back. `heading` is the remote page's heading (it has rendered).
 * @returns {Promise<{ url: string, fromRemote: { files: number, gzip: number }, fromPage: { files: number, gzip: number } }>}
 */
export async function measureEmbeddedBytes(context, { examplesUrl, remoteEntry, heading }) {
  const base = remoteEntry.slice(0, remoteEntry.lastIndexOf('/') + 1);
  const page = await context.newPage();
  // Routing every request turns the browser's cache off: the page loads its modules again after the sign-in redirect.
  await page.route('**/*', (route) => route.continue());
  // The page redirects through the sign-in and back: only the last document's files count.
  let sizes = [];
  page.on('request', (request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) sizes = [];
  });
  page.on('response', (response) => {
    const type = response.request().resourceType();
    if ((type !== 'script' && type !== 'stylesheet') || !response.ok()) return;
    const list = sizes;
    list.push(
      response
        .body()
        .then((body) => ({ url: response.url(), gzip: gzipSync(body, { level: 9 }).length }))
        // A response of a document the page has already left has no body any more.
        .catch(() => undefined),
    );
  });
  await page.goto(examplesUrl);
  // The remote's page heading: it has rendered.
  await page.getByRole('heading', { name: heading, exact: true }).first().waitFor({ timeout: 60_000 });
  await page.waitForLoadState('networkidle');
  const fromRemote = { files: 0, gzip: 0 };
  const fromPage = { files: 0, gzip: 0 };
  for (const file of await Promise.all(sizes)) {
    if (!file) continue;
    const bucket = file.url.startsWith(base) ? fromRemote : fromPage;
    bucket.files += 1;
    bucket.gzip += file.gzip;
  }
  await page.close();
  return { url: examplesUrl, fromRemote, fromPage };
}
