import { storedAccessToken } from './storedAccessToken.js';

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const storageWith = (value: string | null) => ({ getItem: () => value });
const stored = (expiresAt: number) =>
  storageWith(JSON.stringify({ accessToken: { accessToken: 'eyJ.token', expiresAt }, idToken: {} }));

describe('storedAccessToken', () => {
  it("reads the SDK's stored access token while it is valid for a while yet", () => {
    expect(storedAccessToken(stored(NOW / 1000 + 3600), NOW)).toBe('eyJ.token');
  });

  it('leaves out a token that has expired or is about to', () => {
    expect(storedAccessToken(stored(NOW / 1000 - 1), NOW)).toBeUndefined();
    expect(storedAccessToken(stored(NOW / 1000 + 10), NOW)).toBeUndefined();
  });

  it('is undefined with nothing stored, or something unreadable', () => {
    expect(storedAccessToken(storageWith(null), NOW)).toBeUndefined();
    expect(storedAccessToken(storageWith('not json'), NOW)).toBeUndefined();
    expect(storedAccessToken(storageWith('{"accessToken":{"accessToken":42}}'), NOW)).toBeUndefined();
  });
});
