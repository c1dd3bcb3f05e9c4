// Paystack refund transformers on Paystack's documented payloads (doc-code-snippets' refund responses and refund.* events): the request, every refund state, the list search by merchant note, and bodies that cannot be read.
import { observeRefund, readRefundCreate, readRefundFetch, readRefundList, refundCallbackNote, refundRequest } from '../../../src/processors/paystack/refund-transformers';
import type { RefundOrder } from '../../../src/processors/types';

const order: RefundOrder = {
  reference: 'rf_01',
  gatewayReference: 'PCREFUNDPAYSTACK01',
  original: { reference: 'PCPAY01', vendorReference: 'PCPAY01.2', receipt: null, amountMinor: 10_000n, accountNumber: null },
  amountMinor: 5_000n,
  currency: 'NGN',
  reason: null,
  callbackUrl: 'https://pay.example.net/x',
};

test('refundRequest names the reference Paystack was paid under, a partial amount in kobo and our reference in the merchant note', () => {
  expect(refundRequest(order)).toEqual({ transaction: 'PCPAY01.2', amount: 5000, currency: 'NGN', customer_note: 'Refund PCREFUNDPAYSTACK01', merchant_note: 'PayCollect refund rf_01' });
  expect(refundRequest({ ...order, original: { ...order.original, vendorReference: null } }).transaction).toBe('PCPAY01');
});

test.each([
  [200, { status: true, message: 'Refund has been queued for processing', data: { id: 3018284, status: 'pending', amount: 10000 } }, { kind: 'accepted', vendorReference: '3018284' }],
  [400, { status: false, message: 'Transaction has been fully reversed', type: 'validation_error', code: 'invalid_params' }, { kind: 'refused' }],
  [401, { status: false, message: 'Invalid key' }, { kind: 'refused' }],
  [429, { status: false, message: 'Too many requests' }, { kind: 'retry' }],
  [502, null, { kind: 'retry' }],
  [200, { status: true, data: {} }, { kind: 'unknown' }],
  [302, null, { kind: 'unknown' }],
])('readRefundCreate %i %j', (status, body, expected) => {
  expect(readRefundCreate(status, body)).toMatchObject(expected);
});

describe('observeRefund', () => {
  it.each([
    ['pending', 'PENDING'],
    ['processing', 'PENDING'],
    ['needs-attention', 'PENDING'],
    ['processed', 'COMPLETED'],
    ['failed', 'FAILED'],
  ])('%s -> %s', (word, status) => {
    expect(observeRefund({ status: word, amount: 500000, currency: 'NGN' })).toMatchObject({ status, vendorStatus: word, amountMinor: 500000n, currency: 'NGN', unmapped: false });
  });

  it('reads an unknown state as PENDING, unmapped; no state as nothing', () => {
    expect(observeRefund({ status: 'reversed-ish', amount: 1 })).toMatchObject({ status: 'PENDING', unmapped: true });
    expect(observeRefund({ amount: 1 })).toBeNull();
    expect(observeRefund('processed')).toBeNull();
  });
});

test('readRefundFetch: the fetch sample is processed; 404 never received; anything else unavailable', () => {
  const sample = { status: true, message: 'Refund retrieved', data: { integration: 100982, transaction: 1641, amount: 500000, currency: 'NGN', status: 'processed', id: 1 } };
  expect(readRefundFetch(200, sample)).toMatchObject({ kind: 'observed', observed: { status: 'COMPLETED', amountMinor: 500000n } });
  expect(readRefundFetch(404, { status: false, message: 'Refund not found' })).toEqual({ kind: 'not_found' });
  expect(readRefundFetch(500, null).kind).toBe('unavailable');
  expect(readRefundFetch(200, { status: true, data: {} }).kind).toBe('unavailable');
});

describe('readRefundList', () => {
  const item = (note: string, ref = 'PCPAY01.2', status = 'processed') => ({ id: 1, transaction: 1641, transaction_reference: ref, amount: 5000, currency: 'NGN', status, merchant_note: note });

  it('finds ours by its merchant note', () => {
    expect(readRefundList(200, { status: true, data: [item('x'), item('PayCollect refund rf_01', 'PCPAY01.2', 'pending')] }, 'PCPAY01.2', 'rf_01')).toMatchObject({ kind: 'observed', observed: { status: 'PENDING' } });
  });

  it('says not_found only when the list is that transaction\'s', () => {
    expect(readRefundList(200, { status: true, data: [item('x')] }, 'PCPAY01.2', 'rf_01')).toEqual({ kind: 'not_found' });
    expect(readRefundList(200, { status: true, data: [] }, 'PCPAY01.2', 'rf_01')).toEqual({ kind: 'not_found' });
    expect(readRefundList(200, { status: true, data: [item('x', 'OTHER')] }, 'PCPAY01.2', 'rf_01').kind).toBe('unavailable');
    expect(readRefundList(500, null, 'PCPAY01.2', 'rf_01').kind).toBe('unavailable');
  });
});

describe('refundCallbackNote', () => {
  it('reads the documented refund.processed and refund.needs-attention events', () => {
    const processed = { event: 'refund.processed', data: { status: 'processed', transaction_reference: 'T2154954_412829_3be32076_6lcg3', refund_reference: '132013318360', amount: '5000', currency: 'NGN' } };
    expect(refundCallbackNote(processed)).toEqual({ vendorReference: null, reported: null, originalReference: 'T2154954_412829_3be32076_6lcg3' });
    const attention = { event: 'refund.needs-attention', data: { status: 'needs-attention', transaction_reference: '88bfa945', refund_reference: 'TRF_7jn17u9vkqm91efk', amount: 5306, id: '123456' } };
    expect(refundCallbackNote(Buffer.from(JSON.stringify(attention)))).toEqual({ vendorReference: '123456', reported: null, originalReference: '88bfa945' });
  });

  it.each([[null], ['x'], [Buffer.from('not json')], [{ event: 'charge.success', data: { reference: 'x' } }], [{ event: 'refund.processed' }]])('never throws on %j', (body) => {
    expect(refundCallbackNote(body)).toEqual({ vendorReference: null, reported: null });
  });
});
