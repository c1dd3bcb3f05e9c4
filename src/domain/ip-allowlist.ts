// An API token's IP allowlist (docs/contract/disbursements-dashboard.md): the addresses its disbursements
// may come from, as CIDR blocks. Pure: checks what a person typed and says plainly what is wrong, before
// PostgreSQL's `cidr` type would refuse it with a message about the column.
import { isIPv4, isIPv6 } from 'node:net';
import type { FieldError } from '../errors';

/** More blocks than anyone needs for the servers that call us; bounds the check per disbursement. */
export const MAX_ALLOWLIST_ENTRIES = 50;

/** An IPv6 address as its 8 groups of 16 bits (`::` expanded, an IPv4 tail read as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1].split('.').map(Number);
    text = text.slice(0, -v4[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = part(head);
  const t = part(tail);
  return tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/** The address as bits, most significant first. */
function bitsOf(address: string): number[] {
  if (isIPv4(address)) return address.split('.').flatMap((o) => [...Number(o).toString(2).padStart(8, '0')].map(Number));
  return ipv6Groups(address).flatMap((g) => [...g.toString(2).padStart(16, '0')].map(Number));
}

/** What is wrong with one entry (an address, or an address/prefix whose host bits are zero), or null. */
export function cidrProblem(entry: string): string | null {
  const [address, prefixText, extra] = entry.split('/');
  if (extra !== undefined) return 'must be an IP address or a CIDR block such as 203.0.113.0/24';
  const v4 = isIPv4(address);
  if (!v4 && !isIPv6(address)) return 'must be an IP address or a CIDR block such as 203.0.113.0/24';
  if (address.includes('%')) return 'must not name a zone (%...)';
  if (prefixText === undefined) return null;
  const max = v4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) return `must have a prefix length from 0 to ${max}`;
  const prefix = Number(prefixText);
  if (bitsOf(address).slice(prefix).some((b) => b === 1)) {
    return `has bits set after the first ${prefix}: the block is written with its first address`;
  }
  return null;
}

/** Field errors for an allowlist (`field` names the list); empty when every entry is good. */
export function allowlistErrors(field: string, entries: string[]): FieldError[] {
  const errors: FieldError[] = [];
  if (entries.length > MAX_ALLOWLIST_ENTRIES) errors.push({ field, message: `must have at most ${MAX_ALLOWLIST_ENTRIES} entries` });
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    const problem = cidrProblem(e);
    if (problem) errors.push({ field: `${field}.${i}`, message: problem });
    else if (seen.has(e)) errors.push({ field: `${field}.${i}`, message: `repeats ${e}` });
    seen.add(e);
  });
  return errors;
}
