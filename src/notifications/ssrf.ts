// SSRF guard for webhook URLs (docs/contract/webhooks.md): in live, a webhook may not reach loopback,
// private, link-local, unique-local, metadata or otherwise non-public addresses. Checked when the URL
// is set, again before each delivery (DNS can change), and once more inside the socket's own DNS
// lookup, so a name that re-resolves between the check and the connect (DNS rebinding) is refused too.
import dns from 'node:dns';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { LookupFunction } from 'node:net';

const V4_RANGES: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6_RANGES: [string, number, string][] = [
  ['::', 96, 'unspecified or IPv4-compatible'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard'],
  ['2001::', 32, 'Teredo'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

function blockList(ranges: [string, number, string][], family: 'ipv4' | 'ipv6'): [BlockList, string][] {
  return ranges.map(([net, prefix, label]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, family);
    return [list, label];
  });
}

const V4 = blockList(V4_RANGES, 'ipv4');
const V6 = blockList(V6_RANGES, 'ipv6');

/** The 8 16-bit groups of an IPv6 address (zone id dropped, a trailing dotted quad folded in). */
export function ipv6Groups(address: string): number[] {
  let s = address.split('%')[0];
  const quad = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (quad) {
    const [a, b, c, d] = quad.slice(2).map(Number);
    s = `${quad[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.includes('::') ? s.split('::') : [s, null];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === null ? [] : new Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

function v4FromGroups(hi: number, lo: number): string {
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
}

/** An IPv4 address carried inside an IPv6 one (mapped, NAT64 well-known prefix, 6to4), else null. */
function embeddedV4(g: number[]): string | null {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return v4FromGroups(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4FromGroups(g[6], g[7]);
  if (g[0] === 0x2002) return v4FromGroups(g[1], g[2]);
  return null;
}

/** Why an IP address may not receive webhooks in live, or null when it is a public address. */
export function blockedReason(address: string): string | null {
  if (isIPv4(address)) return V4.find(([list]) => list.check(address, 'ipv4'))?.[1] ?? null;
  if (!isIPv6(address)) return 'not an IP address';
  const groups = ipv6Groups(address);
  const inner = embeddedV4(groups);
  if (inner) return blockedReason(inner);
  if (groups.slice(0, 7).every((x) => x === 0) && groups[7] === 1) return 'loopback';
  return V6.find(([list]) => list.check(address.split('%')[0], 'ipv6'))?.[1] ?? null;
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKED';
}

const DNS_TIMEOUT_MS = 5000;

/** The host part of a URL as dns.lookup takes it (IPv6 literals lose their brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Resolves the host (every address) and throws BlockedAddressError if any is not public. */
export async function assertPublicHost(host: string): Promise<void> {
  const lookup = dns.promises.lookup(host, { all: true, verbatim: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`DNS lookup of ${host} timed out`)), DNS_TIMEOUT_MS);
  });
  try {
    const addresses = await Promise.race([lookup, timeout]);
    for (const { address } of addresses) {
      const reason = blockedReason(address);
      if (reason) throw new BlockedAddressError(`${host} resolves to a ${reason} address (${address})`);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** A socket lookup that refuses non-public addresses: closes the window between check and connect. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const bad = addresses.find((a) => blockedReason(a.address));
    if (bad) {
      return callback(new BlockedAddressError(`${hostname} resolves to a ${blockedReason(bad.address)} address (${bad.address})`), '', 0);
    }
    if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};
