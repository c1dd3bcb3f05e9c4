// Proves the IP allowlist check: addresses and CIDR blocks of both families pass; a block with host bits set, a prefix out of range or written with a leading zero, a zone, an IPv4 address written inside IPv6, a repeat, too many entries and anything not an address fail with a message at the entry's field; in live a block wider than /16 (IPv4) or /32 (IPv6) fails too; and a new list widens an old one exactly when it lets in an address the old one did not (no list: everyone in the sandbox, nobody in live).
import { allowlistErrors, allowlistWidens, cidrProblem, MAX_ALLOWLIST_ENTRIES } from '../../src/domain/ip-allowlist';

it.each(['203.0.113.7', '203.0.113.0/24', '10.0.0.0/8', '0.0.0.0/0', '2001:db8::/32', '2001:db8::1', '::/0', '2001:db8:0:0:0:0:0:0/128'])('accepts %s in the sandbox', (entry) => {
  expect(cidrProblem(entry)).toBeNull();
});

it.each(['203.0.113.7', '203.0.113.0/24', '172.16.0.0/16', '2001:db8::/32', '2001:db8:1::/48', '2001:db8::1'])('accepts %s in live', (entry) => {
  expect(cidrProblem(entry, true)).toBeNull();
});

it.each([
  ['203.0.113.7/24', 'has bits set after the first 24: the block is written with its first address'],
  ['2001:db8::1/32', 'has bits set after the first 32: the block is written with its first address'],
  ['203.0.113.0/33', 'must have a prefix length from 0 to 32, without leading zeros'],
  ['2001:db8::/129', 'must have a prefix length from 0 to 128, without leading zeros'],
  ['203.0.113.0/', 'must have a prefix length from 0 to 32, without leading zeros'],
  ['10.0.0.0/08', 'must have a prefix length from 0 to 32, without leading zeros'],
  ['10.0.0.0/008', 'must have a prefix length from 0 to 32, without leading zeros'],
  ['2001:db8::/032', 'must have a prefix length from 0 to 128, without leading zeros'],
  ['010.0.0.0/8', 'must be an IP address or a CIDR block such as 203.0.113.0/24'],
  ['203.0.113.256', 'must be an IP address or a CIDR block such as 203.0.113.0/24'],
  ['example.com', 'must be an IP address or a CIDR block such as 203.0.113.0/24'],
  ['10.0.0.0/8/8', 'must be an IP address or a CIDR block such as 203.0.113.0/24'],
  ['fe80::1%eth0', 'must not name a zone (%...)'],
  ['::ffff:192.0.2.0/120', 'must write an IPv4 address as IPv4 (203.0.113.7), not inside IPv6 (::ffff:203.0.113.7)'],
  ['::FFFF:192.0.2.7', 'must write an IPv4 address as IPv4 (203.0.113.7), not inside IPv6 (::ffff:203.0.113.7)'],
])('refuses %s', (entry, message) => {
  expect(cidrProblem(entry)).toBe(message);
  expect(cidrProblem(entry, true)).toBe(message);
});

it.each([
  ['0.0.0.0/0', 'is wider than live accepts: a prefix of at least /16 for IPv4'],
  ['10.0.0.0/8', 'is wider than live accepts: a prefix of at least /16 for IPv4'],
  ['172.16.0.0/15', 'is wider than live accepts: a prefix of at least /16 for IPv4'],
  ['::/0', 'is wider than live accepts: a prefix of at least /32 for IPv6'],
  ['2000::/3', 'is wider than live accepts: a prefix of at least /32 for IPv6'],
  ['2001:db8::/31', 'is wider than live accepts: a prefix of at least /32 for IPv6'],
])('refuses %s in live only', (entry, message) => {
  expect(cidrProblem(entry)).toBeNull();
  expect(cidrProblem(entry, true)).toBe(message);
});

it('names the field of each bad entry, a repeat, and a list too long', () => {
  expect(allowlistErrors('ip_allowlist', ['203.0.113.0/24', 'nope', '203.0.113.0/24'])).toEqual([
    { field: 'ip_allowlist.1', message: 'must be an IP address or a CIDR block such as 203.0.113.0/24' },
    { field: 'ip_allowlist.2', message: 'repeats 203.0.113.0/24' },
  ]);
  const many = Array.from({ length: MAX_ALLOWLIST_ENTRIES + 1 }, (_, i) => `10.0.${i}.0/24`);
  expect(allowlistErrors('ip_allowlist', many)).toEqual([{ field: 'ip_allowlist', message: `must have at most ${MAX_ALLOWLIST_ENTRIES} entries` }]);
  expect(allowlistErrors('ip_allowlist', [])).toEqual([]);
  expect(allowlistErrors('ip_allowlist', ['203.0.113.0/24', '0.0.0.0/0'], true)).toEqual([{ field: 'ip_allowlist.1', message: 'is wider than live accepts: a prefix of at least /16 for IPv4' }]);
  expect(allowlistErrors('ip_allowlist', ['203.0.113.0/24', '0.0.0.0/0'], false)).toEqual([]);
});

describe('a widening', () => {
  it.each([
    // [current, next, live, widens]
    [['203.0.113.0/24'], ['203.0.113.0/25'], true, false],
    [['203.0.113.0/24'], ['203.0.113.7/32'], true, false],
    [['203.0.113.0/24'], ['203.0.113.7'], true, false],
    [['203.0.113.0/24', '198.51.100.0/24'], ['198.51.100.0/24'], true, false],
    [['203.0.113.0/24'], ['203.0.112.0/23'], true, true],
    [['203.0.113.0/24'], ['203.0.113.0/24', '198.51.100.7/32'], true, true],
    [['203.0.113.0/24'], ['2001:db8::/32'], true, true],
    [['2001:db8::/32'], ['2001:db8:1::/48'], true, false],
    [['203.0.113.7/32'], ['203.0.113.7'], false, false],
    [['203.0.113.0/24'], ['203.0.113.0/24'], false, false],
  ])('%j to %j in live=%s: %s', (current, next, live, widens) => {
    expect(allowlistWidens(current, next, live)).toBe(widens);
  });

  it('reads no list as everyone in the sandbox and nobody in live', () => {
    expect(allowlistWidens(null, ['203.0.113.0/24'], true)).toBe(true);
    expect(allowlistWidens(null, ['203.0.113.0/24'], false)).toBe(false);
    expect(allowlistWidens(['203.0.113.0/24'], null, true)).toBe(false);
    expect(allowlistWidens(['203.0.113.0/24'], null, false)).toBe(true);
    expect(allowlistWidens(null, null, true)).toBe(false);
    expect(allowlistWidens(null, null, false)).toBe(false);
  });
});
