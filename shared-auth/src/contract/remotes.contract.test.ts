/**
 * @jest-environment node
 */
// The contract check that CI runs (pnpm test:unit). It fails when a remote's webpack exposes, the shell's pages or
// the remotes file drift from the names in remotes.ts.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PORTAL_PAGES } from '../../../shell/src/config/pages.js';
import type { RemoteMountModule } from './mount.js';
import {
  REMOTE_MOUNT_MODULE,
  REMOTE_PAGES,
  remoteExposes,
  remotesConfigSchema,
  type RemoteName,
} from './remotes.js';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface FederationOptions {
  name: string;
  exposes: Record<string, string>;
}

/**
 * What each remote's webpack.config.js hands the ModuleFederationPlugin, read in plain Node (ESM, as webpack
 * loads it), keyed by the remote's folder.
 */
function federationOptions(folders: string[]): Record<string, FederationOptions> {
  const script = `
    import path from 'node:path';
    import { pathToFileURL } from 'node:url';
    const result = {};
    for (const folder of process.argv.slice(1)) {
      const { default: createConfig } = await import(pathToFileURL(path.join(folder, 'webpack.config.js')).href);
      const config = createConfig({}, { mode: 'production' });
      const plugin = config.plugins.find((p) => p.constructor.name === 'ModuleFederationPlugin');
      result[path.basename(folder)] = { name: plugin._options.name, exposes: plugin._options.exposes ?? {} };
    }
    process.stdout.write(JSON.stringify(result));
  `;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script, ...folders], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(output) as Record<string, FederationOptions>;
}

/** Every remote in the workspace: a remote-* folder with a webpack config. */
const remoteFolders = readdirSync(ROOT)
  .filter((name) => name.startsWith('remote-') && existsSync(path.join(ROOT, name, 'webpack.config.js')))
  .map((name) => path.join(ROOT, name));
const remotes = federationOptions(remoteFolders);
const contractNames = Object.keys(REMOTE_PAGES).sort();

describe('the remotes contract', () => {
  it('names every remote of the workspace, by its container name', () => {
    expect(remoteFolders.length).toBeGreaterThan(0);
    expect(
      Object.values(remotes)
        .map((remote) => remote.name)
        .sort(),
    ).toEqual(contractNames);
  });

  it.each(Object.entries(remotes))('%s exposes exactly the modules of the contract', (folder, remote) => {
    const name = remote.name as RemoteName;
    expect(REMOTE_PAGES).toHaveProperty(name);
    expect(Object.keys(remote.exposes).sort()).toEqual([...remoteExposes(name)].sort());
    for (const file of Object.values(remote.exposes)) {
      expect(existsSync(path.join(ROOT, folder, file))).toBe(true);
    }
  });

  it("is the shell's list of pages: one page per remote, each loading the contract's page module", () => {
    expect(PORTAL_PAGES.map((page) => page.remote).sort()).toEqual(contractNames);
  });

  it('is what the remotes file may name', () => {
    const file = remotesConfigSchema.parse(
      JSON.parse(readFileSync(path.join(ROOT, 'config', 'remotes.json'), 'utf8')),
    );
    for (const name of Object.keys(file.remotes)) expect(contractNames).toContain(name);
  });

  it("names the mount entry as mount.ts's type does", () => {
    const mountModule: RemoteMountModule = REMOTE_MOUNT_MODULE;
    expect(mountModule).toBe('./mount');
  });
});
