// M-Pesa payout (B2C) transformers on Daraja payloads: the B2C request, what is refused before sending, the send answers, the Result codes, a Transaction Status Result (reversed included), a queue timeout and bodies that cannot be read.
import type { VendorAnswer } from '../../../src/processors/transport';
import { payoutCallbackNote, payoutSendResult, toB2c } from '../../../src/processors/mpesa/payout-transformers';
import type { PayoutOrder } from '../../../src/processors/types';

const answer = (status: number, json?: unknown): VendorAnswer => ({ kind: 'answer', status, text: json === undefined ? '' : JSON.stringify(json), json });
const credentials = { short_code: '174379', initiator_name: 'testapi', security_credential: 'c2VjcmV0'.repeat(20) };

const order: PayoutOrder = {
  reference: 'c1b2a3d4-0000-4000-8000-000000000001',
  gatewayReference: 'PCPAYOUTABCDEFGHJKLMNPQRS',
  amountMinor: 150_000n,
  currency: 'KES',
  paymentMethod: 'MOBILE_MONEY',
  accountNumber: '+254708374149',
  bankCode: null,
  accountName: 'Jane Driver',
  narration: "Driver's pay",
  callbackUrl: 'https://pay.example.net/callbacks/mpesa/token',
};

test('toB2c sends our reference, whole shillings, the phone without its plus sign, from the B2C short code when set', () => {
  expect(toB2c(credentials, order)).toEqual({
    OriginatorConversationID: order.reference,
    InitiatorName: 'testapi',
    SecurityCredential: credentials.security_credential,
    CommandID: 'BusinessPayment',
    Amount: 1500,
    PartyA: '174379',
    PartyB: '254708374149',
    Remarks: 'Driver s pay',
    QueueTimeOutURL: order.callbackUrl,
    ResultURL: order.callbackUrl,
    Occasion: order.gatewayReference,
  });
  expect(toB2c({ ...credentials, b2c_short_code: '600996' }, order)).toMatchObject({ PartyA: '600996' });
  expect(toB2c(credentials, { ...order, narration: '' })).toMatchObject({ Remarks: 'Payout' });
  expect(toB2c(credentials, { ...order, amountMinor: 150_001n })).toEqual({ refused: 'M-Pesa pays out whole Kenyan shillings only' });
  expect(toB2c(credentials, { ...order, paymentMethod: 'BANK', bankCode: '01' })).toEqual({ refused: 'M-Pesa pays out to M-Pesa phone numbers only, not to bank accounts' });
});

test.each([
  [answer(200, { ConversationID: 'AG_1', OriginatorConversationID: order.reference, ResponseCode: '0', ResponseDescription: 'Accept the service request successfully.' }), { kind: 'accepted', vendorReference: order.reference }],
  [answer(400, { errorCode: '400.002.02', errorMessage: 'Bad Request - Duplicate OriginatorConversationID' }), { kind: 'accepted', vendorReference: order.reference }],
  [answer(400, { errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid PartyB' }), { kind: 'refused', message: 'M-Pesa refused the payout request' }],
  [answer(200, { ResponseCode: '1' }), { kind: 'unknown' }],
  [answer(500, { errorCode: '500.003.02' }), { kind: 'retry' }],
  [{ kind: 'no_answer', sent: true, detail: 'timeout' } as VendorAnswer, { kind: 'unknown' }],
  [{ kind: 'no_answer', sent: false, detail: 'refused' } as VendorAnswer, { kind: 'retry' }],
])('payoutSendResult %#', (a, expected) => {
  expect(payoutSendResult(a, order.reference)).toMatchObject(expected);
});

const result = (code: string | number, params?: { Key: string; Value: unknown }[], type = 0) => ({
  Result: { ResultType: type, ResultCode: code, ResultDesc: 'desc', OriginatorConversationID: order.reference, ConversationID: 'AG_1', ...(params ? { ResultParameters: { ResultParameter: params } } : {}) },
});

test('a B2C Result through the table: success with TransactionAmount, each failure code, an unknown code flagged', () => {
  expect(payoutCallbackNote(result(0, [{ Key: 'TransactionAmount', Value: 1500 }, { Key: 'TransactionReceipt', Value: 'TK1234ABCD' }]))).toMatchObject({
    vendorReference: order.reference, reported: { amountMinor: 150_000n, currency: 'KES' }, observed: { status: 'COMPLETED', amountMinor: 150_000n },
  });
  expect(payoutCallbackNote(result('2040')).observed).toMatchObject({ status: 'FAILED', message: 'The phone number is not a registered M-Pesa customer' });
  expect(payoutCallbackNote(result(1)).observed).toMatchObject({ status: 'FAILED', message: "The merchant's M-Pesa B2C account has too little money" });
  expect(payoutCallbackNote(result('SFC_NEW')).observed).toMatchObject({ status: 'PENDING', unmapped: true });
  expect(payoutCallbackNote(result('1037', undefined, 1)).observed).toMatchObject({ status: 'PENDING', unmapped: false });
});

test('a Transaction Status Result that found nothing (R000002, no TransactionStatus) names no payout: its head is the query\'s own id', () => {
  const found = { Result: { ResultType: 0, ResultCode: 'R000002', ResultDesc: 'The OriginalTransactionID is invalid.', OriginatorConversationID: '8ce9-9449-0a6b93e445ef9768805', ConversationID: 'AG_2' } };
  expect(payoutCallbackNote(found)).toMatchObject({ vendorReference: null, observed: { status: 'PENDING', unmapped: true } });
});

test('a Transaction Status Result names the payout by its parameter and reads Reversed as REVERSED', () => {
  const status = (word: string) => ({
    Result: {
      ResultType: 0, ResultCode: 0, ResultDesc: 'ok', OriginatorConversationID: 'query-own-id', ConversationID: 'AG_2',
      ResultParameters: { ResultParameter: [{ Key: 'OriginatorConversationID', Value: order.reference }, { Key: 'TransactionStatus', Value: word }, { Key: 'Amount', Value: '1500' }] },
    },
  });
  expect(payoutCallbackNote(status('Completed'))).toMatchObject({ vendorReference: order.reference, reported: { amountMinor: 150_000n }, observed: { status: 'COMPLETED' } });
  expect(payoutCallbackNote(status('Reversed'))).toMatchObject({ vendorReference: order.reference, reported: null, observed: { status: 'REVERSED', message: 'M-Pesa reversed the payout' } });
  expect(payoutCallbackNote(status('Pending')).observed?.status).toBe('PENDING');
  expect(payoutCallbackNote(status('Something')).observed).toMatchObject({ status: 'PENDING', unmapped: true });
});

test('bodies that are not a Result are empty notes', () => {
  for (const body of [null, 'garbage', 42, {}, { Result: 'x' }]) expect(payoutCallbackNote(body)).toEqual({ vendorReference: null, reported: null, observed: null });
});
