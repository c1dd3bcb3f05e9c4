// Proves M-Pesa refunds (reversals) against the fake over real HTTP: the asynchronous Result on the refund's callback URL, failures, a second reversal, a lost Result settled by the Transaction Status query, the queue timeout, lost and unreadable answers, refunds refused before sending, and the receipt confirmed with Transaction Status before a reversal names it.
import { mpesaProcessor } from '../../../src/processors/mpesa';
import { RECEIPT_UNKNOWN } from '../../../src/processors/mpesa/refund-transformers';
import type { CallContext, CallbackNote, RefundConnector, RefundOrder } from '../../../src/processors/types';
import { FakeMpesa } from '../../fakes/mpesa';
import { eventually, startReceiver } from '../../helpers/notify-fixtures';
import type { Receiver } from '../../helpers/notify-fixtures';

let fake: FakeMpesa;
let hooks: Receiver;
let refunds: RefundConnector;
let ctx: CallContext;
let n = 0;

beforeAll(async () => {
  fake = new FakeMpesa({ answerAfterMs: 10 });
  await fake.start();
  hooks = await startReceiver();
  const processor = mpesaProcessor({ baseUrl: fake.url, timeoutMs: 4000, tokenMarginMs: 1000 });
  refunds = processor.connector!.refunds!;
  ctx = { midId: 1, credentials: fake.refundCredentials() };
});

afterAll(async () => {
  await hooks?.close();
  await fake?.stop();
});

afterEach(() => {
  fake.mode = 'up';
});

/** An STK push the fake has completed (with its receipt), as the refund's original. */
async function collected(shillings = 1500): Promise<RefundOrder['original']> {
  n += 1;
  const sent = await mpesaProcessor({ baseUrl: fake.url, timeoutMs: 2000, tokenMarginMs: 1000 }).connector!.initiate(ctx, {
    reference: `req-${n}`, gatewayReference: `PCMP${n}X`, amountMinor: BigInt(shillings) * 100n, currency: 'KES', accountNumber: '254708374149',
    narration: 'Order', callbackUrl: `${hooks.url}/pay${n}`,
  });
  if (sent.kind !== 'accepted') throw new Error(`push not accepted: ${sent.kind}`);
  const push = await eventually(() => fake.pushes.get(sent.vendorReference!)?.receipt, 10_000, 'receipt');
  return { reference: `req-${n}`, vendorReference: sent.vendorReference, receipt: push, amountMinor: BigInt(shillings) * 100n, accountNumber: '254708374149' };
}

function order(original: RefundOrder['original'], o: Partial<RefundOrder> = {}): RefundOrder {
  n += 1;
  return { reference: `ref-${n}`, gatewayReference: `PCMPREF${n}`, original, amountMinor: original.amountMinor, currency: 'KES', reason: 'Order cancelled', callbackUrl: `${hooks.url}/refund${n}`, ...o };
}

/** The notes of the bodies posted to a refund's callback URL, in order. */
function notes(o: RefundOrder): CallbackNote[] {
  const path = new URL(o.callbackUrl).pathname;
  return hooks.received.filter((r) => r.path === path).map((r) => refunds.parseRefundCallback(JSON.parse(r.body)));
}

async function finalNote(o: RefundOrder, status: string): Promise<CallbackNote> {
  return eventually(() => notes(o).find((x) => x.observed?.status === status), 10_000, `a ${status} result`);
}

test('a full reversal is accepted with its OriginatorConversationID; the Result on the callback URL completes it', async () => {
  const original = await collected();
  const o = order(original);
  const sent = await refunds.initiateRefund(ctx, o);
  if (sent.kind !== 'accepted') throw new Error(`expected accepted, got ${sent.kind}`);
  const reversal = fake.reversals.get(sent.vendorReference!)!;
  expect(reversal).toMatchObject({ transactionId: original.receipt, amount: 1500, resultUrl: o.callbackUrl, queueTimeOutUrl: o.callbackUrl, remarks: 'Order cancelled', occasion: o.gatewayReference });
  const note = await finalNote(o, 'COMPLETED');
  expect(note).toMatchObject({ vendorReference: sent.vendorReference, reported: { amountMinor: 150_000n, currency: 'KES' } });
  expect(note.observed).toMatchObject({ vendorStatus: 'ResultCode 0 The service request is processed successfully.', amountMinor: 150_000n, unmapped: false });
});

