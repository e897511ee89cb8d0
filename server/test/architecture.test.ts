// The repository's own guards, beside the server's tests because vitest runs ESM natively (ESLint loads its flat
// config with import()): the import boundaries of docs/architecture.md fail on a forbidden import (the server's
// layers among them), and every "spec section N" cited anywhere exists in docs/spec/portal-spec.md.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SPEC = readFileSync(path.join(ROOT, 'docs/spec/portal-spec.md'), 'utf8');

describe('import boundaries (eslint.boundaries.js)', () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  /** The boundary messages ESLint reports for `code` as if it were the repo-relative file `file`. */
  async function crossings(file: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'boundaries/imports').map((m) => m.message);
  }

  it.each([
    [
      'a feature imports another feature',
      'shell/src/features/layout/components/TopBar.tsx',
      '../../remotes/hooks/useRemotes.js',
    ],
    [
      'a feature imports another feature',
      'remote-security/src/features/security/hooks/useStepUp.ts',
      '../../factors/api/factorsApi.js',
    ],
    [
      'a feature imports the app',
      'shell/src/features/settings/components/SettingsGate.tsx',
      '../../../app/App.js',
    ],
    [
      'a feature imports the exposed entries',
      'remote-profile/src/features/profile/hooks/useProfile.ts',
      '../../../exposes/mount.js',
    ],
    [
      'a remote imports another remote by name',
      'remote-security/src/exposes/SecurityPage.tsx',
      'remote-password',
    ],
    [
      'a remote imports another remote by path',
      'remote-password/src/exposes/mount.tsx',
      '../../../remote-profile/src/exposes/mount.js',
    ],
    [
      'a remote imports the shell',
      'remote-profile/src/exposes/mount.tsx',
      '../../../shell/src/config/pages.js',
    ],
    [
      'the shell imports a remote',
      'shell/src/app/PortalRoutes.tsx',
      'remote-profile/src/exposes/ProfilePage.js',
    ],
    ['the shell imports a remote container', 'shell/src/app/PortalRoutes.tsx', 'remote_profile/ProfilePage'],
    [
      'a shared package imports a remote',
      'shared-stepup/src/components/StepUpScreens.tsx',
      'remote-security',
    ],
    ['the mount runtime imports the shell', 'mount-runtime/src/createRemoteMount.tsx', 'shell'],
    [
      'shared code imports the shell',
      'shared-auth/src/contract/remotes.ts',
      '../../../shell/src/config/pages.js',
    ],
    [
      'the harness imports a remote',
      'remote-harness/src/standalone/HarnessPage.tsx',
      '../../../remote-profile/src/index.js',
    ],
    [
      'browser code imports the server',
      'shared-auth/src/contract/calls.ts',
      '../../../server/src/http/errors.js',
    ],
    [
      'server domain code imports routes',
      'server/src/factors/service.ts',
      '../routes/api/multifactor/index.js',
    ],
    [
      'nested server domain code imports routes',
      'server/src/oidc/interactions/routes.ts',
      '../../routes/web.js',
    ],
  ])('fails when %s (%s → %s)', async (_rule, file, specifier) => {
    for (const code of [
      `import { x } from '${specifier}';\nexport { x };`,
      `export * from '${specifier}';`,
      `export const load = () => import('${specifier}');`,
      `export const load = () => import(\`${specifier}\`);`,
    ]) {
      expect(await crossings(file, code)).toEqual([expect.stringContaining('Import boundary')]);
    }
  });

  it.each([
    [
      'a feature imports its own modules and the shell shared ones',
      'shell/src/features/layout/components/TopBar.tsx',
      [
        './SideNav.js',
        '../hooks/x.js',
        '../../../config/pages.js',
        '../../../lib/earlyRequests.js',
        '../../../components/PageMessage.js',
      ],
    ],
    [
      'the app composes features',
      'shell/src/app/PortalRoutes.tsx',
      ['../features/remotes/components/RemotePage.js', 'shared-auth', 'shared-router'],
    ],
    [
      'an exposed entry composes features',
      'remote-security/src/exposes/SecurityPage.tsx',
      ['../features/factors/components/FactorsPage.js', '../features/security/hooks/x.js'],
    ],
    [
      'a remote builds on the shared packages',
      'remote-password/src/exposes/mount.tsx',
      ['mount-runtime', 'remote-harness/standalone', 'shared-stepup', 'shared-auth/async'],
    ],
    [
      'the contract test read the shell pages (the one named exception, eslint.config.js)',
      'shared-auth/src/contract/remotes.contract.test.ts',
      ['../../../shell/src/config/pages.js'],
    ],
    [
      'routes call the domain',
      'server/src/routes/api/profile/index.ts',
      ['../../../directory/directory.js', 'shared-auth/contract'],
    ],
  ])('lets %s', async (_rule, file, specifiers) => {
    const code = specifiers.map((s, i) => `import * as m${i} from '${s}';\nexport { m${i} };`).join('\n');
    expect(await crossings(file, code)).toEqual([]);
  });
});

