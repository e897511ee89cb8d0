/**
 * The key a per-address limit counts a client under. An IPv4 client is its address; an IPv6 client is its /64,
 * the smallest block an ISP or a cloud host hands out, so one host rotating through the 2^64 addresses of its own
 * network is still one client. An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, a dual-stack socket) is the IPv4.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** The hextets of an IPv6 address (8 of them, lower case, no leading zeros), or undefined when it is not one. */
function hextetsOf(address: string): string[] | undefined {
  // A zone (`fe80::1%eth0`) names the interface, not the host.
  const bare = address.split('%')[0] ?? '';
  if (!isIPv6(bare)) return undefined;
  const [head = '', tail] = bare.toLowerCase().split('::');
  const part = (text: string) => (text === '' ? [] : text.split(':'));
  let left = part(head);
  let right = tail === undefined ? [] : part(tail);
  // An embedded IPv4 (`::ffff:192.0.2.1`, `64:ff9b::192.0.2.1`) is two hextets.
  const toHextets = (groups: string[]) =>
    groups.flatMap((group) => {
      if (!isIPv4(group)) return [group];
      const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  left = toHextets(left);
  right = toHextets(right);
  const missing = 8 - left.length - right.length;
  const all = tail === undefined ? left : [...left, ...Array<string>(missing).fill('0'), ...right];
  return all.map((hextet) => Number.parseInt(hextet, 16).toString(16));
}

/** The client a per-address limit counts this address as: the IPv4 address, or the IPv6 /64 (`2001:db8:0:1::/64`). */
export function clientNetworkOf(address: string): string {
  const hextets = hextetsOf(address);
  if (!hextets || hextets.length !== 8) return address;
  const mapped = hextets.slice(0, 5).every((hextet) => hextet === '0') && hextets[5] === 'ffff';
  if (mapped) {
    const [high = 0, low = 0] = hextets.slice(6).map((hextet) => Number.parseInt(hextet, 16));
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${hextets.slice(0, 4).join(':')}::/64`;
}
