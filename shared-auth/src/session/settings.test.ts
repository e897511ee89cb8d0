import { fetchSettings, flagBaseUrlOf, InvalidSettingsError, readSettings } from './settings.js';

const answer = (status: number, body: string) =>
  ({ ok: status < 400, status, text: () => Promise.resolve(body) }) as Response;

const valid = {
  Domain: 'http://localhost:3000/',
  ClientId: 'account-portal',
  HeaderLinks: '{"Support":"https://www.example.com/support"}',
  FooterLinks: { sections: {}, policies: { Privacy: 'https://www.example.com/privacy' } },
};

describe('readSettings', () => {
  it('parses the JSON text holding the settings, and the link maps given as JSON text', async () => {
    const settings = await readSettings(answer(200, JSON.stringify(JSON.stringify(valid))));
    expect(settings).toMatchObject({
      Domain: 'http://localhost:3000',
      ClientId: 'account-portal',
      HeaderLinks: { Support: 'https://www.example.com/support' },
      FooterLinks: { policies: { Privacy: 'https://www.example.com/privacy' } },
      FlagBaseUrl: '/flags/4x3',
    });
  });

  it('names the setting at fault', async () => {
    const broken = JSON.stringify(JSON.stringify({ ...valid, Domain: 'not a url' }));
    await expect(readSettings(answer(200, broken))).rejects.toEqual(
      new InvalidSettingsError('Invalid setting Domain: Invalid URL'),
    );
  });

  it("says whose the account's sessions and events are: the org's when the server says so, else the portal's (an older server)", async () => {
    const read = (settings: object) => readSettings(answer(200, JSON.stringify(JSON.stringify(settings))));
    expect((await read({ ...valid, AccountDataFrom: 'org' })).AccountDataFrom).toBe('org');
    expect((await read(valid)).AccountDataFrom).toBe('portal');
    await expect(read({ ...valid, AccountDataFrom: 'elsewhere' })).rejects.toThrow(
      /^Invalid setting AccountDataFrom: /,
    );
  });

  it('fails on an error answer', async () => {
    await expect(readSettings(answer(503, '{"error":"down"}'))).rejects.toThrow(
      'The settings call answered 503',
    );
  });
});

describe('fetchSettings', () => {
  it('asks the API at the base URL, passing the abort signal', async () => {
    const body = JSON.stringify(JSON.stringify({ Domain: 'http://localhost:3000/', ClientId: 'portal' }));
    const fetcher = jest.fn(async () => answer(200, body));
    const { signal } = new AbortController();
    const settings = await fetchSettings('http://localhost:3000', { fetcher, signal });
    expect(fetcher).toHaveBeenCalledWith('http://localhost:3000/api/clientConfiguration/getSettings', {
      headers: { Accept: 'application/json' },
      signal,
    });
    expect(settings.ClientId).toBe('portal');
  });
});

describe('flagBaseUrlOf', () => {
  it('serves the flags next to the API unless the settings name another host', () => {
    expect(flagBaseUrlOf({ FlagBaseUrl: '/flags/4x3' }, 'http://localhost:3000')).toBe(
      'http://localhost:3000/flags/4x3',
    );
    expect(flagBaseUrlOf({ FlagBaseUrl: '/flags/4x3' }, '')).toBe('/flags/4x3');
    expect(flagBaseUrlOf({ FlagBaseUrl: 'https://cdn.example.com/flags' }, 'http://localhost:3000')).toBe(
      'https://cdn.example.com/flags',
    );
  });
});