describe('server layers (SERVER_LAYERS in eslint.boundaries.js)', () => {
  let eslint: ESLint;
  let layers: string[][];
  beforeAll(async () => {
    eslint = new ESLint({ cwd: ROOT });
    // A computed specifier: the file is JavaScript, which the server's TypeScript does not type.
    const boundaries = (await import(pathToFileURL(path.join(ROOT, 'eslint.boundaries.js')).href)) as {
      SERVER_LAYERS: string[][];
    };
    layers = boundaries.SERVER_LAYERS;
  });

  /** The boundary messages for a file of server/src (path below it) that imports `specifiers`. */
  async function crossings(file: string, specifiers: string[]): Promise<string[]> {
    const code = specifiers.map((s, i) => `import * as m${i} from '${s}';\nexport { m${i} };`).join('\n');
    const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, 'server/src', file) });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'boundaries/imports').map((m) => m.message);
  }

  it.each([
    ['config reads the key ring', 'config/env.ts', '../keys/timeline.js', 'config', 'keys'],
    ['a store reads the provider', 'storage/sealing.ts', '../oidc/adapter.js', 'storage', 'oidc'],
    ['auth reads the plugins', 'auth/caller.ts', '../plugins/types.js', 'auth', 'plugins'],
    [
      'a nested file reads password',
      'oidc/interactions/routes.ts',
      '../../password/service.js',
      'oidc',
      'password',
    ],
    ['a domain reads the app', 'directory/directory.ts', '../app.js', 'directory', '*.ts'],
    [
      'a domain reads the storage composition',
      'directory/seed.ts',
      '../plugins/app/storage.js',
      'directory',
      'plugins',
    ],
  ])(
    'fails when %s (%s → %s), naming both folders and their layers',
    async (_case, file, specifier, from, to) => {
      const [message, ...more] = await crossings(file, [specifier]);
      expect(more).toEqual([]);
      expect(message).toMatch(/^Import boundary: .*: a lower layer never imports a higher one/);
      expect(message).toContain(`src/${from} (layer `);
      expect(message).toContain(` imports src/${to} (layer `);
    },
  );

  it('names a layer by its number from the bottom and its folders', async () => {
    expect(await crossings('config/env.ts', ['../plugins/types.js'])).toEqual([
      expect.stringContaining(
        `src/config (layer 1: config) imports src/plugins (layer ${layers.findIndex((l) => l.includes('plugins')) + 1}: plugins, routes)`,
      ),
    ]);
  });

  it('fails when a folder imports another folder of its own layer', async () => {
    expect(await crossings('mail/mailer.ts', ['../throttles/throttle.js'])).toEqual([
      expect.stringContaining(
        'src/mail (layer 5: mail, throttles, directory, keys) imports src/throttles (layer 5: mail, throttles, directory, keys): folders of one layer do not import each other',
      ),
    ]);
  });

  it('fails on a folder that is in no layer, either way', async () => {
    expect(await crossings('reports/weekly.ts', ['../config/index.js'])).toEqual([
      expect.stringContaining('src/reports (in no layer)'),
    ]);
    expect(await crossings('oidc/provider.ts', ['../reports/weekly.js'])).toEqual([
      expect.stringContaining('add the folder to SERVER_LAYERS'),
    ]);
  });

  it.each([
    [
      'a domain builds on lower layers and its own files',
      'oidc/edge.ts',
      [
        '../http/storage-unavailable.js',
        '../config/index.js',
        '../storage/index.js',
        '../throttles/request-windows.js',
        './html.js',
      ],
    ],
    [
      'a nested file imports down',
      'oidc/interactions/routes.ts',
      ['../../factors/http.js', '../../auth/caller.js', '../provider.js'],
    ],
    [
      'the app composes every layer',
      'app.ts',
      ['./plugins/errors.js', './routes/web.js', './config/index.js', './http/shutdown.js'],
    ],
    [
      'routes call the domains',
      'routes/api/profile/index.ts',
      ['../../../auth/caller.js', '../../../http/register-call.js'],
    ],
    [
      'the directory CLI (a program, beside server.ts) opens the storage as the app does',
      'directory-cli.ts',
      ['./plugins/app/open-storage.js', './directory/directory.js', './config/env.js'],
    ],
  ])('lets %s (%s)', async (_case, file, specifiers) => {
    expect(await crossings(file, specifiers)).toEqual([]);
  });

  it('lists every folder of server/src once, and only folders that exist', () => {
    const src = path.join(ROOT, 'server/src');
    const folders = readdirSync(src, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    const listed = layers.flat();
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual(['.', ...folders].sort());
  });
});

