/**
 * PASSKEY_RP_ID (config/passkey-rp.ts): PUBLIC_URL's host by default, a registrable parent on a label boundary when
 * set; anything a browser would refuse stops the start-up naming the setting.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/index.js';
import { parseEnv } from '../src/config/env.js';

const withRp = (PUBLIC_URL: string, PASSKEY_RP_ID?: string) =>
  parseEnv({ PUBLIC_URL, ...(PASSKEY_RP_ID === undefined ? {} : { PASSKEY_RP_ID }) });

describe('PASSKEY_RP_ID', () => {
  it("defaults to PUBLIC_URL's host, with its origin as the expected origin", () => {
    expect(withRp('http://localhost:3000').passkeyRp).toEqual({
      id: 'localhost',
      origin: 'http://localhost:3000',
    });
    expect(withRp('https://account.example.com').passkeyRp).toEqual({
      id: 'account.example.com',
      origin: 'https://account.example.com',
    });
    // Empty counts as unset.
    expect(withRp('https://account.example.com', '').passkeyRp.id).toBe('account.example.com');
  });

  it('accepts the host itself or a registrable parent on a label boundary (any case)', () => {
    expect(withRp('https://account.example.com', 'example.com').passkeyRp).toEqual({
      id: 'example.com',
      origin: 'https://account.example.com',
    });
    expect(withRp('https://a.b.example.co.uk', 'Example.CO.uk').passkeyRp.id).toBe('example.co.uk');
    expect(withRp('https://account.example.com', 'account.example.com').passkeyRp.id).toBe(
      'account.example.com',
    );
    expect(withRp('http://app.localhost:3000', 'localhost').passkeyRp.id).toBe('localhost');
  });

  it.each([
    ['another domain', 'https://account.example.com', 'example.org'],
    ['a suffix that is not on a label boundary', 'https://account.myexample.com', 'example.com'],
    ['a child of the host', 'https://example.com', 'account.example.com'],
    ['a top-level domain', 'https://account.example.com', 'com'],
    ['a public suffix', 'https://shop.example.co.uk', 'co.uk'],
    ['a scheme', 'https://account.example.com', 'https://example.com'],
    ['a port', 'https://account.example.com', 'example.com:443'],
    ['a path', 'https://account.example.com', 'example.com/'],
    ['a parent of an IP address', 'http://10.0.0.5:3000', '0.0.5'],
    ['an IP for a named host', 'https://account.example.com', '10.0.0.5'],
    ['empty labels', 'https://account.example.com', '.example.com'],
  ])('refuses %s at start-up, naming PASSKEY_RP_ID', (_label, publicUrl, setting) => {
    expect(() => withRp(publicUrl, setting)).toThrow(ConfigError);
    expect(() => withRp(publicUrl, setting)).toThrow(/PASSKEY_RP_ID=/);
  });
});
