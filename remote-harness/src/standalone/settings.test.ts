import { apiBaseUrlOf, fetchSettings } from './settings.js';

describe('apiBaseUrlOf', () => {
  it('reads the meta tag, or falls back to the local server', () => {
    document.head.innerHTML = '<meta name="portal-api-base-url" content="https://account.example.com/" />';
    expect(apiBaseUrlOf(document)).toBe('https://account.example.com');
    document.head.innerHTML = '';
    expect(apiBaseUrlOf(document)).toBe('http://localhost:3000');
  });
});

describe('fetchSettings', () => {
  it('parses the JSON text holding JSON', async () => {
    const body = JSON.stringify(JSON.stringify({ Domain: 'http://localhost:3000/', ClientId: 'portal' }));
    const fetcher = jest.fn(async () => ({ ok: true, status: 200, text: async () => body }) as Response);
    const settings = await fetchSettings('http://localhost:3000', fetcher);
    expect(fetcher).toHaveBeenCalledWith('http://localhost:3000/api/clientConfiguration/getSettings', {
      headers: { Accept: 'application/json' },
    });
    expect(settings.Domain).toBe('http://localhost:3000');
    expect(settings.ClientId).toBe('portal');
  });

  it('fails on an error answer', async () => {
    const fetcher = jest.fn(async () => ({ ok: false, status: 500 }) as Response);
    await expect(fetchSettings('', fetcher)).rejects.toThrow('The settings call answered 500');
  });
});
