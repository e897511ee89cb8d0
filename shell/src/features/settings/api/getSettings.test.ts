import { getSettings, InvalidSettingsError } from './getSettings.js';

const answer = (status: number, body: string) => () =>
  Promise.resolve({ ok: status < 400, status, text: () => Promise.resolve(body) } as Response);

const valid = {
  Domain: 'http://localhost:3000/',
  ClientId: 'account-portal',
  HeaderLinks: '{"Support":"https://www.example.com/support"}',
  FooterLinks: { sections: {}, policies: { Privacy: 'https://www.example.com/privacy' } },
};

describe('getSettings', () => {
  it('parses the JSON text holding the settings, and the link maps given as JSON text', async () => {
    const settings = await getSettings(answer(200, JSON.stringify(JSON.stringify(valid))));
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
    await expect(getSettings(answer(200, broken))).rejects.toEqual(
      new InvalidSettingsError('Invalid setting Domain: Invalid URL'),
    );
  });

  it('fails when the call fails', async () => {
    await expect(getSettings(answer(503, '{"error":"down"}'))).rejects.toThrow(
      'The settings call answered 503',
    );
  });
});
