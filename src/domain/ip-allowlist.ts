// An API token's IP allowlist (docs/contract/disbursements-dashboard.md): the addresses its disbursements
// may come from, as CIDR blocks. Pure: checks what a person typed and says plainly what is wrong, before
// PostgreSQL's `cidr` type would refuse it with a message about the column; in live, refuses a block so
// wide that the list would no longer say where the calls come from; and says whether a new list lets in
// an address the old one did not (a widening waits for its notice: docs/contract/disbursements.md).
import { isIPv4, isIPv6 } from 'node:net';
import type { FieldError } from '../errors';

/** More blocks than anyone needs for the servers that call us; bounds the check per disbursement. */
export const MAX_ALLOWLIST_ENTRIES = 50;
/**
 * In live, the widest block accepted: a /16 of IPv4 (65,536 addresses, a large provider's region) and a
 * /32 of IPv6 (one provider's allocation). Anything wider (`0.0.0.0/0`, `::/0`, `10.0.0.0/8`) would meet
 * "disbursements need an allowlist" with a list that allows almost everyone.
 */
export const LIVE_MIN_PREFIX = { v4: 16, v6: 32 } as const;

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

/** An IPv4 address written inside IPv6 (`::ffff:a.b.c.d`): a dual-stack client is read as its IPv4 address, so such an entry would match nobody. */
const MAPPED_V4 = /^::ffff:/i;

/**
 * What is wrong with one entry (an address, or an address/prefix whose host bits are zero), or null. In
 * live (`live`), a block wider than LIVE_MIN_PREFIX is refused too. A prefix is written without leading
 * zeros (`/08` is not `/8` to every reader).
 */
export function cidrProblem(entry: string, live = false): string | null {
  const [address, prefixText, extra] = entry.split('/');
  if (extra !== undefined) return 'must be an IP address or a CIDR block such as 203.0.113.0/24';
  const v4 = isIPv4(address);
  if (!v4 && !isIPv6(address)) return 'must be an IP address or a CIDR block such as 203.0.113.0/24';
  if (address.includes('%')) return 'must not name a zone (%...)';
  if (MAPPED_V4.test(address)) return 'must write an IPv4 address as IPv4 (203.0.113.7), not inside IPv6 (::ffff:203.0.113.7)';
  if (prefixText === undefined) return null;
  const max = v4 ? 32 : 128;
  if (!/^(0|[1-9]\d{0,2})$/.test(prefixText) || Number(prefixText) > max) return `must have a prefix length from 0 to ${max}, without leading zeros`;
  const prefix = Number(prefixText);
  if (bitsOf(address).slice(prefix).some((b) => b === 1)) {
    return `has bits set after the first ${prefix}: the block is written with its first address`;
  }
  const least = v4 ? LIVE_MIN_PREFIX.v4 : LIVE_MIN_PREFIX.v6;
  if (live && prefix < least) return `is wider than live accepts: a prefix of at least /${least} for ${v4 ? 'IPv4' : 'IPv6'}`;
  return null;
}

/** Field errors for an allowlist (`field` names the list); empty when every entry is good. `live`: the deployment's width bound applies. */
export function allowlistErrors(field: string, entries: string[], live = false): FieldError[] {
  const errors: FieldError[] = [];
  if (entries.length > MAX_ALLOWLIST_ENTRIES) errors.push({ field, message: `must have at most ${MAX_ALLOWLIST_ENTRIES} entries` });
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    const problem = cidrProblem(e, live);
    if (problem) errors.push({ field: `${field}.${i}`, message: problem });
    else if (seen.has(e)) errors.push({ field: `${field}.${i}`, message: `repeats ${e}` });
    seen.add(e);
  });
  return errors;
}

/** A good entry as a block: its family, its bits and its prefix (a lone address is a block of one). */
function blockOf(entry: string): { v4: boolean; bits: number[]; prefix: number } {
  const [address, prefixText] = entry.split('/');
  const v4 = isIPv4(address);
  return { v4, bits: bitsOf(address), prefix: prefixText === undefined ? (v4 ? 32 : 128) : Number(prefixText) };
}

/** Whether block `outer` holds every address of block `inner`. */
function holds(outer: string, inner: string): boolean {
  const o = blockOf(outer);
  const i = blockOf(inner);
  return o.v4 === i.v4 && o.prefix <= i.prefix && o.bits.slice(0, o.prefix).every((b, n) => b === i.bits[n]);
}

/**
 * Whether the list `next` lets in an address that `current` does not (good entries only, as checked by
 * allowlistErrors). No list (null) lets in every address in the sandbox and none in live, where a token
 * without a list cannot disburse.
 */
export function allowlistWidens(current: string[] | null, next: string[] | null, live: boolean): boolean {
  if (current === null) return live && next !== null;
  if (next === null) return !live;
  return next.some((n) => !current.some((c) => holds(c, n)));
}
