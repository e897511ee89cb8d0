// Generated from the countries-list dataset by scripts/generate-countries.mjs: [code, name, dial code].
import rows from './countries.data.json' with { type: 'json' };

export interface Country {
  /** ISO 3166-1 alpha-2 code, upper case. */
  code: string;
  name: string;
  /** International dialling prefix, e.g. "+44". */
  dial_code: string;
}

export const COUNTRIES: readonly Country[] = (rows as [string, string, string][]).map(
  ([code, name, dial_code]) => ({
    code,
    name,
    dial_code,
  }),
);

const BY_CODE = new Map(COUNTRIES.map((country) => [country.code, country]));

export function findCountry(code: string | undefined): Country | undefined {
  return code === undefined ? undefined : BY_CODE.get(code.toUpperCase());
}

export function isCountryCode(code: string): boolean {
  return BY_CODE.has(code);
}
