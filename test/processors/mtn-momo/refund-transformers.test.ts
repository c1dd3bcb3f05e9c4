// MTN MoMo refund transformers on vendor payloads: the RefundV1 body, the send answers, every refund status and reason, and answers that cannot be read.
import type { VendorAnswer } from '../../../src/processors/transport';
import { missingDisbursementCredentials, observeRefund, refundQueryResult, refundSendResult, toRefund } from '../../../src/processors/mtn-momo/transformers';
import type { RefundOrder } from '../../../src/processors/types';

const answer = (status: number, json?: unknown): VendorAnswer => ({ kind: 'answer', status, text: json === undefined ? '' : JSON.stringify(json), json });

const order: RefundOrder = {
  reference: '5b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e',
  gatewayReference: 'PCREFUNDABCDEFGHJKLMNPQRS',
  original: { reference: '0b4f2c1e-7a9d-4e3b-8c5f-1d2e3f4a5b6c', vendorReference: null, receipt: null, amountMinor: 5_000_000n, accountNumber: '256772123456' },
  amountMinor: 2_000_000n,
  currency: 'UGX',
  reason: "Customer's order cancelled",
  callbackUrl: 'https://pay.example.net/callbacks/mtn_momo/token',
};

test('toRefund names the request to pay being refunded, in whole units, with plain notes', () => {
  expect(toRefund(order)).toEqual({
    amount: '20000',
    currency: 'UGX',
    externalId: order.gatewayReference,
    payerMessage: 'Customer s order cancelled',
    payeeNote: `PayCollect refund ${order.gatewayReference}`,
    referenceIdToRefund: order.original.reference,
  });
  expect(toRefund({ ...order, reason: null })?.payerMessage).toBe(`Refund ${order.gatewayReference}`);
  expect(toRefund({ ...order, currency: 'EUR', amountMinor: 1250n })?.amount).toBe('12.50');
  expect(toRefund({ ...order, amountMinor: 2_000_050n })).toBeNull();
});

test('missingDisbursementCredentials names what a MID lacks to refund', () => {
  expect(missingDisbursementCredentials({ api_user: 'x' })).toEqual(['disbursement_api_user', 'disbursement_api_key', 'disbursement_subscription_key']);
  expect(missingDisbursementCredentials({ disbursement_api_user: 'u', disbursement_api_key: 'k', disbursement_subscription_key: 's' })).toEqual([]);
});

test.each([
  [answer(202), 'accepted'],
  [answer(409, { code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id. Creation of resource failed.' }), 'accepted'],
  [answer(400, { code: 'INVALID_CURRENCY', message: 'Currency not supported.' }), 'refused'],
  [answer(401, { error: 'login_failed' }), 'retry'],
  [answer(500, { code: 'INTERNAL_PROCESSING_ERROR' }), 'retry'],
  [{ kind: 'no_answer', sent: true, detail: 'no answer within 100 ms' } as VendorAnswer, 'unknown'],
  [answer(200, { unexpected: true }), 'unknown'],
])('refundSendResult %j -> %s', (a, kind) => {
  const r = refundSendResult(a);
  expect(r.kind).toBe(kind);
  if (r.kind === 'refused') expect(r.message).toBe('The mobile money processor refused the refund');
});

describe('observeRefund', () => {
  const base = { amount: '20000', currency: 'UGX', financialTransactionId: '363440463', externalId: 'x', payee: { partyIdType: 'MSISDN', partyId: '256772123456' }, payerMessage: '', payeeNote: '' };

  it.each([
    ['SUCCESSFUL', 'COMPLETED'],
    ['PENDING', 'PENDING'],
    ['ONGOING', 'PENDING'],
    ['FAILED', 'FAILED'],
    ['TIMEOUT', 'FAILED'],
    ['REJECTED', 'FAILED'],
  ])('%s -> %s', (word, status) => {
    expect(observeRefund({ ...base, status: word })).toMatchObject({ status, vendorStatus: word, amountMinor: 2_000_000n, currency: 'UGX', unmapped: false });
  });

  it.each([
    ['NOT_ENOUGH_FUNDS', "The merchant's disbursement account at the processor has too little money"],
    ['PAYEE_NOT_FOUND', 'The phone number has no mobile money account'],
    ['NOT_ALLOWED', 'The processor does not allow this refund'],
    ['SOMETHING_NEW', 'The processor reported the refund as failed'],
  ])('FAILED %s (object and bare string) reads "%s"', (reason, message) => {
    const asObject = observeRefund({ ...base, status: 'FAILED', reason: { code: reason, message: 'x' } });
    expect(asObject).toMatchObject({ status: 'FAILED', message, vendorStatus: `FAILED ${reason}` });
    expect(observeRefund({ ...base, status: 'FAILED', reason })).toEqual(asObject);
  });

  it('reads an unknown status as PENDING, unmapped; a body without a status not at all', () => {
    expect(observeRefund({ ...base, status: 'REVERSED_MAYBE' })).toMatchObject({ status: 'PENDING', unmapped: true });
    expect(observeRefund({ amount: '1' })).toBeNull();
    expect(observeRefund('SUCCESSFUL')).toBeNull();
  });
});

test('refundQueryResult: 404 never received, 5xx/no answer/unreadable 200 unavailable', () => {
  expect(refundQueryResult(answer(404, { code: 'RESOURCE_NOT_FOUND' }))).toEqual({ kind: 'not_found' });
  expect(refundQueryResult(answer(503)).kind).toBe('unavailable');
  expect(refundQueryResult({ kind: 'no_answer', sent: true, detail: 'x' }).kind).toBe('unavailable');
  expect(refundQueryResult(answer(200, { nothing: 1 })).kind).toBe('unavailable');
});
