/**
 * The passkeys' relying party (PASSKEY_RP_ID): the origin browsers must name in every ceremony (PUBLIC_URL's) and
 * the RP ID every passkey is bound to, PUBLIC_URL's host by default. A parent domain may be set so a provider and a
 * portal on sibling subdomains share passkeys; anything a browser would refuse stops the start-up here instead of
 * failing every ceremony later.
 */
import { isIP } from 'node:net';

/**
 * Multi-label public suffixes that are commonly mistaken for a registrable domain. Single labels (com, org…) are
 * refused by rule; the browser checks the full Public Suffix List itself at each ceremony.
 */
const COMMON_PUBLIC_SUFFIXES = new Set([
  'co.uk',
  'org.uk',
  'ac.uk',
  'gov.uk',
  'com.au',
  'net.au',
  'org.au',
  'co.nz',
  'co.jp',
  'ne.jp',
  'co.in',
  'com.br',
  'com.cn',
  'co.za',
  'com.mx',
  'co.kr',
  'com.tr',
  'github.io',
  'gitlab.io',
  'herokuapp.com',
  'vercel.app',
  'netlify.app',
  'pages.dev',
  'workers.dev',
  'azurewebsites.net',
  'cloudfront.net',
  'appspot.com',
  'web.app',
  'firebaseapp.com',
  'onrender.com',
  'fly.dev',
]);

/** What the passkey ceremonies check against. */
export interface PasskeyRelyingParty {
  /** The RP ID: PUBLIC_URL's host, or the registrable parent set in PASSKEY_RP_ID. */
  id: string;
  /** The origin every ceremony must come from: PUBLIC_URL's. */
  origin: string;
}

/**
 * The relying party of PUBLIC_URL and PASSKEY_RP_ID (undefined: the host). Returns the reason as a string when
 * the setting cannot work, for the caller to refuse naming PASSKEY_RP_ID.
 */
export function passkeyRelyingPartyOf(
  publicUrl: string,
  setting: string | undefined,
): PasskeyRelyingParty | string {
  const url = new URL(publicUrl);
  // URL keeps an IPv6 host in brackets; an RP ID never has them.
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const origin = url.origin;
  if (setting === undefined) return { id: host, origin };
  const value = setting.trim().toLowerCase();
  if (/[/:@?#\s]/.test(value)) {
    return 'must be a domain name only (no scheme, port or path), e.g. example.com';
  }
  if (value === host) return { id: host, origin };
  if (isIP(host) !== 0 || isIP(value) !== 0) {
    return `must be ${host} itself: an IP address has no parent domain`;
  }
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(value) || value.split('.').some((label) => label === '')) {
    return 'must be a domain name (letters, digits, hyphens and dots), e.g. example.com';
  }
  if (!host.endsWith(`.${value}`)) {
    return `must be PUBLIC_URL's host (${host}) or a parent domain of it, e.g. ${host.split('.').slice(1).join('.') || host}`;
  }
  if (!value.includes('.') && value !== 'localhost') {
    return `must be a registrable domain, not the top-level domain ${value}`;
  }
  if (COMMON_PUBLIC_SUFFIXES.has(value)) {
    return `must be a registrable domain, not the public suffix ${value}`;
  }
  return { id: value, origin };
}

/**
 * Okta mode's OKTA_PASSKEY_RP_ID: the RP ID of the org's passkeys, which must cover PUBLIC_URL's host (the host or
 * a registrable parent of it) for the ceremony to run on the portal's pages, the browser refusing any other. Returns
 * the RP ID, undefined when unset (Okta's hosted enrolment then), or the reason naming both settings as a string.
 */
export function oktaPasskeyRpIdOf(
  publicUrl: string,
  setting: string | undefined,
): string | undefined | Error {
  if (setting === undefined) return undefined;
  const rp = passkeyRelyingPartyOf(publicUrl, setting);
  if (typeof rp !== 'string') return rp.id;
  return new Error(
    `OKTA_PASSKEY_RP_ID (${JSON.stringify(setting)}) ${rp} (PUBLIC_URL is ${publicUrl}): set it to the RP ID of the org's Passkey (FIDO2 WebAuthn) authenticator when that covers the portal's host, or unset it to send the holder to Okta's hosted enrolment`,
  );
}
