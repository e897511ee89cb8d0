import { countries } from 'countries-list';

export interface Country {
  /** ISO 3166-1 alpha-2 code, upper case. */
  code: string;
  name: string;
  /** International dialling prefix, e.g. "+44". */
  dial_code: string;
}

// Ascension and Tristan da Cunha have no flag of their own in the flag set we serve, and are part of
// Saint Helena, which the list keeps.
const WITHOUT_OWN_FLAG = new Set(['AC', 'TA']);

export const COUNTRIES: readonly Country[] = Object.entries(countries)
  .filter(([code]) => !WITHOUT_OWN_FLAG.has(code))
  .map(([code, data]) => ({ code, name: data.name, dial_code: `+${data.phone[0] ?? ''}` }))
  .sort((a, b) => a.name.localeCompare(b.name, 'en'));

const BY_CODE = new Map(COUNTRIES.map((country) => [country.code, country]));

export function findCountry(code: string | undefined): Country | undefined {
  return code === undefined ? undefined : BY_CODE.get(code.toUpperCase());
}

export function isCountryCode(code: string): boolean {
  return BY_CODE.has(code);
}
