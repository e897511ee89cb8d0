import { ApiError, type ApiClient } from 'shared-auth';
import { changePassword } from './changePassword.js';

/** The shared client already parses the JSON text and turns refusals into ApiError (tested in shared-auth). */
function clientWith(request: jest.Mock): ApiClient {
  return { request } as unknown as ApiClient;
}

describe('changePassword', () => {
  it('PUTs OldPassword and NewPassword to the password path of the user, with the signal', async () => {
    const request = jest.fn().mockResolvedValue({ status: 200, data: { status: 'changed' } });
    const { signal } = new AbortController();
    await expect(
      changePassword(
        clientWith(request),
        '00u1',
        { OldPassword: 'Old-Pass-1', NewPassword: 'New-Pass-2' },
        { signal },
      ),
    ).resolves.toBeUndefined();
    expect(request).toHaveBeenCalledWith({
      method: 'PUT',
      url: '/api/password/00u1/change',
      data: { OldPassword: 'Old-Pass-1', NewPassword: 'New-Pass-2' },
      signal,
    });
  });

  it("passes the server's refusal on", async () => {
    const refusal = new ApiError('The current password is not correct.', 400, 'wrong_password');
    const request = jest.fn().mockRejectedValue(refusal);
    await expect(
      changePassword(clientWith(request), '00u1', { OldPassword: 'x', NewPassword: 'y' }),
    ).rejects.toBe(refusal);
  });

  it('takes any ok answer as changed (spec: an ok answer means saved), whatever its body', async () => {
    const request = jest.fn().mockResolvedValue({ status: 200, data: { ok: true } });
    await expect(
      changePassword(clientWith(request), '00u1', { OldPassword: 'x', NewPassword: 'y' }),
    ).resolves.toBeUndefined();
  });
});
