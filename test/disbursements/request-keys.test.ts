// Proves two keys of a disbursement request, without a database: the client's address as the allowlist reads it (an IPv4 client of a dual-stack listener, ::ffff:a.b.c.d, is read as a.b.c.d, so an IPv4 allowlist matches it; anything unreadable is no address), and the request's digest behind idempotency, which covers every field asked for, the payee's account number included (the same merchant_reference with another account is another request, refused, never a replay paying the first payee).
import { clientInet, disbursementRequestHash } from '../../src/disbursements/request';
import type { DisbursementCreateBody } from '../../src/disbursements/request';

it.each([
  ['::ffff:203.0.113.7', '203.0.113.7'],
  ['203.0.113.7', '203.0.113.7'],
  ['2001:db8::7', '2001:db8::7'],
  ['::1', '::1'],
  ['::ffff:not-an-address', null],
  ['garbage', null],
  ['', null],
  [undefined, null],
])('reads the client address %p as %p', (address, inet) => {
  expect(clientInet(address)).toBe(inet);
});

describe('the idempotency digest', () => {
  const body: DisbursementCreateBody = {
    amount: 1500, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello', merchant_reference: 'PAY-0001-KEYS', narration: 'Week 48',
  };

  it('is the same for the same request', () => {
    expect(disbursementRequestHash({ ...body })).toBe(disbursementRequestHash(body));
  });

  it.each([
    ['account_number', { account_number: '256772123457' }],
    ['amount', { amount: 1500.01 }],
    ['currency', { currency: 'KES' }],
    ['account_name', { account_name: 'Okelo' }],
    ['narration', { narration: 'Week 49' }],
    ['merchant_reference', { merchant_reference: 'PAY-0002-KEYS' }],
  ])('differs with another %s', (_field, change) => {
    expect(disbursementRequestHash({ ...body, ...change } as DisbursementCreateBody)).not.toBe(disbursementRequestHash(body));
  });

  it('differs with another bank account or bank code', () => {
    const bank = { ...body, payment_method: 'BANK', account_number: '0123456789', bank_code: '044' } as DisbursementCreateBody;
    expect(disbursementRequestHash({ ...bank, account_number: '0123456780' })).not.toBe(disbursementRequestHash(bank));
    expect(disbursementRequestHash({ ...bank, bank_code: '058' })).not.toBe(disbursementRequestHash(bank));
  });
});
