// M-Pesa Express transformers on recorded Daraja payloads: the STK push request and its password, every result code, "being processed", callbacks with and without metadata, token answers.
import type { VendorAnswer } from '../../src/processors/transport';
import { callbackNote, darajaPassword, darajaTimestamp, queryResult, sendResult, tokenRefused, toStkPush } from '../../src/processors/mpesa/transformers';

const answer = (status: number, json?: unknown): Extract<VendorAnswer, { kind: 'answer' }> => ({
  kind: 'answer', status, text: json === undefined ? '' : JSON.stringify(json), json,
});

const credentials = {
  consumer_key: 'k', consumer_secret: 's', short_code: '174379',
  pass_key: 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919', transaction_type: 'CustomerPayBillOnline',
};
const order = {
  reference: 'r', gatewayReference: 'PCABCDEFGHJKLMNPQRSTUVWX', amountMinor: 10000n, currency: 'KES',
  accountNumber: '254708374149', narration: "Order 0001 O'Brien's", callbackUrl: 'https://pay.example.net/callbacks/mpesa/t',
};

describe('toStkPush', () => {
  it('builds the Daraja request: Kenyan-time timestamp, base64 password, whole amount, short reference and description', () => {
    const at = new Date('2026-11-26T07:21:15Z');
    expect(darajaTimestamp(at)).toBe('20261126102115');
    expect(toStkPush(credentials, order, at)).toEqual({
      BusinessShortCode: '174379',
      Password: Buffer.from('174379' + credentials.pass_key + '20261126102115').toString('base64'),
      Timestamp: '20261126102115',
      TransactionType: 'CustomerPayBillOnline',
      Amount: 100,
      PartyA: '254708374149',
      PartyB: '174379',
      PhoneNumber: '254708374149',
      CallBackURL: order.callbackUrl,
      AccountReference: 'PCABCDEFGHJK',
      TransactionDesc: 'Order 0001 O',
    });
    expect(darajaPassword(credentials, '20261126102115')).toBe(toStkPush(credentials, order, at).Password);
  });

  it('uses party_b for a till and refuses cents', () => {
    expect(toStkPush({ ...credentials, party_b: '600000' }, order, new Date()).PartyB).toBe('600000');
    expect(() => toStkPush(credentials, { ...order, amountMinor: 10050n }, new Date())).toThrow(RangeError);
  });
});

describe('sendResult', () => {
  it('accepts ResponseCode 0 with the CheckoutRequestID', () => {
    expect(sendResult(answer(200, { MerchantRequestID: '29115-34620561-1', CheckoutRequestID: 'ws_CO_191220191020363925', ResponseCode: '0', ResponseDescription: 'Success. Request accepted for processing' }))).toEqual({
      kind: 'accepted', vendorReference: 'ws_CO_191220191020363925',
    });
  });

  it('refuses a 400, retries a 5xx or a refused connection, and never resends blindly after a lost answer', () => {
    expect(sendResult(answer(400, { requestId: 'x', errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid PhoneNumber' }))).toMatchObject({ kind: 'refused', detail: expect.stringContaining('Invalid PhoneNumber') });
    expect(sendResult(answer(500, { errorCode: '500.001.1001', errorMessage: 'Unable to lock subscriber' })).kind).toBe('retry');
    expect(sendResult({ kind: 'no_answer', sent: false, detail: 'ECONNREFUSED' }).kind).toBe('retry');
    expect(sendResult({ kind: 'no_answer', sent: true, detail: 'timeout' }).kind).toBe('unknown');
    expect(sendResult(answer(200, 'garbage')).kind).toBe('unknown');
  });

  it('knows Daraja refuses a token with 404.001.03', () => {
    expect(tokenRefused(answer(404, { requestId: 'x', errorCode: '404.001.03', errorMessage: 'Invalid Access Token' }))).toBe(true);
    expect(tokenRefused(answer(404, { errorCode: '404.002.01' }))).toBe(false);
  });
});

describe('queryResult', () => {
  it.each([
    ['0', 'COMPLETED'],
    ['1', 'FAILED'],
    ['1032', 'CANCELLED'],
    ['1037', 'FAILED'],
    ['1019', 'FAILED'],
    ['2001', 'FAILED'],
    ['1001', 'FAILED'],
  ])('reads ResultCode %s as %s', (code, status) => {
    const r = queryResult(answer(200, { ResponseCode: '0', MerchantRequestID: 'm', CheckoutRequestID: 'c', ResultCode: code, ResultDesc: 'desc' }));
    expect(r).toMatchObject({ kind: 'observed', observed: { status, unmapped: false } });
  });

  it('reads "The transaction is being processed" (HTTP 500) as PENDING', () => {
    expect(queryResult(answer(500, { requestId: 'x', errorCode: '500.001.1001', errorMessage: 'The transaction is being processed' }))).toMatchObject({
      kind: 'observed', observed: { status: 'PENDING' },
    });
  });

  it('reads an unknown ResultCode as PENDING, marked unmapped', () => {
    expect(queryResult(answer(200, { ResultCode: '4242', ResultDesc: 'new' }))).toMatchObject({ kind: 'observed', observed: { status: 'PENDING', unmapped: true } });
  });

  it('an unknown CheckoutRequestID was never received; other errors are unavailable', () => {
    expect(queryResult(answer(400, { errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid CheckoutRequestID' }))).toEqual({ kind: 'not_found' });
    expect(queryResult(answer(503)).kind).toBe('unavailable');
    expect(queryResult({ kind: 'no_answer', sent: true, detail: 'x' }).kind).toBe('unavailable');
  });
});

describe('callbackNote', () => {
  it('takes the CheckoutRequestID and, on success, the Amount of CallbackMetadata', () => {
    const body = {
      Body: { stkCallback: { MerchantRequestID: '29115-34620561-1', CheckoutRequestID: 'ws_CO_191220191020363925', ResultCode: 0, ResultDesc: 'The service request is processed successfully.',
        CallbackMetadata: { Item: [{ Name: 'Amount', Value: 1.0 }, { Name: 'MpesaReceiptNumber', Value: 'NLJ7RT61SV' }, { Name: 'Balance' }, { Name: 'TransactionDate', Value: 20191219102115 }, { Name: 'PhoneNumber', Value: 254708374149 }] } } },
    };
    expect(callbackNote(body)).toEqual({ vendorReference: 'ws_CO_191220191020363925', reported: { amountMinor: 100n, currency: 'KES' }, receipt: 'NLJ7RT61SV' });
  });

  it('has no amount for a failure (no CallbackMetadata) and reads nothing from a stranger body', () => {
    expect(callbackNote({ Body: { stkCallback: { CheckoutRequestID: 'ws_CO_1', ResultCode: 1032, ResultDesc: 'Request cancelled by user' } } })).toEqual({ vendorReference: 'ws_CO_1', reported: null, receipt: null });
    expect(callbackNote({ hello: 'world' })).toEqual({ vendorReference: null, reported: null, receipt: null });
    expect(callbackNote(null)).toEqual({ vendorReference: null, reported: null, receipt: null });
  });
});