test('a failed reversal (balance too low) and a wrong security credential are FAILED with a reason', async () => {
  fake.failNextReversal('1');
  const low = order(await collected());
  expect((await refunds.initiateRefund(ctx, low)).kind).toBe('accepted');
  expect((await finalNote(low, 'FAILED')).observed?.message).toBe("The merchant's M-Pesa account has too little money for the reversal");

  const wrong: CallContext = { midId: 2, credentials: { ...fake.refundCredentials(), security_credential: fake.securityCredential('not-the-password') } };
  const o = order(await collected());
  expect((await refunds.initiateRefund(wrong, o)).kind).toBe('accepted');
  expect((await finalNote(o, 'FAILED')).observed).toMatchObject({ vendorStatus: expect.stringContaining('ResultCode 2001'), message: 'M-Pesa refused the reversal initiator name or security credential' });
});

test('a second reversal of the same receipt is answered "already reversed", read as held for an operator, and the first stands', async () => {
  const original = await collected();
  const first = order(original);
  await refunds.initiateRefund(ctx, first);
  await finalNote(first, 'COMPLETED');
  const second = order(original);
  expect((await refunds.initiateRefund(ctx, second)).kind).toBe('accepted');
  const held = await eventually(() => notes(second).find((x) => x.observed?.held), 10_000, 'the already reversed result');
  expect(held.observed).toMatchObject({ status: 'PENDING', vendorStatus: 'ResultCode R000001 The transaction has already been reversed.', held: true });
  expect([...fake.reversals.values()].filter((r) => r.transactionId === original.receipt).map((r) => r.resultCode)).toEqual(['0', 'R000001']);
});

test('a lost Result is settled by the Transaction Status query, whose own Result names the reversal', async () => {
  const o = order(await collected());
  fake.dropResultsTo.set(o.callbackUrl, 1);
  const sent = await refunds.initiateRefund(ctx, o);
  if (sent.kind !== 'accepted') throw new Error('expected accepted');
  await eventually(() => fake.reversals.get(sent.vendorReference!)?.resultCode === '0', 10_000, 'reversal carried out');
  expect(notes(o)).toEqual([]);
  const q = await refunds.queryRefund(ctx, { reference: o.reference, vendorReference: sent.vendorReference, callbackUrl: o.callbackUrl });
  expect(q).toMatchObject({ kind: 'observed', observed: { status: 'PENDING', unmapped: false, vendorStatus: expect.stringContaining('TransactionStatusQuery accepted') } });
  const note = await finalNote(o, 'COMPLETED');
  expect(note).toMatchObject({ vendorReference: sent.vendorReference, reported: { amountMinor: 150_000n, currency: 'KES' } });
  expect(note.observed?.vendorStatus).toBe('TransactionStatus Completed');
});

test('the queue timeout notice reads PENDING; the late Result completes the refund', async () => {
  fake.queueTimeoutNext = 1;
  const o = order(await collected());
  const sent = await refunds.initiateRefund(ctx, o);
  if (sent.kind !== 'accepted') throw new Error('expected accepted');
  const first = await eventually(() => notes(o).find((x) => x.observed?.status === 'PENDING'), 10_000, 'queue timeout notice');
  expect(first).toMatchObject({ vendorReference: sent.vendorReference, reported: null, observed: { status: 'PENDING', unmapped: false } });
  expect((await finalNote(o, 'COMPLETED')).vendorReference).toBe(sent.vendorReference);
});

test('a lost or unreadable answer is unknown, never resent; the Result still names the reversal', async () => {
  fake.swallowReversal = 1;
  const lost = order(await collected());
  expect((await refunds.initiateRefund(ctx, lost)).kind).toBe('unknown');
  expect(await refunds.queryRefund(ctx, { reference: lost.reference, vendorReference: null, callbackUrl: lost.callbackUrl })).toMatchObject({ kind: 'unavailable' });
  const note = await finalNote(lost, 'COMPLETED');
  expect(fake.reversals.get(note.vendorReference!)?.transactionId).toBe(lost.original.receipt);

  fake.garbageReversal = 1;
  const garbled = order(await collected());
  expect((await refunds.initiateRefund(ctx, garbled)).kind).toBe('unknown');
  await finalNote(garbled, 'COMPLETED');
});

