import { countryName, deviceLine, deviceName, deviceTypeName, placeLine } from './clientDescription.js';

describe('client description', () => {
  it('names a device by its browser and system, or the half known', () => {
    expect(deviceName({ browser: 'Chrome', os: 'Windows' })).toBe('Chrome on Windows');
    expect(deviceName({ browser: 'Safari', os: null })).toBe('Safari');
    expect(deviceName({ browser: null, os: 'iOS' })).toBe('iOS');
    expect(deviceName({ browser: null, os: null })).toBe('Unknown device');
  });

  it('says desktop or mobile (tablet), nothing when unknown', () => {
    expect(deviceTypeName('desktop')).toBe('Desktop');
    expect(deviceTypeName('mobile')).toBe('Mobile');
    expect(deviceTypeName('tablet')).toBe('Mobile (tablet)');
    expect(deviceTypeName(null)).toBe('');
  });

  it('writes the device line of an event with what is known', () => {
    expect(deviceLine({ browser: 'Firefox', os: 'Linux' })).toBe('Firefox · Linux');
    expect(deviceLine({ browser: null, os: 'Linux' })).toBe('Linux');
    expect(deviceLine({ browser: null, os: null })).toBe('');
  });

  it("names the country from shared-auth's list, and keeps the coarse address as given", () => {
    expect(countryName('GB')).toBe('United Kingdom');
    expect(countryName('ZZ')).toBe('ZZ');
    expect(countryName(null)).toBe('');
    expect(placeLine({ country: 'DE', address: '203.0.113.x' })).toBe('Germany · 203.0.113.x');
    expect(placeLine({ country: null, address: '2001:db8:85a3::/48' })).toBe('2001:db8:85a3::/48');
    expect(placeLine({ country: null, address: null })).toBe('');
  });
});
