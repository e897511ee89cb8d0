import { loadRemote, registerRemotes } from '@module-federation/enhanced/runtime';
import {
  getRemotesConfig,
  loadPageModule,
  PAGE_LOAD_TIMEOUT_MS,
  registerPortalRemotes,
  withTimeout,
} from './remotesConfig.js';

jest.mock('@module-federation/enhanced/runtime', () => ({
  loadRemote: jest.fn(),
  registerRemotes: jest.fn(),
  registerPlugins: jest.fn(),
}));

const Page = () => null;

describe('withTimeout', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('passes the answer through when it comes in time', async () => {
    const answer = withTimeout(Promise.resolve('page'), 1000, 'too slow');
    await expect(answer).resolves.toBe('page');
    expect(jest.getTimerCount()).toBe(0);
  });

  it('rejects with the message once the time is up', async () => {
    const answer = withTimeout(new Promise(() => undefined), 1000, 'too slow');
    jest.advanceTimersByTime(999);
    const outcome = jest.fn();
    answer.then(outcome, outcome);
    await Promise.resolve();
    expect(outcome).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    await expect(answer).rejects.toThrow('too slow');
  });
});

describe('loadPageModule', () => {
  beforeEach(() => {
    jest.useFakeTimers();
    registerPortalRemotes({
      remotes: {
        remote_password: {
          entry: 'http://localhost:3002/remoteEntry.js',
          integrity: null,
          version: null,
          buildId: null,
          channel: 'bootstrap',
          fallback: null,
        },
      },
    });
  });
  afterEach(() => jest.useRealTimers());

  it('gives up on a remote that is still loading after the MF script timeout (a slow chunk), and Retry loads it afresh', async () => {
    expect(PAGE_LOAD_TIMEOUT_MS).toBe(20_000);
    jest.mocked(loadRemote).mockReturnValueOnce(new Promise(() => undefined));
    const slow = loadPageModule('remote_password');
    jest.advanceTimersByTime(PAGE_LOAD_TIMEOUT_MS);
    await expect(slow).rejects.toThrow('remote_password did not load within 20 s');

    jest.mocked(loadRemote).mockResolvedValueOnce({ default: Page });
    await expect(loadPageModule('remote_password', true)).resolves.toEqual({ default: Page });
    expect(registerRemotes).toHaveBeenLastCalledWith(
      [{ name: 'remote_password', entry: 'http://localhost:3002/remoteEntry.js' }],
      { force: true },
    );
  });

  it('shares one load between a preload and the page', async () => {
    jest.mocked(loadRemote).mockResolvedValue({ default: Page });
    const first = loadPageModule('remote_password', true);
    expect(loadPageModule('remote_password')).toBe(first);
    await expect(first).resolves.toEqual({ default: Page });
    expect(loadRemote).toHaveBeenCalledTimes(1);
  });
});

describe('getRemotesConfig', () => {
  const answer = (body: unknown) => () =>
    Promise.resolve(new Response(JSON.stringify(body), { status: 200 }));

  it('reads the resolved set as it is', async () => {
    const resolved = {
      remotes: {
        remote_profile: {
          entry: 'https://cdn.example.com/profile/1.4.0/remoteEntry.js',
          integrity: `sha384-${'a'.repeat(64)}`,
          version: '1.4.0',
          buildId: 'b-77',
          channel: 'stable',
          fallback: {
            entry: 'https://cdn.example.com/profile/1.3.0/remoteEntry.js',
            integrity: `sha384-${'b'.repeat(64)}`,
            version: '1.3.0',
          },
        },
      },
    };
    await expect(getRemotesConfig(answer(resolved))).resolves.toEqual(resolved);
  });

  it("reads an older server's file of entries alone as bootstrap entries, with no integrity", async () => {
    const config = await getRemotesConfig(
      answer({ remotes: { remote_profile: { entry: 'http://localhost:3001/remoteEntry.js' } } }),
    );
    expect(config.remotes.remote_profile).toEqual({
      entry: 'http://localhost:3001/remoteEntry.js',
      integrity: null,
      version: null,
      buildId: null,
      channel: 'bootstrap',
      fallback: null,
    });
  });

  it('refuses a resolved set with a bad integrity instead of reading it as entries without one', async () => {
    const tampered = {
      remotes: {
        remote_profile: {
          entry: 'http://localhost:3001/remoteEntry.js',
          integrity: 'sha256-short',
          version: '1.0.0',
          buildId: 'x',
          channel: 'stable',
          fallback: null,
        },
      },
    };
    await expect(getRemotesConfig(answer(tampered))).rejects.toThrow(
      /^Invalid setting in \/remotes\.json: remotes\.remote_profile\.integrity: integrity must be sha384/,
    );
  });

  it('names the setting at fault in a broken file', async () => {
    await expect(
      getRemotesConfig(answer({ remotes: { remote_profile: { entry: 'ftp://x' } } })),
    ).rejects.toThrow(/^Invalid setting in \/remotes\.json: remotes\.remote_profile\.entry: /);
  });
});
