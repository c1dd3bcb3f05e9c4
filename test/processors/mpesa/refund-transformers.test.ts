// M-Pesa refund transformers on Daraja's documented payloads: the reversal and status requests, their acknowledgements, every reversal result code, the Transaction Status Result, the queue timeout notice, and bodies that cannot be read.
import type { VendorAnswer } from '../../../src/processors/transport';
import { missingReversalCredentials, RECEIPT_UNKNOWN, refundCallbackNote, reversalSendResult, statusQuerySent, toReversal, toStatusQuery } from '../../../src/processors/mpesa/refund-transformers';
import type { RefundOrder } from '../../../src/processors/types';

const answer = (status: number, json?: unknown): VendorAnswer => ({ kind: 'answer', status, text: json === undefined ? '' : JSON.stringify(json), json });
const credentials = { short_code: '600992', initiator_name: 'apiop37', security_credential: 'jUb+dOXJiBDui8FnruaFckZJQup3kmmCH5XJ4NY' };
const order: RefundOrder = {
  reference: 'ref-1',
  gatewayReference: 'PCREFUNDMPESA000001',
  original: { reference: 'req-1', vendorReference: 'ws_CO_191220191020363925', receipt: 'SKC82PACB8', amountMinor: 20_000n, accountNumber: '254708374149' },
  amountMinor: 20_000n,
  currency: 'KES',
  reason: "Customer's order: out of stock!",
  callbackUrl: 'https://pay.example.net/callbacks/mpesa/token',
};

test('toReversal names the receipt, the whole amount, the short code and the callback URL for both results', () => {
  expect(toReversal(credentials, order)).toEqual({
    Initiator: 'apiop37', SecurityCredential: credentials.security_credential, CommandID: 'TransactionReversal', TransactionID: 'SKC82PACB8', Amount: 200,
    ReceiverParty: '600992', RecieverIdentifierType: '11', ResultURL: order.callbackUrl, QueueTimeOutURL: order.callbackUrl,
    Remarks: 'Customer s order out of stock', Occasion: order.gatewayReference,
  });
  expect((toReversal(credentials, { ...order, reason: '!' }) as { Remarks: string }).Remarks).toBe('Refund');
});

test.each([
  [{ ...order, original: { ...order.original, receipt: null } }, RECEIPT_UNKNOWN],
  [{ ...order, amountMinor: 10_000n }, 'M-Pesa reverses a whole payment only: refund the full amount'],
  [{ ...order, amountMinor: 20_050n, original: { ...order.original, amountMinor: 20_050n } }, 'M-Pesa refunds whole Kenyan shillings only'],
  [{ ...order, currency: 'TZS' }, 'M-Pesa refunds whole Kenyan shillings only'],
])('toReversal refuses %#: %s', (o, refused) => {
  expect(toReversal(credentials, o)).toEqual({ refused });
});

test('toStatusQuery asks by OriginalConversationID for the short code', () => {
  expect(toStatusQuery(credentials, 'dad6-4c34-8787', 'https://x.example/cb')).toMatchObject({ CommandID: 'TransactionStatusQuery', OriginalConversationID: 'dad6-4c34-8787', PartyA: '600992', IdentifierType: '4', ResultURL: 'https://x.example/cb', QueueTimeOutURL: 'https://x.example/cb' });
  expect(missingReversalCredentials({ short_code: '1' })).toEqual(['initiator_name', 'security_credential']);
});

