import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from './helpers.js';

describe('the /api flood guard (API_RATE_LIMIT)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ API_RATE_LIMIT: '3' });
  });
  afterAll(async () => t.close());

  it('answers 429 with the JSON error shape once a client address goes over the limit', async () => {
    const statuses: number[] = [];
    for (let call = 0; call < 4; call += 1) {
      statuses.push((await t.app.inject('/api/clientConfiguration/getSettings')).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await t.app.inject('/api/clientConfiguration/getSettings');
    expect(refused.json()).toEqual({ error: expect.stringMatching(/rate limit|too many/i) });
    expect(refused.headers['retry-after']).toBeDefined();
  });

  it('does not limit the shell or the sign-in pages', async () => {
    for (let call = 0; call < 5; call += 1) expect((await t.app.inject('/healthz')).statusCode).toBe(200);
  });
});
