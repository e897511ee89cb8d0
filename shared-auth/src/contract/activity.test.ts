import { apiCallers, type ApiRequester } from './caller.js';
import { ACTIVITY_EVENT_KINDS, activityNotMeBodySchema, activityQuerySchema } from './activity.js';

/** A requester that records the requests and answers an empty page. */
function recording() {
  const urls: string[] = [];
  const requester: ApiRequester = {
    request: async ({ url }) => {
      urls.push(url);
      return { status: 200, data: { events: [], next: null } };
    },
  };
  return { urls, requester };
}

describe('the activity call', () => {
  it('sends its query after the path, only the parts that are set', async () => {
    const { urls, requester } = recording();
    await apiCallers.activity(requester, { params: { sub: '00u1' } });
    await apiCallers.activity(requester, {
      params: { sub: '00u1' },
      query: { before: '1767225600000_0000000AAAAAAAAAAAAA', limit: '10' },
    });
    expect(urls).toEqual([
      '/api/v1/users/00u1/activity',
      '/api/v1/users/00u1/activity?before=1767225600000_0000000AAAAAAAAAAAAA&limit=10',
    ]);
  });

  it('refuses a query the server would refuse, without sending it', async () => {
    const { urls, requester } = recording();
    await expect(
      apiCallers.activity(requester, { params: { sub: '00u1' }, query: { limit: '51' } }),
    ).rejects.toMatchObject({ status: 0, code: 'invalid_request' });
    expect(urls).toEqual([]);
  });

  it('takes a limit of 1 to 50 and a cursor of an earlier page', () => {
    expect(activityQuerySchema.safeParse({ limit: '1' }).success).toBe(true);
    expect(activityQuerySchema.safeParse({ limit: '50' }).success).toBe(true);
    expect(activityQuerySchema.safeParse({ limit: '0' }).success).toBe(false);
    expect(activityQuerySchema.safeParse({ before: 'yesterday' }).success).toBe(false);
    expect(new Set(ACTIVITY_EVENT_KINDS).size).toBe(ACTIVITY_EVENT_KINDS.length);
  });
});

describe('"This wasn\'t me" body', () => {
  it("takes an event id of the portal's or of the org's System Log, and nothing else", () => {
    expect(activityNotMeBodySchema.safeParse({ eventId: '00A1B2C3DaBcDeFgHiJk' }).success).toBe(true);
    expect(
      activityNotMeBodySchema.safeParse({ eventId: '0f8e8c2a-5d1b-11ef-8a6b-2b7584bf8d5a' }).success,
    ).toBe(true);
    for (const body of [
      {},
      { eventId: '' },
      { eventId: 'a b' },
      { eventId: 'x'.repeat(65) },
      { eventId: 'A', sub: 'B' },
    ]) {
      expect(activityNotMeBodySchema.safeParse(body).success).toBe(false);
    }
  });
});
