// MTN MoMo transformers on recorded vendor payloads: the request we send, every documented status and reason, and answers we cannot read.
import type { VendorAnswer } from '../../src/processors/transport';
import { observe, queryResult, sendResult, toRequestToPay } from '../../src/processors/mtn-momo/transformers';

const answer = (status: number, json?: unknown): VendorAnswer => ({
  kind: 'answer',
  status,
  text: json === undefined ? '' : JSON.stringify(json),
  json,
});

const order = {
  reference: '0b4f2c1e-7a9d-4e3b-8c5f-1d2e3f4a5b6c',
  gatewayReference: 'PCABCDEFGHJKLMNPQRSTUVWXYZ23',
  amountMinor: 5_000_000n,
  currency: 'UGX',
  accountNumber: '256772123456',
  narration: "Order 0001 O'Brien's books",
  callbackUrl: 'https://pay.example.net/callbacks/mtn_momo/token',
};

describe('toRequestToPay', () => {
  it('sends a decimal string in whole units for a zero-decimal currency, the MSISDN and plain notes', () => {
    expect(toRequestToPay(order)).toEqual({
      amount: '50000',
      currency: 'UGX',
      externalId: order.gatewayReference,
      payer: { partyIdType: 'MSISDN', partyId: '256772123456' },
      payerMessage: 'Order 0001 O Brien s books',
      payeeNote: `PayCollect ${order.gatewayReference}`,
    });
  });

  it('keeps two decimals where the currency has them', () => {
    expect(toRequestToPay({ ...order, currency: 'EUR', amountMinor: 1250n }).amount).toBe('12.50');
  });

  it('refuses an amount that the currency cannot carry (checked earlier, at request time)', () => {
    expect(() => toRequestToPay({ ...order, amountMinor: 5_000_050n })).toThrow(RangeError);
  });
});

describe('sendResult', () => {
  it.each([
    [answer(202), 'accepted'],
    [answer(409, { code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id. Creation of resource failed.' }), 'accepted'],
    [answer(400, { code: 'INVALID_CURRENCY', message: 'Currency not supported.' }), 'refused'],
    [answer(401, { statusCode: 401, message: 'Access denied due to invalid subscription key.' }), 'retry'],
    [answer(500, { code: 'INTERNAL_PROCESSING_ERROR', message: 'An internal error occurred while processing.' }), 'retry'],
    [answer(503), 'retry'],
    [{ kind: 'no_answer', sent: true, detail: 'no answer within 100 ms' } as VendorAnswer, 'unknown'],
    [{ kind: 'no_answer', sent: false, detail: 'connection failed (ECONNREFUSED)' } as VendorAnswer, 'retry'],
    [answer(200, { unexpected: true }), 'unknown'],
    [answer(302), 'unknown'],
  ])('%j -> %s', (a, kind) => {
    expect(sendResult(a).kind).toBe(kind);
  });
});

describe('observe (status query and callback body)', () => {
  const base = { amount: '50000', currency: 'UGX', financialTransactionId: '23503452', externalId: 'x', payer: { partyIdType: 'MSISDN', partyId: '256772123456' } };

  it('reads SUCCESSFUL with the amount and currency it confirms', () => {
    expect(observe({ ...base, status: 'SUCCESSFUL' })).toEqual({
      status: 'COMPLETED', vendorStatus: 'SUCCESSFUL', message: null, amountMinor: 5_000_000n, currency: 'UGX', unmapped: false,
    });
  });

  it('reads PENDING', () => {
    expect(observe({ ...base, status: 'PENDING' })?.status).toBe('PENDING');
  });

  it.each([
    ['APPROVAL_REJECTED', 'CANCELLED'],
    ['TRANSACTION_CANCELED', 'CANCELLED'],
    ['EXPIRED', 'FAILED'],
    ['COULD_NOT_PERFORM_TRANSACTION', 'FAILED'],
    ['NOT_ENOUGH_FUNDS', 'FAILED'],
    ['PAYER_NOT_FOUND', 'FAILED'],
    ['INTERNAL_PROCESSING_ERROR', 'FAILED'],
  ])('reads FAILED with reason %s (object form and bare-string form) as %s', (reason, status) => {
    const asObject = observe({ ...base, status: 'FAILED', reason: { code: reason, message: 'x' } });
    const asString = observe({ ...base, status: 'FAILED', reason });
    expect(asObject?.status).toBe(status);
    expect(asString).toEqual(asObject);
    expect(asObject?.message).toEqual(expect.any(String));
    expect(asObject?.vendorStatus).toBe(`FAILED ${reason}`);
  });

  it.each([
    ['REJECTED', 'CANCELLED', 'The customer declined the payment'],
    ['TIMEOUT', 'FAILED', 'The customer did not approve the payment in time'],
    ['ONGOING', 'PENDING', null],
  ])('reads the status word %s (answered without a reason) as %s', (word, status, message) => {
    expect(observe({ ...base, status: word })).toEqual({ status, vendorStatus: word, message, amountMinor: 5_000_000n, currency: 'UGX', unmapped: false });
  });

  it('reads FAILED with an unknown reason as FAILED with a general message', () => {
    expect(observe({ ...base, status: 'FAILED', reason: 'SOMETHING_NEW' })).toMatchObject({ status: 'FAILED', unmapped: false });
  });

  it('reads an unknown status as PENDING, marked unmapped (the caller logs an error)', () => {
    expect(observe({ ...base, status: 'HALF_DONE' })).toMatchObject({ status: 'PENDING', unmapped: true, vendorStatus: 'HALF_DONE' });
  });

  it('does not read a body without a status', () => {
    expect(observe({ amount: '1' })).toBeNull();
    expect(observe(null)).toBeNull();
    expect(observe('SUCCESSFUL')).toBeNull();
  });
});

describe('queryResult', () => {
  it('404 RESOURCE_NOT_FOUND means the request never arrived', () => {
    expect(queryResult(answer(404, { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' }))).toEqual({ kind: 'not_found' });
  });

  it('a 5xx, no answer or an unreadable 200 is unavailable, never a failure', () => {
    expect(queryResult(answer(500)).kind).toBe('unavailable');
    expect(queryResult({ kind: 'no_answer', sent: true, detail: 'x' }).kind).toBe('unavailable');
    expect(queryResult(answer(200, { nothing: 1 })).kind).toBe('unavailable');
  });
});
