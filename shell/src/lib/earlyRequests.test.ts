import { earlyRemotesSignedIn, startEarlyRequests, takeEarlyResponse } from './earlyRequests.js';

describe('the early remotes request', () => {
  const fetchMock = jest.fn((_url: string, _init?: RequestInit) => Promise.resolve(new Response('{}')));
  beforeEach(() => {
    fetchMock.mockClear();
    globalThis.fetch = fetchMock as unknown as typeof fetch;
    localStorage.clear();
  });

  const remotesCall = () =>
    fetchMock.mock.calls.find(([url]) => url === '/remotes.json') as unknown[] | undefined;

  it("carries the holder's stored token, so their canaries come in the first answer", async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    localStorage.setItem(
      'okta-token-storage',
      JSON.stringify({ accessToken: { accessToken: 'eyJ.token', expiresAt } }),
    );
    startEarlyRequests();
    expect(remotesCall()?.[1]).toMatchObject({
      headers: { Accept: 'application/json', Authorization: 'Bearer eyJ.token' },
      cache: 'no-store',
    });
    expect(earlyRemotesSignedIn()).toBe(true);
    await takeEarlyResponse('remotes');
  });

  it('goes anonymous with no token stored (the set is resolved again once signed in)', async () => {
    startEarlyRequests();
    expect(remotesCall()?.[1]).toMatchObject({ headers: { Accept: 'application/json' } });
    expect((remotesCall()?.[1] as { headers: Record<string, string> }).headers).not.toHaveProperty(
      'Authorization',
    );
    expect(earlyRemotesSignedIn()).toBe(false);
    await takeEarlyResponse('remotes');
  });
});
