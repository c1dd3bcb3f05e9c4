// Proves the IP allowlist check: addresses and CIDR blocks of both families pass; a block with host bits set, a prefix out of range, a zone, a repeat, too many entries and anything not an address fail with a message at the entry's field.
import { allowlistErrors, cidrProblem, MAX_ALLOWLIST_ENTRIES } from '../../src/domain/ip-allowlist';

it.each(['203.0.113.7', '203.0.113.0/24', '10.0.0.0/8', '0.0.0.0/0', '2001:db8::/32', '2001:db8::1', '::ffff:192.0.2.0/120', '2001:db8:0:0:0:0:0:0/128'])('accepts %s', (entry) => {
  expect(cidrProblem(entry)).toBeNull();
});

it.each([
  ['203.0.113.7/24', 'has bits set after the first 24: the block is written with its first address'],
  ['2001:db8::1/32', 'has bits set after the first 32: the block is written with its first address'],
  ['203.0.113.0/33', 'must have a prefix length from 0 to 32'],
  ['2001:db8::/129', 'must have a prefix length from 0 to 128'],
  ['203.0.113.0/', 'must have a prefix length from 0 to 32'],
  ['203.0.113.256', 'must be an IP address or a CIDR block such as 203.0.113.0/24'],
  ['example.com', 'must be an IP address or a CIDR block such as 203.0.113.0/24'],
  ['10.0.0.0/8/8', 'must be an IP address or a CIDR block such as 203.0.113.0/24'],
  ['fe80::1%eth0', 'must not name a zone (%...)'],
])('refuses %s', (entry, message) => {
  expect(cidrProblem(entry)).toBe(message);
});

it('names the field of each bad entry, a repeat, and a list too long', () => {
  expect(allowlistErrors('ip_allowlist', ['203.0.113.0/24', 'nope', '203.0.113.0/24'])).toEqual([
    { field: 'ip_allowlist.1', message: 'must be an IP address or a CIDR block such as 203.0.113.0/24' },
    { field: 'ip_allowlist.2', message: 'repeats 203.0.113.0/24' },
  ]);
  const many = Array.from({ length: MAX_ALLOWLIST_ENTRIES + 1 }, (_, i) => `10.0.${i}.0/24`);
  expect(allowlistErrors('ip_allowlist', many)).toEqual([{ field: 'ip_allowlist', message: `must have at most ${MAX_ALLOWLIST_ENTRIES} entries` }]);
  expect(allowlistErrors('ip_allowlist', [])).toEqual([]);
});