test('a status query for a reversal M-Pesa does not know: its failed Result names the query, not the reversal; no callback URL: unavailable', async () => {
  const o = order(await collected());
  expect(await refunds.queryRefund(ctx, { reference: o.reference, vendorReference: 'abcd-1234-unknown', callbackUrl: o.callbackUrl })).toMatchObject({ kind: 'observed', observed: { status: 'PENDING' } });
  const note = await eventually(() => notes(o)[0], 10_000, 'status result');
  // Daraja's failed Result looks like a failed reversal's; only its OriginatorConversationID (the query's own) tells them apart
  expect(note.observed?.status).toBe('FAILED');
  expect(note.vendorReference).toEqual(expect.any(String));
  expect(note.vendorReference).not.toBe('abcd-1234-unknown');
  expect(fake.reversals.has(note.vendorReference!)).toBe(false);
  expect((await refunds.queryRefund(ctx, { reference: o.reference, vendorReference: 'abcd-1234-unknown' })).kind).toBe('unavailable');
  fake.mode = 'error';
  expect((await refunds.queryRefund(ctx, { reference: o.reference, vendorReference: 'abcd-1234-unknown', callbackUrl: o.callbackUrl })).kind).toBe('unavailable');
});

test('refused before sending: a partial amount, no receipt, another currency, a MID without an initiator', async () => {
  const original = await collected();
  const before = fake.reversals.size;
  expect(await refunds.initiateRefund(ctx, order(original, { amountMinor: 50_000n }))).toMatchObject({ kind: 'refused', message: 'M-Pesa reverses a whole payment only: refund the full amount' });
  expect(await refunds.initiateRefund(ctx, order({ ...original, receipt: null }))).toMatchObject({ kind: 'refused', message: RECEIPT_UNKNOWN });
  expect(await refunds.initiateRefund(ctx, order(original, { currency: 'USD' }))).toMatchObject({ kind: 'refused', message: 'M-Pesa refunds whole Kenyan shillings only' });
  const noInitiator: CallContext = { midId: 3, credentials: fake.credentials() };
  expect(await refunds.initiateRefund(noInitiator, order(original))).toMatchObject({ kind: 'refused', message: 'This M-Pesa MID has no reversal initiator, so it cannot refund' });
  expect(fake.reversals.size).toBe(before);
});

test('an outage is retried; a bad field is refused', async () => {
  const original = await collected();
  fake.mode = 'error';
  expect((await refunds.initiateRefund(ctx, order(original))).kind).toBe('retry');
  fake.mode = 'up';
  const badShortCode: CallContext = { midId: 4, credentials: { ...fake.refundCredentials(), short_code: '600000' } };
  expect(await refunds.initiateRefund(badShortCode, order(original))).toMatchObject({ kind: 'refused', message: 'M-Pesa refused the reversal request' });
});

test('the receipt is asked about with Transaction Status and its Result judged: the payment itself is confirmed, another customer\'s is not; no receipt or no initiator asks nothing', async () => {
  const check = refunds.originalCheck!;
  const original = await collected();
  const o = order(original);
  const asked = await check.ask(ctx, o);
  if (asked.kind !== 'asked') throw new Error(`expected asked, got ${asked.kind}`);
  expect(fake.statusQueries.at(-1)).toEqual({ transactionId: original.receipt, originalConversationId: null, resultUrl: o.callbackUrl });
  const path = new URL(o.callbackUrl).pathname;
  const body = JSON.parse((await eventually(() => hooks.received.find((r) => r.path === path), 10_000, 'status Result')).body);
  expect(check.answers(body)).toBe(asked.queryReference);
  expect(check.judge(ctx.credentials, original, body)).toEqual({ verdict: 'confirmed' });
  expect(check.judge(ctx.credentials, { ...original, accountNumber: '254722000111' }, body)).toMatchObject({ verdict: 'refused', message: expect.stringContaining('another phone') });
  expect(check.judge(ctx.credentials, { ...original, amountMinor: original.amountMinor + 100n }, body)).toMatchObject({ verdict: 'refused', message: expect.stringContaining('KES 1500.00, the collection for KES 1501.00') });
  expect(check.judge({ ...ctx.credentials, short_code: '600000' }, original, body)).toMatchObject({ verdict: 'refused', message: expect.stringContaining('paid to 174379') });

  const queries = fake.statusQueries.length;
  expect(await check.ask(ctx, order({ ...original, receipt: null }))).toMatchObject({ kind: 'refused', message: RECEIPT_UNKNOWN });
  expect(await check.ask({ midId: 3, credentials: fake.credentials() }, order(original))).toMatchObject({ kind: 'refused', message: 'This M-Pesa MID has no reversal initiator, so it cannot refund' });
  expect(fake.statusQueries.length).toBe(queries);
});
