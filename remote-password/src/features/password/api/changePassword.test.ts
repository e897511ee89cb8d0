import { ApiError, type ApiClient } from 'shared-auth';
import { changePassword } from './changePassword.js';

/** The shared client already parses the JSON text and turns refusals into ApiError (tested in shared-auth). */
function clientWith(put: jest.Mock): ApiClient {
  return { put } as unknown as ApiClient;
}

describe('changePassword', () => {
  it('PUTs OldPassword and NewPassword to the password path of the user', async () => {
    const put = jest.fn().mockResolvedValue({ data: { status: 'changed' } });
    await expect(
      changePassword(clientWith(put), '00u1', { OldPassword: 'Old-Pass-1', NewPassword: 'New-Pass-2' }),
    ).resolves.toBeUndefined();
    expect(put).toHaveBeenCalledWith('/api/password/00u1/change', {
      OldPassword: 'Old-Pass-1',
      NewPassword: 'New-Pass-2',
    });
  });

  it("passes the server's refusal on", async () => {
    const refusal = new ApiError('The current password is not correct.', 400);
    const put = jest.fn().mockRejectedValue(refusal);
    await expect(
      changePassword(clientWith(put), '00u1', { OldPassword: 'x', NewPassword: 'y' }),
    ).rejects.toBe(refusal);
  });

  it('rejects an answer outside the contract', async () => {
    const put = jest.fn().mockResolvedValue({ data: { ok: true } });
    await expect(
      changePassword(clientWith(put), '00u1', { OldPassword: 'x', NewPassword: 'y' }),
    ).rejects.toThrow();
  });
});
