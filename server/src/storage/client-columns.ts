/**
 * The columns a row keeps of the client it came from (activity events, the embedded sessions, Okta mode's
 * sign-ins): browser, system, device type, country and the coarse address, read back the same way by each store.
 */
import type { DeviceType } from 'shared-auth/contract';

/** The client's columns as the databases return them. */
export interface ClientColumns {
  browser: string | null;
  os: string | null;
  device_type: DeviceType | null;
  country: string | null;
  address: string | null;
}

/** The client's facts as the stores' records carry them. */
export interface ClientFacts {
  browser: string | null;
  os: string | null;
  deviceType: DeviceType | null;
  country: string | null;
  address: string | null;
}

export function clientFactsOf(row: ClientColumns): ClientFacts {
  return {
    browser: row.browser,
    os: row.os,
    deviceType: row.device_type,
    country: row.country,
    address: row.address,
  };
}
