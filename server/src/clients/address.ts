/**
 * A client address as the account's activity may keep it: coarse (an IPv4 address without its last part,
 * `203.0.113.x`; an IPv6 address's first three groups, `2001:db8:85a3::/48`), never the full address; and whether
 * it is a public one (loopback, private, link-local and other special ranges name no country).
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Ranges that are nobody's public address (RFC 6890's special-purpose registries, the common part). */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b:1::', 48],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** An IPv4 address mapped into IPv6 (`::ffff:203.0.113.7`, as a dual-stack socket reports it) as plain IPv4. */
export function unmapped(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped?.[1] ?? address;
}

/** Whether the address is a public one (a country may be known for it). */
export function isPublicAddress(address: string | undefined): boolean {
  if (!address) return false;
  const plain = unmapped(address);
  if (isIPv4(plain)) return !NOT_PUBLIC.check(plain, 'ipv4');
  if (isIPv6(plain)) return !NOT_PUBLIC.check(plain, 'ipv6');
  return false;
}

/** The first `count` groups of an IPv6 address, each as written without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array.from({ length: missing }, () => '0'), ...right].map((group) =>
    group.replace(/^0+(?=.)/, ''),
  );
}

/**
 * The address with its last part hidden: `203.0.113.x` for IPv4 (and IPv4 mapped into IPv6), the /48 of an IPv6
 * address (`2001:db8:85a3::/48`); null for anything that is not an address.
 */
export function coarseAddress(address: string | undefined): string | null {
  if (!address) return null;
  const plain = unmapped(address);
  if (isIPv4(plain)) return `${plain.split('.').slice(0, 3).join('.')}.x`;
  if (isIPv6(plain)) {
    // A zone (fe80::1%eth0) or an embedded IPv4 tail never reaches the first three groups.
    const groups = ipv6Groups(plain.split('%')[0] ?? '');
    return `${groups.slice(0, 3).join(':')}::/48`;
  }
  return null;
}
