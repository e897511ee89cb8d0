import { ApiError, REAUTHENTICATION_WRONG_PASSWORD_ERROR, type ApiClient } from 'shared-auth';
import { reauthenticate } from './reauthenticate.js';

function clientWith(request: jest.Mock): ApiClient {
  return { request } as unknown as ApiClient;
}

describe('reauthenticate', () => {
  it("POSTs the password to the user's reauthenticate path, with the signal", async () => {
    const request = jest.fn().mockResolvedValue({
      status: 200,
      data: { status: 'VERIFIED', expiresAt: '2026-03-07T10:05:00.000Z' },
    });
    const { signal } = new AbortController();
    await expect(
      reauthenticate(clientWith(request), '00u1', 'Wonderland-42', { signal }),
    ).resolves.toBeUndefined();
    expect(request).toHaveBeenCalledWith({
      method: 'POST',
      url: '/api/stepup/00u1/reauthenticate',
      data: { password: 'Wonderland-42' },
      signal,
    });
  });

  it("passes the server's refusal on", async () => {
    const refusal = new ApiError(REAUTHENTICATION_WRONG_PASSWORD_ERROR, 400, 'wrong_password');
    await expect(reauthenticate(clientWith(jest.fn().mockRejectedValue(refusal)), '00u1', 'x')).rejects.toBe(
      refusal,
    );
  });

  it('rejects an answer outside the contract', async () => {
    await expect(
      reauthenticate(
        clientWith(jest.fn().mockResolvedValue({ status: 200, data: { ok: true } })),
        '00u1',
        'x',
      ),
    ).rejects.toMatchObject({ name: 'ApiError', code: 'invalid_response' });
  });
});
