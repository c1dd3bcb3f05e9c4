// The M-Pesa receipt on Daraja's documented payloads: taken from the STK callback's CallbackMetadata, asked about with the Transaction Status query by TransactionID, and the query's Result judged against the collection and the MID (short code or till, amount, customer, status, receipt) before a reversal may name it.
import type { VendorAnswer } from '../../../src/processors/transport';
import { confirmationAnswers, confirmationSent, judgeOriginal, toReceiptStatusQuery } from '../../../src/processors/mpesa/receipt-transformers';
import { callbackNote } from '../../../src/processors/mpesa/transformers';
import type { RefundOrder } from '../../../src/processors/types';

const answer = (status: number, json?: unknown): VendorAnswer => ({ kind: 'answer', status, text: json === undefined ? '' : JSON.stringify(json), json });
const credentials = { short_code: '4149503', initiator_name: 'apiop37', security_credential: 'jUb+dOXJiBDui8FnruaFckZJQup3kmmCH5XJ4NY' };
const original: RefundOrder['original'] = { reference: 'req-1', vendorReference: 'ws_CO_1', receipt: 'TAH5J2K991', amountMinor: 100n, accountNumber: '254790422909' };

function stk(resultCode: number, items: { Name: string; Value?: unknown }[]) {
  return { Body: { stkCallback: { MerchantRequestID: '29115-34620561-1', CheckoutRequestID: 'ws_CO_191220191020363925', ResultCode: resultCode, ResultDesc: 'x', CallbackMetadata: { Item: items } } } };
}

test('the STK callback gives the receipt of a success only, and only in its ten-character form', () => {
  const paid = [{ Name: 'Amount', Value: 1 }, { Name: 'MpesaReceiptNumber', Value: 'NLJ7RT61SV' }, { Name: 'Balance' }, { Name: 'PhoneNumber', Value: 254708374149 }];
  expect(callbackNote(stk(0, paid))).toMatchObject({ vendorReference: 'ws_CO_191220191020363925', receipt: 'NLJ7RT61SV', reported: { amountMinor: 100n } });
  expect(callbackNote(stk(1032, paid)).receipt).toBeNull();
  expect(callbackNote(stk(0, [{ Name: 'MpesaReceiptNumber', Value: "NLJ7'; DROP" }])).receipt).toBeNull();
  expect(callbackNote(stk(0, [{ Name: 'MpesaReceiptNumber', Value: 123 }])).receipt).toBeNull();
  expect(callbackNote(null).receipt).toBeNull();
});

test('the receipt is asked about by TransactionID from the collecting short code, its Result to the refund URL', () => {
  expect(toReceiptStatusQuery(credentials, 'TAH5J2K991', 'https://x.example/cb')).toMatchObject({
    CommandID: 'TransactionStatusQuery', TransactionID: 'TAH5J2K991', PartyA: '4149503', IdentifierType: '4', ResultURL: 'https://x.example/cb', QueueTimeOutURL: 'https://x.example/cb', Initiator: 'apiop37',
  });
});

