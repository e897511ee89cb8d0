import { randomBytes } from 'node:crypto';
import type { SignInKeys } from './secrets.js';

/**
 * The device cookie (OWASP "device cookies"): a browser that signed in successfully to an account gets a signed
 * cookie naming a random device id and the account. Its sign-in attempts for that account count under their own
 * throttle key (device + account), so strangers' failures that lock the email do not lock it out.
 */
export const DEVICE_COOKIE = 'portal_device';
/** Long-lived: the protection is for the browsers the holder uses. */
export const DEVICE_COOKIE_MAX_AGE_S = 180 * 24 * 60 * 60;
/** Accounts one browser is trusted for (a shared computer), most recent first. */
export const MAX_DEVICE_ACCOUNTS = 5;

export interface Device {
  id: string;
  accounts: string[];
}

const DEVICE_ID = /^[A-Za-z0-9_-]{22}$/;
const ACCOUNT_ID = /^[A-Za-z0-9_-]{1,64}$/;

function payloadOf(device: Device): string {
  return `${device.id}.${device.accounts.join('~')}`;
}

/** The cookie's value: `{device id}.{account}~{account}.{HMAC}`. */
function valueOf(device: Device, keys: SignInKeys): string {
  const payload = payloadOf(device);
  return `${payload}.${keys.sign('device-cookie', payload)}`;
}

function parse(value: string, keys: SignInKeys): Device | undefined {
  const [id, accounts, mac, ...rest] = value.split('.');
  if (rest.length > 0 || !id || !accounts || !mac || !DEVICE_ID.test(id)) return undefined;
  const device = { id, accounts: accounts.split('~') };
  if (device.accounts.length > MAX_DEVICE_ACCOUNTS || !device.accounts.every((a) => ACCOUNT_ID.test(a))) {
    return undefined;
  }
  return keys.verify('device-cookie', payloadOf(device), mac) ? device : undefined;
}

/** The browser's device, from its Cookie header; undefined when it has none or it is not ours (unsigned, altered). */
export function readDevice(cookieHeader: string | undefined, keys: SignInKeys): Device | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 0 || part.slice(0, at).trim() !== DEVICE_COOKIE) continue;
    const device = parse(part.slice(at + 1).trim(), keys);
    if (device) return device;
  }
  return undefined;
}

/** The device after a successful sign-in to `accountId`: a new one, or the same id with the account first. */
export function trustAccount(device: Device | undefined, accountId: string): Device {
  const others = (device?.accounts ?? []).filter((account) => account !== accountId);
  return {
    id: device?.id ?? randomBytes(16).toString('base64url'),
    accounts: ACCOUNT_ID.test(accountId) ? [accountId, ...others].slice(0, MAX_DEVICE_ACCOUNTS) : others,
  };
}

export interface DeviceCookieOptions {
  /** The provider's mount path: the cookie goes to the sign-in pages only. */
  path: string;
  secure: boolean;
}

/** The Set-Cookie header value. */
export function deviceCookie(
  device: Device,
  keys: SignInKeys,
  { path, secure }: DeviceCookieOptions,
): string {
  return [
    `${DEVICE_COOKIE}=${valueOf(device, keys)}`,
    `Path=${path}`,
    `Max-Age=${DEVICE_COOKIE_MAX_AGE_S}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}
