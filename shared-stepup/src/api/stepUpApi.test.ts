import { ApiError, type ApiClient } from 'shared-auth';
import { getChallenge, sendEmailChallenge, verifyStepUp } from './stepUpApi.js';

/** The shared client already parses the JSON text and turns refusals into ApiError (tested in shared-auth). */
function clientWith(calls: { get?: jest.Mock; post?: jest.Mock }): ApiClient {
  return calls as unknown as ApiClient;
}

describe('step-up calls', () => {
  it("GETs the user's challenge and passes the signal on", async () => {
    const response = { challengeUser: true, activeFactorsData: { googleAuth: {} } };
    const get = jest.fn().mockResolvedValue({ data: response });
    const { signal } = new AbortController();
    await expect(getChallenge(clientWith({ get }), '00u1', { signal })).resolves.toEqual(response);
    expect(get).toHaveBeenCalledWith('/api/stepup/00u1/challenge', { signal });
  });

  it('sends the email code and verifies a code, each with the signal', async () => {
    const post = jest
      .fn()
      .mockResolvedValueOnce({ data: { status: 'SENT', maskedEmail: 'a....e@example.com' } })
      .mockResolvedValueOnce({ data: { status: 'VERIFIED', expiresAt: '2026-03-07T10:05:00.000Z' } });
    const { signal } = new AbortController();
    await sendEmailChallenge(clientWith({ post }), '00u1', { signal });
    await verifyStepUp(clientWith({ post }), '00u1', 'email', '123456', { signal });
    expect(post).toHaveBeenNthCalledWith(1, '/api/stepup/00u1/email/challenge', {}, { signal });
    expect(post).toHaveBeenNthCalledWith(
      2,
      '/api/stepup/00u1/email/verify',
      { passCode: '123456' },
      { signal },
    );
  });

  it("passes the server's refusal on, and rejects answers outside the contract", async () => {
    const refusal = new ApiError('ERROR: invalid code', 400);
    await expect(
      verifyStepUp(clientWith({ post: jest.fn().mockRejectedValue(refusal) }), '00u1', 'google-auth', '1'),
    ).rejects.toBe(refusal);
    await expect(
      getChallenge(
        clientWith({ get: jest.fn().mockResolvedValue({ data: { challengeUser: 'yes' } }) }),
        '00u1',
      ),
    ).rejects.toThrow();
  });
});
