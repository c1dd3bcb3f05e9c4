// Paystack payout (Transfers) transformers on Paystack payloads: the recipient for each country and method, the transfer body, the send answers (OTP and a reused reference included), every transfer state, verify, and transfer.* event bodies.
import { OTP_MESSAGE, observeTransfer, PAYSTACK_TRANSFER_STATUSES, readRecipient, readTransfer, readTransferVerify, recipientRequest, transferCallbackNote, transferRequest } from '../../../src/processors/paystack/payout-transformers';
import type { PayoutOrder } from '../../../src/processors/types';

const order: PayoutOrder = {
  reference: '0b4f2c1e-7a9d-4e3b-8c5f-1d2e3f4a5b6c',
  gatewayReference: 'PCPAYOUTABCDEFGHJKLMNPQRS',
  amountMinor: 1_234_56n,
  currency: 'NGN',
  paymentMethod: 'BANK',
  accountNumber: '0001234567',
  bankCode: '058',
  accountName: 'Jane Supplier',
  narration: 'Invoice 42',
  callbackUrl: 'https://pay.example.net/unused',
};

test('recipientRequest: nuban, ghipss, basa by bank code; mobile money with the local number in Ghana and Kenya', () => {
  expect(recipientRequest(order)).toEqual({ type: 'nuban', name: 'Jane Supplier', account_number: '0001234567', bank_code: '058', currency: 'NGN' });
  expect(recipientRequest({ ...order, currency: 'GHS', bankCode: '280100' })).toMatchObject({ type: 'ghipss' });
  expect(recipientRequest({ ...order, currency: 'ZAR', bankCode: '632005' })).toMatchObject({ type: 'basa' });
  expect(recipientRequest({ ...order, currency: 'GHS', paymentMethod: 'MOBILE_MONEY', accountNumber: '+233551234987', bankCode: 'VOD' })).toEqual({
    type: 'mobile_money', name: 'Jane Supplier', account_number: '0551234987', bank_code: 'VOD', currency: 'GHS',
  });
  expect(recipientRequest({ ...order, currency: 'KES', paymentMethod: 'MOBILE_MONEY', accountNumber: '254712345678', bankCode: null })).toMatchObject({ account_number: '0712345678', bank_code: 'MPESA' });
  expect(recipientRequest({ ...order, currency: 'USD' })).toEqual({ refused: 'Paystack does not pay out in USD' });
});

test('transferRequest pays from the balance in the smallest unit under our reference', () => {
  expect(transferRequest(order, 'RCP_abc')).toEqual({ source: 'balance', amount: 123456, currency: 'NGN', recipient: 'RCP_abc', reference: order.reference, reason: 'Invoice 42' });
});

test('readRecipient: the code, a refusal in Paystack’s words, or a harmless retry', () => {
  expect(readRecipient(201, { status: true, data: { recipient_code: 'RCP_1a2b' } })).toEqual({ kind: 'recipient', code: 'RCP_1a2b' });
  expect(readRecipient(400, { status: false, message: 'Account number is invalid' })).toMatchObject({ kind: 'refused', message: 'Paystack refused the recipient: Account number is invalid' });
  expect(readRecipient(200, { status: true, data: {} }).kind).toBe('retry');
  expect(readRecipient(502, null).kind).toBe('retry');
});

test.each([
  [200, { status: true, message: 'Transfer has been queued', data: { status: 'pending', transfer_code: 'TRF_1x' } }, { kind: 'accepted', vendorReference: 'TRF_1x' }],
  [200, { status: true, message: 'Transfer requires OTP to continue', data: { status: 'otp', transfer_code: 'TRF_1x' } }, { kind: 'refused', message: OTP_MESSAGE }],
  [400, { status: false, message: 'Duplicate Transfer Reference' }, { kind: 'accepted', vendorReference: null }],
  [400, { status: false, message: 'Your balance is not enough to fulfil this request' }, { kind: 'refused', message: 'Paystack refused the transfer: Your balance is not enough to fulfil this request' }],
  [429, { status: false, message: 'Too many requests' }, { kind: 'retry' }],
  [500, null, { kind: 'retry' }],
  [200, { status: true }, { kind: 'unknown' }],
])('readTransfer %s %j', (status, body, expected) => {
  expect(readTransfer(status, body)).toMatchObject(expected);
});

test('every transfer state is mapped, none flagged unmapped; an unknown word is PENDING and flagged', () => {
  const mapped = Object.fromEntries(PAYSTACK_TRANSFER_STATUSES.map((s) => [s, observeTransfer({ status: s, amount: 100, currency: 'NGN' })]));
  expect(Object.fromEntries(Object.entries(mapped).map(([k, v]) => [k, v?.status]))).toEqual({
    pending: 'PENDING', received: 'PENDING', success: 'COMPLETED', failed: 'FAILED', reversed: 'REVERSED', otp: 'FAILED', abandoned: 'FAILED', blocked: 'FAILED', rejected: 'FAILED',
  });
  expect(Object.values(mapped).every((o) => o?.unmapped === false && o.amountMinor === 100n)).toBe(true);
  expect(mapped.otp?.message).toBe(OTP_MESSAGE);
  expect(observeTransfer({ status: 'queued_somewhere' })).toMatchObject({ status: 'PENDING', unmapped: true });
  expect(observeTransfer({ amount: 1 })).toBeNull();
});

test('readTransferVerify: the transfer, not found, or no answer this time', () => {
  expect(readTransferVerify(200, { status: true, data: { status: 'success', amount: 123456, currency: 'NGN' } })).toMatchObject({ kind: 'observed', observed: { status: 'COMPLETED', amountMinor: 123456n } });
  expect(readTransferVerify(404, { status: false, message: 'Transfer not found' })).toEqual({ kind: 'not_found' });
  expect(readTransferVerify(400, { status: false, message: 'Transfer not found' })).toEqual({ kind: 'not_found' });
  expect(readTransferVerify(200, { status: true, data: {} }).kind).toBe('unavailable');
  expect(readTransferVerify(503, null).kind).toBe('unavailable');
});

test('transfer.* events name our reference; anything else is an empty note', () => {
  const body = { event: 'transfer.reversed', data: { reference: order.reference, status: 'reversed', amount: 123456 } };
  expect(transferCallbackNote(body)).toEqual({ vendorReference: order.reference, reported: null });
  expect(transferCallbackNote(Buffer.from(JSON.stringify(body)))).toEqual({ vendorReference: order.reference, reported: null });
  for (const other of [{ event: 'charge.success', data: { reference: 'x' } }, null, 'garbage', Buffer.from('not json')]) {
    expect(transferCallbackNote(other)).toEqual({ vendorReference: null, reported: null });
  }
});
