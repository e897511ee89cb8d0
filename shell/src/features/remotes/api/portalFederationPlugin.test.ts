import type { ModuleFederation } from '@module-federation/enhanced/runtime';
import type { ResolvedRemote } from 'shared-auth';
import { ActiveRemotes } from '../model/activeRemotes.js';
import { createLoadReporter, type ReportLoad } from './loadReports.js';
import { createPortalFederationPlugin } from './portalFederationPlugin.js';

const STABLE_INTEGRITY = `sha384-${'s'.repeat(64)}`;
const FALLBACK_INTEGRITY = `sha384-${'f'.repeat(64)}`;
const STABLE_ENTRY = 'https://cdn.example.com/profile/1.4.0/remoteEntry.js';
const FALLBACK_ENTRY = 'https://cdn.example.com/profile/1.3.0/remoteEntry.js';

function release(overrides: Partial<ResolvedRemote> = {}): ResolvedRemote {
  return {
    entry: STABLE_ENTRY,
    integrity: STABLE_INTEGRITY,
    version: '1.4.0',
    buildId: 'b-140',
    channel: 'stable',
    fallback: { entry: FALLBACK_ENTRY, integrity: FALLBACK_INTEGRITY, version: '1.3.0' },
    ...overrides,
  };
}

function setup(remote: ResolvedRemote, report: ReportLoad = jest.fn()) {
  const remotes = new ActiveRemotes();
  remotes.set({ remotes: { remote_profile: remote } });
  const classify = jest.fn().mockResolvedValue('integrity');
  const plugin = createPortalFederationPlugin({ remotes, report, classify });
  const origin = { registerRemotes: jest.fn(), loadRemote: jest.fn() };
  const fail = (error: unknown) =>
    plugin.errorLoadRemote!({
      id: 'remote_profile/ProfilePage',
      error,
      from: 'runtime',
      lifecycle: 'onLoad',
      remote: { name: 'remote_profile', entry: STABLE_ENTRY } as never,
      origin: origin as unknown as ModuleFederation,
    });
  const scriptFor = (url: string) =>
    plugin.createScript!({ url, remoteInfo: { name: 'remote_profile' } as never }) as
      HTMLScriptElement | undefined;
  return { remotes, report, classify, plugin, origin, fail, scriptFor };
}

describe('the portal MF runtime plugin', () => {
  beforeEach(() => jest.spyOn(console, 'warn').mockImplementation(() => undefined));

  it("loads a release's entry with its integrity and CORS", () => {
    const script = setup(release()).scriptFor(STABLE_ENTRY);
    expect(script?.getAttribute('src')).toBe(STABLE_ENTRY);
    expect(script?.getAttribute('integrity')).toBe(STABLE_INTEGRITY);
    expect(script?.getAttribute('crossorigin')).toBe('anonymous');
  });

  it('loads a remotes-file entry (no release yet) with CORS and no integrity', () => {
    const script = setup(
      release({ channel: 'bootstrap', integrity: null, version: null, fallback: null }),
    ).scriptFor(STABLE_ENTRY);
    expect(script?.getAttribute('crossorigin')).toBe('anonymous');
    expect(script?.hasAttribute('integrity')).toBe(false);
  });

  it("leaves a script that is not the remote's entry to the runtime", () => {
    expect(setup(release()).scriptFor('https://elsewhere.example.com/other.js')).toBeUndefined();
  });

  it('reports a failed stable release, then loads the previous stable, with its own integrity, in the same page load', async () => {
    const { fail, report, origin, scriptFor, remotes } = setup(release());
    const module = { default: () => null };
    origin.loadRemote.mockResolvedValue(module);
    const error = new Error('RUNTIME-008 ScriptNetworkError');

    await expect(fail(error)).resolves.toBe(module);

    expect(report).toHaveBeenCalledWith({
      remote: 'remote_profile',
      version: '1.4.0',
      outcome: 'failed',
      kind: 'integrity',
    });
    expect(origin.registerRemotes).toHaveBeenCalledWith([{ name: 'remote_profile', entry: FALLBACK_ENTRY }], {
      force: true,
    });
    expect(origin.loadRemote).toHaveBeenCalledWith('remote_profile/ProfilePage');
    expect(scriptFor(FALLBACK_ENTRY)?.getAttribute('integrity')).toBe(FALLBACK_INTEGRITY);
    expect(remotes.of('remote_profile')).toMatchObject({ version: '1.3.0', isFallback: true });
  });

  it('gives up when the fallback fails too: the page shows its contained error', async () => {
    const { fail, report, origin } = setup(release());
    origin.loadRemote.mockResolvedValue({ default: () => null });
    await fail(new Error('stable failed'));
    await expect(fail(new Error('fallback failed'))).resolves.toBeUndefined();
    expect(report).toHaveBeenLastCalledWith({
      remote: 'remote_profile',
      version: '1.3.0',
      outcome: 'failed',
      kind: 'integrity',
    });
    expect(origin.loadRemote).toHaveBeenCalledTimes(1);
  });

  it('does not fall back from a canary: its holders get stable on their next load, once it is rolled back', async () => {
    const { fail, report, origin } = setup(release({ channel: 'canary', version: '1.5.0' }));
    await expect(fail(new Error('canary failed'))).resolves.toBeUndefined();
    expect(report).toHaveBeenCalledWith({
      remote: 'remote_profile',
      version: '1.5.0',
      outcome: 'failed',
      kind: 'integrity',
    });
    expect(origin.registerRemotes).not.toHaveBeenCalled();
    expect(origin.loadRemote).not.toHaveBeenCalled();
  });

  it('does not fall back from a stable release that has no previous one', async () => {
    const { fail, origin } = setup(release({ fallback: null }));
    await expect(fail(new Error('failed'))).resolves.toBeUndefined();
    expect(origin.loadRemote).not.toHaveBeenCalled();
  });

  it('reports a loaded remote with the version it runs, and remembers it for About', async () => {
    const { plugin, report, remotes } = setup(release());
    await plugin.onLoad!({ remote: { name: 'remote_profile' } } as never);
    expect(report).toHaveBeenCalledWith({ remote: 'remote_profile', version: '1.4.0', outcome: 'loaded' });
    expect(remotes.loadedRemotes()).toEqual([
      { name: 'remote_profile', active: expect.objectContaining({ buildId: 'b-140' }) },
    ]);
  });

  it("sends a canary holder's failed load with their token, once, however often the page retries", async () => {
    const send = jest.fn();
    const { fail } = setup(
      release({ channel: 'canary', version: '1.5.0' }),
      createLoadReporter(send, () => 'eyJ.holder'),
    );
    await fail(new Error('canary failed'));
    await fail(new Error('canary failed again'));
    expect(send).toHaveBeenCalledTimes(1);
    const [path, body, token] = send.mock.calls[0] as [string, string, string];
    expect(path).toBe('/api/v1/remote-loads');
    expect(JSON.parse(body)).toEqual({
      remote: 'remote_profile',
      version: '1.5.0',
      outcome: 'failed',
      kind: 'integrity',
    });
    expect(token).toBe('eyJ.holder');
  });

  it('leaves alone a request for a remote it does not know', async () => {
    const { plugin, report } = setup(release());
    await expect(
      plugin.errorLoadRemote!({
        id: 'remote_unknown/Page',
        error: new Error('RUNTIME-004'),
        from: 'runtime',
        lifecycle: 'beforeRequest',
        origin: {} as ModuleFederation,
      }),
    ).resolves.toBeUndefined();
    expect(report).not.toHaveBeenCalled();
  });
});
