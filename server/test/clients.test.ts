/**
 * Client description (src/clients/): the browser, system and device of a User-Agent (bowser, only names it
 * knows), the country of a public address (the offline ip-location-db database, read once), and the coarse
 * address the account's activity keeps instead of the full one.
 */
import { describe, expect, it } from 'vitest';
import { coarseAddress, isPublicAddress } from '../src/clients/address.js';
import { CountryDatabase, countryDatabasePath } from '../src/clients/country.js';
import { ClientDescriber } from '../src/clients/describe.js';
import { describeUserAgent } from '../src/clients/user-agent.js';

const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const CHROME_IPAD =
  'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1';

describe('the User-Agent', () => {
  it('names the browser, the system and the kind of device', () => {
    expect(describeUserAgent(FIREFOX_LINUX)).toEqual({
      browser: 'Firefox',
      os: 'Linux',
      deviceType: 'desktop',
    });
    expect(describeUserAgent(SAFARI_IPHONE)).toEqual({ browser: 'Safari', os: 'iOS', deviceType: 'mobile' });
    expect(describeUserAgent(CHROME_IPAD)).toMatchObject({ browser: 'Chrome', deviceType: 'tablet' });
  });

  it("keeps no stranger's text: unknown names, an oversized header or none give nulls", () => {
    expect(describeUserAgent('Visit evil.example to unlock/1.0')).toEqual({
      browser: null,
      os: null,
      deviceType: null,
    });
    expect(describeUserAgent(`${FIREFOX_LINUX}${' '.repeat(2000)}`)).toEqual({
      browser: null,
      os: null,
      deviceType: null,
    });
    expect(describeUserAgent(undefined)).toEqual({ browser: null, os: null, deviceType: null });
  });
});

describe('the address', () => {
  it('is kept coarse: an IPv4 address without its last part, an IPv6 address as its /48', () => {
    expect(coarseAddress('203.0.113.77')).toBe('203.0.113.x');
    expect(coarseAddress('::ffff:81.2.69.160')).toBe('81.2.69.x');
    expect(coarseAddress('2001:0db8:85a3:0000:0000:8a2e:0370:7334')).toBe('2001:db8:85a3::/48');
    expect(coarseAddress('2a00:1450::200e')).toBe('2a00:1450:0::/48');
    expect(coarseAddress('::1')).toBe('0:0:0::/48');
    expect(coarseAddress('fe80::1%eth0')).toBe('fe80:0:0::/48');
    expect(coarseAddress('not an address')).toBeNull();
    expect(coarseAddress(undefined)).toBeNull();
  });

  it('is public unless loopback, private, link-local or another special range', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.1.1',
      '100.64.0.1',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ['::1', 'fd00::1', 'fe80::1', '::ffff:192.168.0.1', 'garbage', undefined]) {
      expect(isPublicAddress(address), String(address)).toBe(false);
    }
    for (const address of ['8.8.8.8', '81.2.69.160', '2001:4860:4860::8888', '::ffff:8.8.8.8']) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });
});

describe('the country', () => {
  const countries = CountryDatabase.shared();

  it("is read from the package's database file, once per process", () => {
    expect(countryDatabasePath()).toMatch(/geo-whois-asn-country\.mmdb$/);
    expect(CountryDatabase.shared()).toBe(countries);
    expect(countries.builtAt.getTime()).toBeGreaterThan(Date.UTC(2020, 0, 1));
  });

  it('of a public address, IPv4 or IPv6; none for a private or loopback one (the database would name one)', () => {
    expect(countries.countryOf('81.2.69.160')).toBe('GB');
    expect(countries.countryOf('8.8.8.8')).toBe('US');
    expect(countries.countryOf('2001:4860:4860::8888')).toBe('US');
    expect(countries.countryOf('::ffff:81.2.69.160')).toBe('GB');
    expect(countries.countryOf('192.168.1.1')).toBeNull();
    expect(countries.countryOf('127.0.0.1')).toBeNull();
    expect(countries.countryOf('::1')).toBeNull();
    expect(countries.countryOf(undefined)).toBeNull();
  });

  it('a missing database file is refused when opened', () => {
    expect(() => CountryDatabase.open('/nonexistent/geo.mmdb')).toThrow();
  });
});

describe('a client described', () => {
  it('has its browser, system, device, country and coarse address, never the full address', () => {
    const described = new ClientDescriber(CountryDatabase.shared()).describe({
      userAgent: FIREFOX_LINUX,
      ip: '81.2.69.160',
    });
    expect(described).toEqual({
      browser: 'Firefox',
      os: 'Linux',
      deviceType: 'desktop',
      country: 'GB',
      address: '81.2.69.x',
    });
    expect(JSON.stringify(described)).not.toContain('81.2.69.160');
    expect(new ClientDescriber(undefined).describe({ ip: '81.2.69.160' }).country).toBeNull();
  });
});
