// MTN MoMo payout transformers on vendor payloads: the Transfer body, what is refused before sending, the send answers, every transfer status and reason, and answers that cannot be read.
import type { VendorAnswer } from '../../../src/processors/transport';
import { observePayout, payoutQueryResult, payoutSendResult, toTransfer } from '../../../src/processors/mtn-momo/transformers';
import type { PayoutOrder } from '../../../src/processors/types';

const answer = (status: number, json?: unknown): VendorAnswer => ({ kind: 'answer', status, text: json === undefined ? '' : JSON.stringify(json), json });

const order: PayoutOrder = {
  reference: '5b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e',
  gatewayReference: 'PCPAYOUTABCDEFGHJKLMNPQRS',
  amountMinor: 2_000_000n,
  currency: 'UGX',
  paymentMethod: 'MOBILE_MONEY',
  accountNumber: '+256772123456',
  bankCode: null,
  accountName: 'Jane Driver',
  narration: "Driver's weekly pay",
  callbackUrl: 'https://pay.example.net/callbacks/mtn_momo/token',
};

test('toTransfer pays the MSISDN in whole units with plain notes, and refuses what MTN cannot take', () => {
  expect(toTransfer(order)).toEqual({
    amount: '20000',
    currency: 'UGX',
    externalId: order.gatewayReference,
    payee: { partyIdType: 'MSISDN', partyId: '256772123456' },
    payerMessage: `PayCollect payout ${order.gatewayReference}`,
    payeeNote: 'Driver s weekly pay',
  });
  expect(toTransfer({ ...order, currency: 'EUR', amountMinor: 1250n })).toMatchObject({ amount: '12.50' });
  expect(toTransfer({ ...order, amountMinor: 2_000_050n })).toEqual({ refused: 'MTN MoMo takes UGX in whole units only' });
  expect(toTransfer({ ...order, paymentMethod: 'BANK', bankCode: '044' })).toEqual({ refused: 'MTN MoMo pays out to mobile money wallets only, not to bank accounts' });
  expect(toTransfer({ ...order, accountNumber: '0772 123 456' })).toEqual({ refused: 'MTN MoMo pays out to a phone number in international form only' });
});

test.each([
  [answer(202), 'accepted'],
  [answer(409, { code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id. Creation of resource failed.' }), 'accepted'],
  [answer(400, { code: 'INVALID_CURRENCY', message: 'Currency not supported.' }), 'refused'],
  [answer(401, { code: 'UNAUTHORIZED' }), 'retry'],
  [answer(403), 'retry'],
  [answer(500, { code: 'INTERNAL_PROCESSING_ERROR' }), 'retry'],
  [{ kind: 'no_answer', sent: true, detail: 'timeout' } as VendorAnswer, 'unknown'],
  [answer(200, { weird: true }), 'unknown'],
])('payoutSendResult %#: %s', (a, kind) => {
  const r = payoutSendResult(a);
  expect(r.kind).toBe(kind);
  if (r.kind === 'refused') expect(r.message).toBe('The mobile money processor refused the payout');
});

test.each([
  ['PENDING', null, 'PENDING', null],
  ['ONGOING', null, 'PENDING', null],
  ['SUCCESSFUL', null, 'COMPLETED', null],
  ['FAILED', 'PAYEE_NOT_FOUND', 'FAILED', 'The phone number has no mobile money account'],
  ['FAILED', { code: 'NOT_ENOUGH_FUNDS', message: 'x' }, 'FAILED', "The merchant's disbursement account at the processor has too little money"],
  ['FAILED', 'SOMETHING_NEW', 'FAILED', 'The processor reported the payout as failed'],
  ['TIMEOUT', null, 'FAILED', 'The processor reported the payout as failed'],
])('observePayout %s %j', (status, reason, ours, message) => {
  expect(observePayout({ status, reason, amount: '20000', currency: 'UGX' })).toMatchObject({ status: ours, message, amountMinor: 2_000_000n, currency: 'UGX', unmapped: false });
});

test('an unknown status word is PENDING and flagged; a body without a status is no answer', () => {
  expect(observePayout({ status: 'PAID_MAYBE' })).toMatchObject({ status: 'PENDING', unmapped: true });
  expect(observePayout('nope')).toBeNull();
  expect(payoutQueryResult(answer(200, {}))).toEqual({ kind: 'unavailable', detail: 'HTTP 200 without a readable status' });
  expect(payoutQueryResult(answer(404, { code: 'RESOURCE_NOT_FOUND' }))).toEqual({ kind: 'not_found' });
  expect(payoutQueryResult(answer(503)).kind).toBe('unavailable');
  expect(payoutQueryResult({ kind: 'no_answer', sent: false, detail: 'refused' }).kind).toBe('unavailable');
});
