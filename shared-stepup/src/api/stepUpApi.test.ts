import { ApiError, type ApiClient } from 'shared-auth';
import {
  getChallenge,
  getPasskeyOptions,
  sendEmailChallenge,
  verifyPasskey,
  verifyRecoveryCode,
  verifyStepUp,
} from './stepUpApi.js';

/** The shared client already parses the JSON text and turns refusals into ApiError (tested in shared-auth). */
function clientWith(request: jest.Mock): ApiClient {
  return { request } as unknown as ApiClient;
}

describe('step-up calls', () => {
  it("passkey: POSTs for the options (answering them alone), then the browser's answer, each with the signal", async () => {
    const options = { challenge: 'c2lnbi1tZQ', rpId: 'localhost' };
    const answer = { id: 'cred-1', rawId: 'cred-1', type: 'public-key', response: {} };
    const request = jest
      .fn()
      .mockResolvedValueOnce({ status: 200, data: { options } })
      .mockResolvedValueOnce({
        status: 200,
        data: { status: 'VERIFIED', expiresAt: '2026-03-07T10:05:00.000Z' },
      });
    const { signal } = new AbortController();
    await expect(getPasskeyOptions(clientWith(request), '00u1', { signal })).resolves.toEqual(options);
    await expect(verifyPasskey(clientWith(request), '00u1', answer, { signal })).resolves.toBeUndefined();
    expect(request).toHaveBeenNthCalledWith(1, {
      method: 'POST',
      url: '/api/stepup/00u1/passkey/options',
      data: {},
      signal,
    });
    expect(request).toHaveBeenNthCalledWith(2, {
      method: 'POST',
      url: '/api/stepup/00u1/passkey/verify',
      data: { response: answer },
      signal,
    });
  });

  it("GETs the user's challenge and passes the signal on", async () => {
    const response = { challengeUser: true, activeFactorsData: { googleAuth: {} } };
    const request = jest.fn().mockResolvedValue({ status: 200, data: response });
    const { signal } = new AbortController();
    await expect(getChallenge(clientWith(request), '00u1', { signal })).resolves.toEqual(response);
    expect(request).toHaveBeenCalledWith({ method: 'GET', url: '/api/stepup/00u1/challenge', signal });
  });

  it('sends the email code and verifies a code, each with the signal', async () => {
    const request = jest
      .fn()
      .mockResolvedValueOnce({ status: 200, data: { status: 'SENT', maskedEmail: 'a....e@example.com' } })
      .mockResolvedValueOnce({
        status: 200,
        data: { status: 'VERIFIED', expiresAt: '2026-03-07T10:05:00.000Z' },
      });
    const { signal } = new AbortController();
    await sendEmailChallenge(clientWith(request), '00u1', { signal });
    await verifyStepUp(clientWith(request), '00u1', 'email', '123456', { signal });
    expect(request).toHaveBeenNthCalledWith(1, {
      method: 'POST',
      url: '/api/stepup/00u1/email/challenge',
      data: {},
      signal,
    });
    expect(request).toHaveBeenNthCalledWith(2, {
      method: 'POST',
      url: '/api/stepup/00u1/email/verify',
      data: { passCode: '123456' },
      signal,
    });
  });

  it('takes any ok answer of send and verify as done (spec: an ok answer means sent / verified)', async () => {
    const request = jest.fn().mockResolvedValue({ status: 200, data: 'OK' });
    await expect(sendEmailChallenge(clientWith(request), '00u1')).resolves.toBeUndefined();
    await expect(verifyStepUp(clientWith(request), '00u1', 'google-auth', '123456')).resolves.toBeUndefined();
  });

  it("passes the server's refusal on, and rejects a challenge answer outside the contract", async () => {
    const refusal = new ApiError('ERROR: invalid code', 400, 'invalid_code');
    await expect(
      verifyStepUp(clientWith(jest.fn().mockRejectedValue(refusal)), '00u1', 'google-auth', '1'),
    ).rejects.toBe(refusal);
    await expect(
      getChallenge(
        clientWith(jest.fn().mockResolvedValue({ status: 200, data: { challengeUser: 'yes' } })),
        '00u1',
      ),
    ).rejects.toMatchObject({ name: 'ApiError', status: 200, code: 'invalid_response' });
  });

  it('verifies a recovery code at its own path, with the signal; any ok answer means verified', async () => {
    const request = jest.fn().mockResolvedValue({ status: 200, data: 'OK' });
    const { signal } = new AbortController();
    await expect(
      verifyRecoveryCode(clientWith(request), '00u1', 'ABCDE-FGHJK', { signal }),
    ).resolves.toBeUndefined();
    expect(request).toHaveBeenCalledWith({
      method: 'POST',
      url: '/api/stepup/00u1/recovery-code/verify',
      data: { recoveryCode: 'ABCDE-FGHJK' },
      signal,
    });
  });
});