test.each([
  [answer(200, { OriginatorConversationID: '6b16-43f4-a9f6', ConversationID: 'AG_1', ResponseCode: '0' }), 'asked'],
  [answer(200, { ResponseCode: '0' }), 'retry'],
  [answer(400, { errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid TransactionID' }), 'refused'],
  [answer(404, { errorCode: '404.001.03', errorMessage: 'Invalid Access Token' }), 'retry'],
  [answer(500), 'retry'],
  [{ kind: 'no_answer', sent: true, detail: 'no answer' } as VendorAnswer, 'retry'],
])('confirmationSent %j -> %s', (a, kind) => {
  const r = confirmationSent(a);
  expect(r.kind).toBe(kind);
  if (r.kind === 'asked') expect(r.queryReference).toBe('6b16-43f4-a9f6');
});

/** A Transaction Status Result about a Pay Bill Online payment, as published (parameters overridable). */
function result(over: Record<string, unknown> = {}, head: Record<string, unknown> = {}) {
  const base: Record<string, unknown> = {
    DebitPartyName: '0790422909 - Dennis  ngari mwangi', CreditPartyName: '4149503 -  TECH TUTOR ENTERPRISE', OriginatorConversationID: '6b16-43f4-a9f6-8e81ad29eeab2987739',
    InitiatedTime: 20250117170614, ReasonType: 'Pay Bill Online', TransactionStatus: 'Completed', Amount: 1.0, ReceiptNo: 'TAH5J2K991', ...over,
  };
  const ResultParameter = Object.entries(base).filter(([, v]) => v !== undefined).map(([Key, Value]) => ({ Key, Value }));
  return { Result: { ResultType: 0, ResultCode: 0, ResultDesc: 'The service request is processed successfully.', OriginatorConversationID: '21dc-4436-8408', ConversationID: 'AG_20250117_1', TransactionID: 'TAH0000000', ResultParameters: { ResultParameter }, ...head } };
}

test('the Result names the query by its own OriginatorConversationID, not the payment\'s parameter', () => {
  expect(confirmationAnswers(result())).toBe('21dc-4436-8408');
  expect(confirmationAnswers({ Body: {} })).toBeNull();
  expect(confirmationAnswers('garbage')).toBeNull();
});

test.each([
  ['the published Result', result(), original, credentials],
  ['the phone after the name, international', result({ DebitPartyName: 'Dennis - 254790422909' }), original, credentials],
  ['a masked phone', result({ DebitPartyName: '254790***909 - Dennis' }), original, credentials],
  ['a till (party_b) credited', result({ CreditPartyName: '5511200 - TILL', ReasonType: 'Buy Goods Online' }), original, { ...credentials, party_b: '5511200' }],
])('confirmed: %s', (_, body, o, c) => {
  expect(judgeOriginal(c, o, body)).toEqual({ verdict: 'confirmed' });
});

test.each([
  ['another receipt', result({ ReceiptNo: 'TAH5J2K000' }), 'it answered about receipt TAH5J2K000'],
  ['not completed', result({ TransactionStatus: 'Failed' }), 'its status is Failed'],
  ['no status', result({ TransactionStatus: undefined }), 'its status is not given'],
  ['another amount', result({ Amount: 250 }), 'it was for KES 250.00, the collection for KES 1.00'],
  ['no amount', result({ Amount: 'x' }), 'it was for no readable amount'],
  ['another short code', result({ CreditPartyName: '600000 - Someone Else' }), "it was paid to 600000, not this MID's short code"],
  ['no credit party', result({ CreditPartyName: undefined }), "it was paid to no named short code, not this MID's short code"],
  ['another phone', result({ DebitPartyName: '0711000001 - Jane' }), "it was paid from another phone than the collection's customer"],
  ['a masked phone that differs', result({ DebitPartyName: '254711***909 - Jane' }), "it was paid from another phone than the collection's customer"],
  ['no phone', result({ DebitPartyName: 'Jane Doe' }), "it was paid from another phone than the collection's customer"],
  ['an unknown receipt', { Result: { ResultType: 0, ResultCode: 'R000002', ResultDesc: 'The OriginalTransactionID is invalid.', OriginatorConversationID: '21dc-4436-8408' } }, 'the receipt query answered ResultCode R000002 The OriginalTransactionID is invalid.'],
  ['a refused initiator', { Result: { ResultType: 0, ResultCode: 2001, ResultDesc: 'The initiator information is invalid.', OriginatorConversationID: '21dc-4436-8408' } }, 'the receipt query answered ResultCode 2001'],
])('refused: %s', (_, body, why) => {
  const v = judgeOriginal(credentials, original, body);
  expect(v).toEqual({ verdict: 'refused', message: expect.stringContaining(why) });
  if (v.verdict === 'refused') expect(v.message).toMatch(/^M-Pesa does not confirm receipt TAH5J2K991 as this payment: /);
});

test('a queue-timeout notice or a body that is no Result waits: the payment is asked about again', () => {
  expect(judgeOriginal(credentials, original, { Result: { ResultType: 1, ResultCode: '1037', ResultDesc: 'The request timed out in the queue', OriginatorConversationID: '21dc-4436-8408' } })).toMatchObject({ verdict: 'wait' });
  expect(judgeOriginal(credentials, original, { nothing: true })).toMatchObject({ verdict: 'wait' });
});
