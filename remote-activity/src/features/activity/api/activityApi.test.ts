import type { ActivityPage, ApiClient } from 'shared-auth';
import { getActivity, reportNotMe } from './activityApi.js';

const clientWith = (request: jest.Mock) => ({ request }) as unknown as ApiClient;
const CURSOR = `1772877600000_${'a'.repeat(20)}`;
const PAGE: ActivityPage = {
  events: [
    {
      id: 'e1',
      kind: 'password-changed',
      detail: null,
      at: '2026-03-07T10:00:00.000Z',
      browser: 'Firefox',
      os: 'Linux',
      deviceType: 'desktop',
      country: null,
      address: null,
    },
  ],
  next: CURSOR,
};

describe('activity calls', () => {
  it('GETs the newest page, then the page before a cursor, with the signal', async () => {
    const request = jest.fn().mockResolvedValue({ status: 200, data: PAGE });
    const { signal } = new AbortController();
    await expect(getActivity(clientWith(request), '00u1', undefined, { signal })).resolves.toEqual(PAGE);
    await getActivity(clientWith(request), '00u1', CURSOR, { signal });
    expect(request).toHaveBeenNthCalledWith(1, { method: 'GET', url: '/api/v1/users/00u1/activity', signal });
    expect(request).toHaveBeenNthCalledWith(2, {
      method: 'GET',
      url: `/api/v1/users/00u1/activity?before=${CURSOR}`,
      signal,
    });
  });

  it('refuses an answer outside the contract', async () => {
    const request = jest.fn().mockResolvedValue({ status: 200, data: { events: [{ kind: 'hacked' }] } });
    await expect(getActivity(clientWith(request), '00u1', undefined)).rejects.toMatchObject({
      code: 'invalid_response',
    });
  });

  it('POSTs "This wasn\'t me" with the event id', async () => {
    const request = jest.fn().mockResolvedValue({ status: 200, data: { status: 'SIGNED_OUT' } });
    const { signal } = new AbortController();
    await expect(reportNotMe(clientWith(request), '00u1', 'e1', { signal })).resolves.toEqual({
      status: 'SIGNED_OUT',
    });
    expect(request).toHaveBeenCalledWith({
      method: 'POST',
      url: '/api/v1/users/00u1/activity/not-me',
      data: { eventId: 'e1' },
      signal,
    });
  });
});
