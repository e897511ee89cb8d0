/**
 * The country of a public address, from the offline database of `@ip-location-db/geo-whois-asn-country-mmdb`
 * (CC0; country by the address block's registration, good enough for "signed in from GB") read with mmdb-lib. The
 * file is read once, when the server starts; lookups are in memory. Loopback and private addresses name none.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Reader, type Response } from 'mmdb-lib';
import { isPublicAddress, unmapped } from './address.js';

const PACKAGE = '@ip-location-db/geo-whois-asn-country-mmdb';
/** The package's file of both IPv4 and IPv6 blocks. */
const FILE = 'geo-whois-asn-country.mmdb';

/** A record of this database (mmdb-lib's types name MaxMind's databases, not ip-location-db's). */
interface CountryRecord {
  country_code?: unknown;
}

/** Where the database file is: inside the installed package (it has no entry point, only its files). */
export function countryDatabasePath(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve(`${PACKAGE}/package.json`)), FILE);
}

let shared: CountryDatabase | undefined;

/** Countries of public addresses, from one .mmdb file read into memory. */
export class CountryDatabase {
  private constructor(private readonly reader: Reader<Response>) {}

  /** The package's database, read once per process (every app of the process shares it: it is read-only). */
  static shared(): CountryDatabase {
    shared ??= CountryDatabase.open();
    return shared;
  }

  /** Reads the database file (the package's unless told otherwise); throws when it is missing or not an mmdb. */
  static open(file: string = countryDatabasePath()): CountryDatabase {
    return new CountryDatabase(new Reader<Response>(readFileSync(file)));
  }

  /** When the database was built (its metadata), for the start-up log. */
  get builtAt(): Date {
    return this.reader.metadata.buildEpoch;
  }

  /** The ISO 3166-1 alpha-2 code of the address's country, or null (unknown, private, loopback, not an address). */
  countryOf(address: string | undefined): string | null {
    if (!address || !isPublicAddress(address)) return null;
    try {
      const code = (this.reader.get(unmapped(address)) as CountryRecord | null)?.country_code;
      return typeof code === 'string' && /^[A-Z]{2}$/.test(code) ? code : null;
    } catch {
      return null;
    }
  }
}
