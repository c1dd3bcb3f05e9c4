// Proves a webhook host whose name resolves to a public and a private address together is refused, whichever comes first, both when checked and inside the socket's own lookup.
import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { assertPublicHost, BlockedAddressError, guardedLookup } from '../../src/notifications/ssrf';

const PUBLIC = { address: '93.184.215.14', family: 4 };
const PRIVATE = { address: '10.0.0.5', family: 4 };
const PRIVATE_V6 = { address: 'fd12:3456:789a::1', family: 6 };

let answer: LookupAddress[] = [];

beforeEach(() => {
  jest.spyOn(dns.promises, 'lookup').mockImplementation((async () => answer) as unknown as typeof dns.promises.lookup);
  jest.spyOn(dns, 'lookup').mockImplementation(((_host: string, _o: unknown, cb: (e: null, a: LookupAddress[]) => void) => cb(null, answer)) as unknown as typeof dns.lookup);
});

afterEach(() => jest.restoreAllMocks());

function socketLookup(all: boolean): Promise<{ err: Error | null; address: unknown }> {
  return new Promise((resolve) => {
    guardedLookup('hooks.shop.example', { all }, (err: Error | null, address: unknown) => resolve({ err, address }));
  });
}

describe.each([
  ['public first', [PUBLIC, PRIVATE]],
  ['private first', [PRIVATE, PUBLIC]],
  ['public then unique-local IPv6', [PUBLIC, PRIVATE_V6]],
])('a name resolving to both (%s)', (_order, addresses) => {
  beforeEach(() => {
    answer = addresses;
  });

  it('is refused when the URL is checked', async () => {
    await expect(assertPublicHost('hooks.shop.example')).rejects.toBeInstanceOf(BlockedAddressError);
  });

  it('is refused inside the socket lookup, for one address or all', async () => {
    for (const all of [false, true]) {
      const r = await socketLookup(all);
      expect(r.err).toBeInstanceOf(BlockedAddressError);
      expect(r.err?.message).toContain('hooks.shop.example resolves to a');
    }
  });
});

it('a name resolving only to public addresses passes both checks (the stubs answer as DNS would)', async () => {
  answer = [PUBLIC, { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 }];
  await expect(assertPublicHost('hooks.shop.example')).resolves.toBeUndefined();
  expect(await socketLookup(false)).toEqual({ err: null, address: PUBLIC.address });
});