test.each([
  [answer(200, { OriginatorConversationID: 'f1e2-4b95', ConversationID: 'AG_20210706_2010', ResponseCode: '0', ResponseDescription: 'Accept the service request successfully.' }), 'accepted'],
  [answer(200, { ResponseCode: '1' }), 'unknown'],
  [answer(200), 'unknown'],
  [answer(400, { requestId: 'x', errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid TransactionID' }), 'refused'],
  [answer(404, { errorCode: '404.001.03', errorMessage: 'Invalid Access Token' }), 'retry'],
  [answer(500, { errorCode: '500.003.02', errorMessage: 'Spike Arrest Violation' }), 'retry'],
  [{ kind: 'no_answer', sent: true, detail: 'no answer' } as VendorAnswer, 'unknown'],
  [{ kind: 'no_answer', sent: false, detail: 'ECONNREFUSED' } as VendorAnswer, 'retry'],
])('reversalSendResult %j -> %s', (a, kind) => {
  const r = reversalSendResult(a);
  expect(r.kind).toBe(kind);
  if (r.kind === 'accepted') expect(r.vendorReference).toBe('f1e2-4b95');
});

test('statusQuerySent: accepted is PENDING until the Result; anything else unavailable', () => {
  expect(statusQuerySent(answer(200, { OriginatorConversationID: '1236-7134259-1', ConversationID: 'AG_1', ResponseCode: '0' }))).toMatchObject({ kind: 'observed', observed: { status: 'PENDING', unmapped: false } });
  expect(statusQuerySent(answer(500)).kind).toBe('unavailable');
  expect(statusQuerySent({ kind: 'no_answer', sent: true, detail: 'x' }).kind).toBe('unavailable');
});

describe('refundCallbackNote', () => {
  const success = {
    Result: {
      ResultType: 0, ResultCode: 0, ResultDesc: 'The service request is processed successfully.', OriginatorConversationID: 'dad6-4c34-8787-c8cb963a496d1268232',
      ConversationID: 'AG_20211114_201018edbbf9f1582eaa', TransactionID: 'SKE52PAWR9',
      ResultParameters: { ResultParameter: [{ Key: 'DebitAccountBalance', Value: 'Utility Account|KES|7722179.62|7722179.62|0.00|0.00' }, { Key: 'Amount', Value: 1.0 }, { Key: 'TransCompletedTime', Value: 20211114132711 }, { Key: 'OriginalTransactionID', Value: 'SKC82PACB8' }] },
      ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: 'https://internalsandbox.safaricom.co.ke/mpesa/reversalresults/v1/submit' } },
    },
  };

  it('reads the portal\'s successful reversal Result as COMPLETED with the amount reversed', () => {
    expect(refundCallbackNote(success)).toEqual({
      vendorReference: 'dad6-4c34-8787-c8cb963a496d1268232',
      reported: { amountMinor: 100n, currency: 'KES' },
      observed: { status: 'COMPLETED', vendorStatus: 'ResultCode 0 The service request is processed successfully.', message: null, amountMinor: 100n, currency: 'KES', unmapped: false },
    });
  });

  it('reads result code R000001 (already reversed) as held for an operator: PENDING, with the reason, settling nothing', () => {
    const note = refundCallbackNote({ Result: { ResultType: 0, ResultCode: 'R000001', ResultDesc: 'The transaction has already been reversed.', OriginatorConversationID: '3124-481d', TransactionID: 'SKE0000000' } });
    expect(note).toMatchObject({ vendorReference: '3124-481d', reported: null, observed: { status: 'PENDING', held: true, message: expect.stringMatching(/^M-Pesa says this payment was already reversed .*held for an operator/), unmapped: false } });
  });

  it.each([['R000002'], ['1'], ['11'], ['21'], ['2001'], ['2006'], ['2028'], ['8006']])('reads result code %s as FAILED with a message', (code) => {
    const note = refundCallbackNote({ Result: { ResultType: 0, ResultCode: code, ResultDesc: 'x', OriginatorConversationID: '3124-481d', TransactionID: 'SKE0000000' } });
    expect(note).toMatchObject({ vendorReference: '3124-481d', reported: null, observed: { status: 'FAILED', message: expect.any(String), unmapped: false } });
  });

  it('reads an unknown result code as PENDING, unmapped', () => {
    expect(refundCallbackNote({ Result: { ResultType: 0, ResultCode: 'X999', OriginatorConversationID: 'a-b' } }).observed).toMatchObject({ status: 'PENDING', unmapped: true });
  });

  it('reads a Result waiting for further messages (the queue timeout notice) as PENDING', () => {
    expect(refundCallbackNote({ Result: { ResultType: 1, ResultCode: '1037', ResultDesc: 'The request timed out in the queue', OriginatorConversationID: 'a-b' } }).observed).toMatchObject({ status: 'PENDING', unmapped: false });
  });

  it('reads a Transaction Status Result by the reversal it names, with a single parameter object too', () => {
    const status = (value: string) => ({
      Result: {
        ResultType: 0, ResultCode: 0, OriginatorConversationID: '3213-416199-2',
        ResultParameters: { ResultParameter: [{ Key: 'OriginatorConversationID', Value: '3211-416020-3' }, { Key: 'TransactionStatus', Value: value }, { Key: 'Amount', Value: '300' }, { Key: 'ReceiptNo', Value: 'MBN31H462N' }] },
      },
    });
    expect(refundCallbackNote(status('Completed'))).toMatchObject({ vendorReference: '3211-416020-3', reported: { amountMinor: 30_000n }, observed: { status: 'COMPLETED' } });
    expect(refundCallbackNote(status('Pending')).observed?.status).toBe('PENDING');
    // "Failed" says not why: an already-reversed payment reads so too, so it is held for an operator
    expect(refundCallbackNote(status('Failed'))).toMatchObject({ reported: null, observed: { status: 'PENDING', held: true } });
    expect(refundCallbackNote(status('Declined'))).toMatchObject({ reported: null, observed: { status: 'FAILED' } });
    expect(refundCallbackNote(status('Weird')).observed).toMatchObject({ status: 'PENDING', unmapped: true });
    const single = { Result: { ResultType: 0, ResultCode: 0, OriginatorConversationID: '9-9', ResultParameters: { ResultParameter: { Key: 'TransactionStatus', Value: 'Completed' } } } };
    expect(refundCallbackNote(single)).toMatchObject({ vendorReference: '9-9', observed: { status: 'COMPLETED', amountMinor: null } });
  });

  it.each([[null], ['text'], [[]], [{ Result: 'x' }], [{ Result: { OriginatorConversationID: '<script>' } }], [{ Body: { stkCallback: {} } }]])('never throws on %j and gives no verdict', (body) => {
    const note = refundCallbackNote(body);
    expect(note.observed ?? null).toBeNull();
    expect(note.reported).toBeNull();
  });
});
