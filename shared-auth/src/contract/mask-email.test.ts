import { maskEmail } from './mask-email.js';

describe('maskEmail', () => {
  it('keeps the first and last characters of the local part, four dots between, then the domain', () => {
    expect(maskEmail('alice@example.com')).toBe('a....e@example.com');
    expect(maskEmail('e2e-1a2b3c4d@example.org')).toBe('e....d@example.org');
  });

  it('repeats the only character of a one-character local part', () => {
    expect(maskEmail('x@example.com')).toBe('x....x@example.com');
  });

  it('uses the last @ to find the domain', () => {
    expect(maskEmail('"a@b"@example.com')).toBe('"...."@example.com');
  });
});
