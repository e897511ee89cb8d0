import { countries } from 'countries-list';
import { COUNTRIES, findCountry, isCountryCode } from './countries.js';

describe('COUNTRIES', () => {
  it('is the countries-list dataset (run scripts/generate-countries.mjs when this fails)', () => {
    const dataset = Object.entries(countries).filter(([code]) => code !== 'AC' && code !== 'TA');
    expect(COUNTRIES).toHaveLength(dataset.length);
    for (const [code, data] of dataset) {
      expect(findCountry(code)).toEqual({ code, name: data.name, dial_code: `+${data.phone[0] ?? ''}` });
    }
  });

  it('has about 240 entries with name, dial_code and a two-letter code, sorted by name', () => {
    expect(COUNTRIES.length).toBeGreaterThan(230);
    for (const country of COUNTRIES) expect(country.code).toMatch(/^[A-Z]{2}$/);
    const names = COUNTRIES.map((country) => country.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')));
  });

  it('finds a country case-insensitively, and knows which codes are valid', () => {
    expect(findCountry('gb')).toEqual({ code: 'GB', name: 'United Kingdom', dial_code: '+44' });
    expect(isCountryCode('FR')).toBe(true);
    expect(isCountryCode('XX')).toBe(false);
    expect(isCountryCode('fr')).toBe(false);
  });
});
