// BTCPay refund transformers on Greenfield payloads (PullPaymentData, PayoutData, WebhookPayoutEvent): the refund request, its answers, every payout state and the archived pull payment, the look-up by description, and bodies that cannot be read.
import { observeRefund, readPayouts, readPullPayment, readPullPaymentList, readRefundInvoice, refundCallbackNote, refundInvoiceRequest } from '../../../src/processors/btcpay/transformers';
import type { PullPayment } from '../../../src/processors/btcpay/transformers';

const pullPaymentData = {
  id: '3ajHWNHWVoWvU5Bt1SVyGK3x6QKA', name: 'Refund PCREF1', description: 'PayCollect refund rf-1', currency: 'UGX', amount: '10000.00',
  BOLT11Expiration: '30', autoApproveClaims: false, archived: false, viewLink: 'https://btcpay.shop.example/pull-payments/3ajHWNHWVoWvU5Bt1SVyGK3x6QKA',
};
const pp: PullPayment = { id: pullPaymentData.id, viewLink: pullPaymentData.viewLink, amountMinor: 10_000_00n, currency: 'UGX', archived: false, description: 'PayCollect refund rf-1' };
const payout = (state: string, originalAmount = '10000.00') => ({ state, amountMinor: BigInt(Math.round(Number(originalAmount) * 100)) });

test('refundInvoiceRequest asks a Custom refund of our amount in the invoice currency, our reference in the description', () => {
  expect(refundInvoiceRequest({ reference: 'rf-1', gatewayReference: 'PCREF1', amountMinor: 10_000_00n, currency: 'UGX' })).toEqual({
    name: 'Refund PCREF1', description: 'PayCollect refund rf-1', refundVariant: 'Custom', customAmount: '10000.00', customCurrency: 'UGX',
  });
});

test.each([
  [200, pullPaymentData, { kind: 'accepted_with_link', vendorReference: pullPaymentData.id, claimUrl: pullPaymentData.viewLink }],
  [400, { code: 'non-refundable', message: 'Cannot refund this invoice' }, { kind: 'refused', message: 'BTCPay Server refused the refund: Cannot refund this invoice' }],
  [400, [{ path: 'customAmount', message: 'Amount must be greater than 0' }], { kind: 'refused', message: 'BTCPay Server refused the refund: customAmount: Amount must be greater than 0' }],
  [403, undefined, { kind: 'refused' }],
  [404, { code: 'invoice-not-found' }, { kind: 'refused', message: 'BTCPay Server refused the refund: invoice not found' }],
  [429, undefined, { kind: 'retry' }],
  [500, undefined, { kind: 'unknown' }],
  [200, { ...pullPaymentData, viewLink: 'javascript:alert(1)' }, { kind: 'unknown' }],
])('readRefundInvoice %i %j', (status, body, expected) => {
  expect(readRefundInvoice(status, body)).toMatchObject(expected);
});

test('readPullPayment, readPullPaymentList and readPayouts', () => {
  expect(readPullPayment(200, pullPaymentData)).toEqual({ kind: 'pull_payment', pp });
  expect(readPullPayment(404, null)).toEqual({ kind: 'not_found' });
  expect(readPullPayment(200, {}).kind).toBe('unknown');
  expect(readPullPaymentList(200, [{ ...pullPaymentData, description: 'other' }, pullPaymentData], 'rf-1')).toEqual({ kind: 'pull_payment', pp });
  expect(readPullPaymentList(200, [{ ...pullPaymentData, description: 'other' }], 'rf-1')).toEqual({ kind: 'not_found' });
  expect(readPullPaymentList(500, null, 'rf-1').kind).toBe('unknown');
  expect(readPayouts(200, [{ id: 'p1', state: 'Completed', originalAmount: '10000.00', originalCurrency: 'UGX' }])).toEqual({ kind: 'payouts', payouts: [{ state: 'Completed', amountMinor: 10_000_00n }] });
  expect(readPayouts(404, null)).toEqual({ kind: 'not_found' });
  expect(readPayouts(200, {}).kind).toBe('unknown');
});

describe('observeRefund', () => {
  it.each([
    [[], 'PENDING'],
    [[payout('AwaitingApproval')], 'PENDING'],
    [[payout('AwaitingPayment')], 'PENDING'],
    [[payout('InProgress')], 'PENDING'],
    [[payout('Cancelled')], 'PENDING'],
    [[payout('Completed', '4000.00')], 'PENDING'],
    [[payout('Completed', '4000.00'), payout('Completed', '6000.00')], 'COMPLETED'],
    [[payout('Completed')], 'COMPLETED'],
  ])('payouts %j -> %s', (payouts, status) => {
    expect(observeRefund(pp, payouts)).toMatchObject({ status, unmapped: false, currency: 'UGX' });
  });

  it('archived before it is paid: CANCELLED; archived after: still COMPLETED', () => {
    expect(observeRefund({ ...pp, archived: true }, [payout('Cancelled')])).toMatchObject({ status: 'CANCELLED', vendorStatus: 'pull payment archived; payouts: Cancelled' });
    expect(observeRefund({ ...pp, archived: true }, [payout('Completed')])).toMatchObject({ status: 'COMPLETED', amountMinor: 10_000_00n });
  });

  it('a payout state in no list is PENDING, unmapped', () => {
    expect(observeRefund(pp, [payout('Refunded-ish')])).toMatchObject({ status: 'PENDING', unmapped: true });
  });
});

test('refundCallbackNote reads a payout event, raw or parsed; anything else is an empty note', () => {
  const event = { deliveryId: 'd', webhookId: 'w', originalDeliveryId: 'd', isRedelivery: false, type: 'PayoutUpdated', timestamp: 1795678520, storeId: 's', payoutId: 'p', pullPaymentId: pp.id, payoutState: 'Completed' };
  expect(refundCallbackNote(event)).toEqual({ vendorReference: pp.id, reported: null });
  expect(refundCallbackNote(Buffer.from(JSON.stringify(event, null, 2)))).toEqual({ vendorReference: pp.id, reported: null });
  for (const bad of [null, 'x', Buffer.from('nope'), { type: 'InvoiceSettled', invoiceId: 'i' }, { type: 'PayoutUpdated', pullPaymentId: '../x' }]) {
    expect(refundCallbackNote(bad)).toEqual({ vendorReference: null, reported: null });
  }
});
