/* global document, MutationObserver */
// First-page bytes: every JS and CSS response the browser loads before the profile renders (a signed-in deep
// link to /profile), gzip -9 each, attributed to packages through the builds' source maps.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { explore } from 'source-map-explorer';
import { ROOT } from './portal.mjs';

/** Where each origin's files come from on disk. */
const DIST_BY_PORT = {
  3000: 'shell/dist',
  3001: 'remote-profile/dist',
  3002: 'remote-password/dist',
  3003: 'remote-security/dist',
  3004: 'remote-activity/dist',
};

export async function measureFirstPage(context, portal, account) {
  const page = await context.newPage();
  // Note the moment the profile appears, from inside the page: what is requested after it (prefetches of the
  // edit form while the user reads) is not part of the first page.
  await page.addInitScript((familyName) => {
    new MutationObserver((_changes, observer) => {
      if (document.querySelector('table')?.textContent?.includes(familyName)) {
        globalThis.__profileRenderedAt = performance.now();
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true, characterData: true });
  }, account.familyName);
  const responses = [];
  page.on('response', (response) => {
    const type = response.request().resourceType();
    if ((type === 'script' || type === 'stylesheet') && response.ok()) responses.push(response);
  });
  await page.goto(`${portal}/profile`);
  await page.getByRole('table').getByText(account.familyName).waitFor();
  const startedBeforeRender = new Set(
    await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter((entry) => entry.startTime < globalThis.__profileRenderedAt)
        .map((entry) => entry.name),
    ),
  );
  const files = [];
  for (const response of responses.filter((candidate) => startedBeforeRender.has(candidate.url()))) {
    const body = await response.body();
    const url = new URL(response.url());
    files.push({
      url: response.url(),
      port: url.port,
      file: url.pathname.slice(1),
      raw: body.length,
      gzip: gzipSync(body, { level: 9 }).length,
    });
  }
  await page.close();
  return { files, byPackage: await attribute(files) };
}

function packageOf(source) {
  const normalized = source.replace(/\\/g, '/');
  const inModules = normalized.match(/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/);
  if (inModules) return inModules[1];
  // webpack's own runtime modules are named after the app (`webpack://shell/webpack/runtime/…`): glue, not the app.
  if (normalized.includes('/webpack/') || normalized.includes('[') || normalized === '<unmapped>')
    return '(webpack and MF runtime glue)';
  // The last workspace folder named: a shared package bundled by an app is `webpack://shell/shared-auth/…`, and
  // a remote's own sources are under its container name (`webpack://remote_profile/src/…`).
  const workspaces = [
    ...normalized.matchAll(/(?:^|\/)(shell|shared-[a-z]+|mount-runtime|remote[-_][a-z]+)(?=\/)/g),
  ];
  const workspace = workspaces.at(-1);
  if (workspace) return workspace[1].replace('_', '-');
  return '(other)';
}

/** Splits each file's gzip bytes over the packages its source map names, in proportion to their raw bytes. */
async function attribute(files) {
  const totals = new Map();
  const add = (name, bytes) => totals.set(name, (totals.get(name) ?? 0) + bytes);
  for (const file of files) {
    const dist = DIST_BY_PORT[file.port];
    const onDisk = dist && path.join(ROOT, dist, file.file);
    if (!onDisk || !existsSync(`${onDisk}.map`)) {
      add(`(unmapped: ${file.file})`, file.gzip);
      continue;
    }
    const result = await explore(
      { code: onDisk, map: `${onDisk}.map` },
      { output: { format: 'json' }, noBorderChecks: true },
    );
    const bundle = result.bundles[0];
    const entries = Object.entries(bundle?.files ?? {});
    const mappedRaw = entries.reduce((sum, [, { size }]) => sum + size, 0) || 1;
    for (const [source, { size }] of entries) add(packageOf(source), (file.gzip * size) / mappedRaw);
  }
  return [...totals.entries()]
    .map(([name, gzip]) => ({ name, gzip: Math.round(gzip) }))
    .sort((a, b) => b.gzip - a.gzip);
}
