import type { ApiClient } from 'shared-auth';
import { generateRecoveryCodes, getRecoveryCodesStatus } from './recoveryCodesApi.js';

const clientWith = (request: jest.Mock) => ({ request }) as unknown as ApiClient;
const CODES = Array.from({ length: 10 }, (_, index) => `ABCDE-FGH${'0123456789'[index]}K`);

describe('recovery codes calls', () => {
  it("GETs the user's status, with the signal", async () => {
    const status = { available: true, left: 7, total: 10, generatedAt: '2026-03-07T12:00:00.000Z' };
    const request = jest.fn().mockResolvedValue({ status: 200, data: status });
    const { signal } = new AbortController();
    await expect(getRecoveryCodesStatus(clientWith(request), '00u1', { signal })).resolves.toEqual(status);
    expect(request).toHaveBeenCalledWith({ method: 'GET', url: '/api/recoverycodes/00u1', signal });
  });

  it('POSTs generate, with the signal, and checks the answer against the contract', async () => {
    const generated = { codes: CODES, generatedAt: '2026-03-07T12:00:00.000Z' };
    const request = jest.fn().mockResolvedValue({ status: 200, data: generated });
    const { signal } = new AbortController();
    await expect(generateRecoveryCodes(clientWith(request), '00u1', { signal })).resolves.toEqual(generated);
    expect(request).toHaveBeenCalledWith({
      method: 'POST',
      url: '/api/recoverycodes/00u1/generate',
      data: {},
      signal,
    });
    const short = jest.fn().mockResolvedValue({ status: 200, data: { ...generated, codes: CODES.slice(1) } });
    await expect(generateRecoveryCodes(clientWith(short), '00u1')).rejects.toMatchObject({
      code: 'invalid_response',
    });
  });
});
