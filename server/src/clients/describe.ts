/**
 * A client as the account's activity records it: its browser, system and device (the User-Agent), its country and
 * its coarse address (the request's address, never kept in full).
 */
import type { DeviceType } from 'shared-auth/contract';
import { coarseAddress } from './address.js';
import type { CountryDatabase } from './country.js';
import { describeUserAgent } from './user-agent.js';

/** What a request tells of where it came from: its User-Agent header and its address (Fastify's `request.ip`). */
export interface ClientOrigin {
  userAgent?: string | undefined;
  ip?: string | undefined;
}

export interface ClientDescription {
  browser: string | null;
  os: string | null;
  deviceType: DeviceType | null;
  /** ISO 3166-1 alpha-2, or null. */
  country: string | null;
  /** `203.0.113.x`, `2001:db8:85a3::/48`, or null. */
  address: string | null;
}

/** Describes clients with one country database (read once at start). */
export class ClientDescriber {
  constructor(private readonly countries: CountryDatabase | undefined) {}

  describe(origin: ClientOrigin): ClientDescription {
    return {
      ...describeUserAgent(origin.userAgent),
      country: this.countries?.countryOf(origin.ip) ?? null,
      address: coarseAddress(origin.ip),
    };
  }
}
