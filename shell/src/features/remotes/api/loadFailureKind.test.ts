import { loadFailureKind, type RecheckDeps } from './loadFailureKind.js';

const EXPECTED = `sha384-${'e'.repeat(64)}`;
const active = { entry: 'https://cdn.example.com/profile/1.4.0/remoteEntry.js', integrity: EXPECTED };
const entryFailure = new Error(
  '[ Federation Runtime ]: RUNTIME-008 ScriptNetworkError: Failed to load script "https://cdn.example.com/profile/1.4.0/remoteEntry.js"',
);

function recheck(answer: 'unreachable' | 'not-found' | string): RecheckDeps & { fetch: jest.Mock } {
  const fetch = jest.fn((): Promise<Response> => {
    if (answer === 'unreachable') return Promise.reject(new TypeError('Failed to fetch'));
    if (answer === 'not-found') return Promise.resolve(new Response('', { status: 404 }));
    return Promise.resolve(new Response('bytes'));
  });
  return { fetch, integrityOf: () => Promise.resolve(answer) };
}

function chunkLoadError(type: string): Error {
  return Object.assign(new Error('Loading chunk 16 failed.'), {
    name: 'ChunkLoadError',
    type,
    request: 'https://cdn.example.com/profile/1.4.0/16.abc.js',
  });
}

describe('loadFailureKind', () => {
  it('says integrity when the entry is reachable but its bytes are not the published ones', async () => {
    const deps = recheck(`sha384-${'t'.repeat(64)}`);
    await expect(loadFailureKind(entryFailure, active, deps)).resolves.toBe('integrity');
    expect(deps.fetch).toHaveBeenCalledWith(active.entry, {
      mode: 'cors',
      credentials: 'omit',
      cache: 'no-store',
    });
  });

  it('says network when the entry cannot be fetched, or answers an error', async () => {
    await expect(loadFailureKind(entryFailure, active, recheck('unreachable'))).resolves.toBe('network');
    await expect(loadFailureKind(entryFailure, active, recheck('not-found'))).resolves.toBe('network');
  });

  it('says network when the entry is fine now (the failure was on the way)', async () => {
    await expect(loadFailureKind(entryFailure, active, recheck(EXPECTED))).resolves.toBe('network');
  });

  it('says network for an entry with no published integrity, without fetching it again', async () => {
    const deps = recheck(EXPECTED);
    await expect(loadFailureKind(entryFailure, { ...active, integrity: null }, deps)).resolves.toBe(
      'network',
    );
    expect(deps.fetch).not.toHaveBeenCalled();
  });

  it("says integrity for a remote's chunk that is reachable yet was refused, network for one that is not", async () => {
    const reachable = recheck('whatever');
    await expect(loadFailureKind(chunkLoadError('error'), active, reachable)).resolves.toBe('integrity');
    expect(reachable.fetch).toHaveBeenCalledWith(
      'https://cdn.example.com/profile/1.4.0/16.abc.js',
      expect.anything(),
    );
    await expect(loadFailureKind(chunkLoadError('error'), active, recheck('unreachable'))).resolves.toBe(
      'network',
    );
    await expect(loadFailureKind(chunkLoadError('timeout'), active, reachable)).resolves.toBe('network');
  });

  it('says version-contract when the portal refused a shared package the remote needs', async () => {
    const refusal = new Error(
      'Version 1.0.0 from shell of shared singleton module shared-auth does not satisfy the requirement of remote_profile which needs ^2.0.0)',
    );
    await expect(loadFailureKind(refusal, active, recheck(EXPECTED))).resolves.toBe('version-contract');
  });

  it('says render when the entry arrived and threw as it ran', async () => {
    const threw = new Error('RUNTIME-008 ScriptExecutionError: Script "x" loaded but threw a runtime error');
    await expect(loadFailureKind(threw, active, recheck(EXPECTED))).resolves.toBe('render');
  });
});
