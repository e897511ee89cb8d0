import type { AccountSessionList, ApiClient } from 'shared-auth';
import { getSessions, signOutEverywhere, signOutOthers, signOutSession } from './devicesApi.js';

const clientWith = (request: jest.Mock) => ({ request }) as unknown as ApiClient;
const LIST: AccountSessionList = {
  sessions: [
    {
      id: 'aaaaaaaaaaaaaaaaaaaa',
      current: true,
      browser: 'Chrome',
      os: 'Windows',
      deviceType: 'desktop',
      country: 'GB',
      address: '203.0.113.x',
      signedInAt: '2026-03-07T10:00:00.000Z',
      lastActiveAt: null,
    },
  ],
};

describe('devices calls', () => {
  it("GETs the caller's sessions with the signal, checked against the contract", async () => {
    const request = jest.fn().mockResolvedValue({ status: 200, data: LIST });
    const { signal } = new AbortController();
    await expect(getSessions(clientWith(request), '00u1', { signal })).resolves.toEqual(LIST);
    expect(request).toHaveBeenCalledWith({ method: 'GET', url: '/api/v1/users/00u1/sessions', signal });
    const odd = jest.fn().mockResolvedValue({ status: 200, data: { sessions: [{ id: 1 }] } });
    await expect(getSessions(clientWith(odd), '00u1')).rejects.toMatchObject({ code: 'invalid_response' });
  });

  it('DELETEs one session by its id', async () => {
    const request = jest.fn().mockResolvedValue({ status: 200, data: LIST });
    const { signal } = new AbortController();
    await expect(signOutSession(clientWith(request), '00u1', 'bbbb', { signal })).resolves.toEqual(LIST);
    expect(request).toHaveBeenCalledWith({
      method: 'DELETE',
      url: '/api/v1/users/00u1/sessions/bbbb',
      signal,
    });
  });

  it('POSTs sign-out-others and sign-out-everywhere with an empty body', async () => {
    const request = jest
      .fn()
      .mockResolvedValueOnce({ status: 200, data: LIST })
      .mockResolvedValueOnce({ status: 200, data: { status: 'SIGNED_OUT' } });
    const { signal } = new AbortController();
    await expect(signOutOthers(clientWith(request), '00u1', { signal })).resolves.toEqual(LIST);
    await expect(signOutEverywhere(clientWith(request), '00u1', { signal })).resolves.toEqual({
      status: 'SIGNED_OUT',
    });
    expect(request).toHaveBeenNthCalledWith(1, {
      method: 'POST',
      url: '/api/v1/users/00u1/sessions/sign-out-others',
      data: {},
      signal,
    });
    expect(request).toHaveBeenNthCalledWith(2, {
      method: 'POST',
      url: '/api/v1/users/00u1/sessions/sign-out-everywhere',
      data: {},
      signal,
    });
  });
});
