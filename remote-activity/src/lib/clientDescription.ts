/**
 * How the page names a browser or device and where it was, from what the server parsed once (browser, OS, device
 * type, country code, coarse address): the Devices list and the Activity list both show them, the same way.
 */
import { findCountry, type DeviceType } from 'shared-auth';

export interface ClientFacts {
  browser: string | null;
  os: string | null;
  deviceType: DeviceType | null;
  country: string | null;
  address: string | null;
}

/** "Chrome on Windows", or the half that is known, or "Unknown device": the name of a session's button. */
export function deviceName({ browser, os }: Pick<ClientFacts, 'browser' | 'os'>): string {
  if (browser && os) return `${browser} on ${os}`;
  return browser || os || 'Unknown device';
}

const DEVICE_TYPE_NAMES: Record<DeviceType, string> = {
  desktop: 'Desktop',
  mobile: 'Mobile',
  tablet: 'Mobile (tablet)',
};

/** "Desktop", "Mobile" or "Mobile (tablet)"; '' when the browser did not say. */
export function deviceTypeName(deviceType: DeviceType | null): string {
  return deviceType ? DEVICE_TYPE_NAMES[deviceType] : '';
}

/** "Chrome · Windows": the device line of an event; '' when neither is known. */
export function deviceLine({ browser, os }: Pick<ClientFacts, 'browser' | 'os'>): string {
  return [browser, os].filter(Boolean).join(' · ');
}

/** The country's name ("United Kingdom"), the code itself when the list lacks it, '' when unknown. */
export function countryName(code: string | null): string {
  if (!code) return '';
  return findCountry(code)?.name ?? code;
}

/** "United Kingdom · 203.0.113.x": the country and the coarse address as the server gave it; '' when neither. */
export function placeLine({ country, address }: Pick<ClientFacts, 'country' | 'address'>): string {
  return [countryName(country), address].filter(Boolean).join(' · ');
}
