import { createLoadReporter } from './loadReports.js';

const PATH = '/api/v1/remote-loads';
const FAILED = { remote: 'remote_profile', version: '1.5.0', outcome: 'failed', kind: 'render' } as const;

/** What okta-auth-js keeps for a signed-in holder (lib/storedAccessToken.ts reads it). */
function signIn(accessToken: string, expiresInSeconds = 3600) {
  const expiresAt = Math.floor(Date.now() / 1000) + expiresInSeconds;
  localStorage.setItem('okta-token-storage', JSON.stringify({ accessToken: { accessToken, expiresAt } }));
}

/** A Blob's text (jsdom's Blob has no text()). */
function textOf(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('unreadable blob'));
    reader.readAsText(blob);
  });
}

describe('the load reporter', () => {
  it('sends one report per remote, version and outcome in a page load', () => {
    const send = jest.fn();
    const report = createLoadReporter(send, () => undefined);
    report({ remote: 'remote_profile', version: '1.4.0', outcome: 'failed', kind: 'network' });
    report({ remote: 'remote_profile', version: '1.4.0', outcome: 'failed', kind: 'network' });
    // Another kind of the same failure is the same outcome: the page's retries count once.
    report({ remote: 'remote_profile', version: '1.4.0', outcome: 'failed', kind: 'render' });
    report({ remote: 'remote_profile', version: '1.4.0', outcome: 'loaded' });
    report({ remote: 'remote_profile', version: '1.3.0', outcome: 'failed', kind: 'network' });
    report({ remote: 'remote_password', version: '1.4.0', outcome: 'loaded' });

    expect(send.mock.calls.map(([path, body]) => [path, JSON.parse(body as string)])).toEqual([
      [PATH, { remote: 'remote_profile', version: '1.4.0', outcome: 'failed', kind: 'network' }],
      [PATH, { remote: 'remote_profile', version: '1.4.0', outcome: 'loaded' }],
      [PATH, { remote: 'remote_profile', version: '1.3.0', outcome: 'failed', kind: 'network' }],
      [PATH, { remote: 'remote_password', version: '1.4.0', outcome: 'loaded' }],
    ]);
  });

  it('reports a remote with no release yet with a null version', () => {
    const send = jest.fn();
    createLoadReporter(send, () => undefined)({ remote: 'remote_profile', version: null, outcome: 'loaded' });
    expect(JSON.parse(send.mock.calls[0]?.[1] as string)).toEqual({
      remote: 'remote_profile',
      version: null,
      outcome: 'loaded',
    });
  });

  it('sends nothing the server would refuse', () => {
    const send = jest.fn();
    createLoadReporter(
      send,
      () => undefined,
    )({
      remote: 'remote_profile',
      version: 'not a version!',
      outcome: 'loaded',
    });
    expect(send).not.toHaveBeenCalled();
  });
});

describe('how a report travels', () => {
  const fetchMock = jest.fn((_url: string, _init?: RequestInit) =>
    Promise.resolve(new Response(null, { status: 204 })),
  );
  const beacon = jest.fn((_url: string, _data?: BodyInit | null) => true);

  beforeEach(() => {
    fetchMock.mockClear();
    beacon.mockReset().mockReturnValue(true);
    globalThis.fetch = fetchMock as unknown as typeof fetch;
    Object.defineProperty(navigator, 'sendBeacon', { value: beacon, configurable: true });
    localStorage.clear();
  });

  it("carries a signed-in holder's token, by fetch with keepalive (a beacon cannot), so it counts for the canary", () => {
    signIn('eyJ.holder');
    createLoadReporter()(FAILED);
    expect(beacon).not.toHaveBeenCalled();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe(PATH);
    expect(init).toMatchObject({
      method: 'POST',
      keepalive: true,
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer eyJ.holder' },
    });
    expect(JSON.parse(init?.body as string)).toEqual(FAILED);
  });

  it('sends an anonymous page’s report by beacon, with no token', async () => {
    createLoadReporter()(FAILED);
    expect(fetchMock).not.toHaveBeenCalled();
    expect(beacon).toHaveBeenCalledTimes(1);
    const [url, blob] = beacon.mock.calls[0] ?? [];
    expect(url).toBe(PATH);
    expect((blob as Blob).type).toBe('application/json');
    expect(JSON.parse(await textOf(blob as Blob))).toEqual(FAILED);
  });

  it('sends a token about to expire as no token: anonymous, by beacon', () => {
    signIn('eyJ.expiring', 10);
    createLoadReporter()(FAILED);
    expect(beacon).toHaveBeenCalledTimes(1);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('falls back to fetch with keepalive, still without a token, when the browser refuses the beacon', () => {
    beacon.mockReturnValue(false);
    createLoadReporter()(FAILED);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const init = fetchMock.mock.calls[0]?.[1];
    expect(init).toMatchObject({ keepalive: true });
    expect(init?.headers).not.toHaveProperty('Authorization');
  });

  it('reads the token when each report goes: a holder who signed in since the page started is heard', () => {
    const report = createLoadReporter();
    report({ remote: 'remote_password', version: '2.0.0', outcome: 'loaded' });
    signIn('eyJ.later');
    report(FAILED);
    expect(beacon).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0]?.[1]?.headers).toMatchObject({ Authorization: 'Bearer eyJ.later' });
  });

  it('retries nothing when the server refuses the report (a token it no longer takes: 401)', async () => {
    fetchMock.mockResolvedValueOnce(new Response(null, { status: 401 }));
    signIn('eyJ.ended');
    createLoadReporter()(FAILED);
    await Promise.resolve();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(beacon).not.toHaveBeenCalled();
  });
});