/** The spec's numbered sections ("## 7. Calls made"), each with its text. */
function specSections(spec: string): Map<number, string> {
  const sections = new Map<number, string>();
  for (const part of spec.split(/^(?=## \d+\. )/m)) {
    const number = /^## (\d+)\. /.exec(part)?.[1];
    if (number !== undefined) sections.set(Number(number), part);
  }
  return sections;
}

/**
 * What is wrong with the spec citations in `text`: "spec section 7", "spec sections 2, 4 and 8", "the spec's calls
 * (section 7)" must name sections that exist, and a quote right after one ("section 4: 'a step-up key'") must be
 * in that section.
 */
function citationProblems(text: string, sections: Map<number, string>): string[] {
  // Join comment lines so a citation wrapped across ' * ' or '//' lines reads as one.
  const flat = text.replace(/\s*\n\s*(?:\*(?!\/)|\/\/)?\s*/g, ' ');
  const problems: string[] = [];
  for (const match of flat.matchAll(/\bsections?\s+(\d+(?:(?:\s*,\s*|,?\s+and\s+)\d+)*)/gi)) {
    for (const number of (match[1] ?? '').split(/\D+/).map(Number)) {
      if (!sections.has(number)) problems.push(`'${match[0]}': the spec has no section ${number}`);
    }
  }
  for (const match of flat.matchAll(/\bsection\s+(\d+):\s+(['"])(.+?)\2/gi)) {
    const [, number, , quote = ''] = match;
    if (!sections.get(Number(number))?.includes(quote)) {
      problems.push(`'${match[0]}': section ${number} does not say '${quote}'`);
    }
  }
  return problems;
}

const SKIPPED = new Set(['node_modules', 'dist', 'data', 'coverage', 'test-results', 'playwright-report']);
const SPEC_DIR = path.join(ROOT, 'docs', 'spec');

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name) || full === SPEC_DIR) continue;
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (/\.(?:[cm]?[jt]sx?|md)$/.test(entry.name)) yield full;
  }
}

describe('spec citations (docs/spec/portal-spec.md)', () => {
  const sections = specSections(SPEC);

  it('reads the spec’s nine numbered sections', () => {
    expect([...sections.keys()]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('fails on a section the spec lacks, or a quote its section does not hold', () => {
    const missing = sections.size + 1;
    expect(citationProblems(`/** The calls (spec section ${missing}). */`, sections)).toHaveLength(1);
    expect(
      citationProblems(`// spec sections 2, 4 and\n// ${missing}: screens, states and more`, sections),
    ).toEqual([expect.stringContaining(`no section ${missing}`)]);
    const calls = 7; // kept out of the literal, or the repository scan below would read it as a citation
    expect(
      citationProblems(
        `// the spec (section 9: 'Resend ({n}s)') and (section ${calls}: 'Resend Code')`,
        sections,
      ),
    ).toEqual([expect.stringContaining('section 7 does not say')]);
    expect(
      citationProblems(`/**\n * Calls (spec sections 3 and 7), codes (spec section\n * 9).\n */`, sections),
    ).toEqual([]);
  });

  it('finds every citation in the repository in the spec', () => {
    const found: string[] = [];
    let citations = 0;
    for (const file of sourceFiles(ROOT)) {
      const text = readFileSync(file, 'utf8');
      citations += text.match(/\bsections?\s+\d/gi)?.length ?? 0;
      found.push(...citationProblems(text, sections).map((p) => `${path.relative(ROOT, file)}: ${p}`));
    }
    expect(found).toEqual([]);
    // The walk reached the sources: the code cites the spec some fifty times.
    expect(citations).toBeGreaterThan(40);
  });
});
