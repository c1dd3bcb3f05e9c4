// Proves M-Pesa payouts (B2C) against the fake over real HTTP: our reference as the OriginatorConversationID, the asynchronous Result on the payout's callback URL, failures, a reused reference, a lost answer and a lost Result settled by the Transaction Status query, the queue timeout, a reversal seen by the query, and payouts refused before sending.
import { mpesaProcessor } from '../../../src/processors/mpesa';
import type { CallContext, CallbackNote, PayoutConnector, PayoutObservedStatus, PayoutOrder } from '../../../src/processors/types';
import { FakeMpesa, MPESA_UNREGISTERED } from '../../fakes/mpesa';
import { eventually, startReceiver } from '../../helpers/notify-fixtures';
import type { Receiver } from '../../helpers/notify-fixtures';

let fake: FakeMpesa;
let hooks: Receiver;
let payouts: PayoutConnector;
let ctx: CallContext;
let n = 0;

beforeAll(async () => {
  fake = new FakeMpesa({ answerAfterMs: 10 });
  await fake.start();
  hooks = await startReceiver();
  payouts = mpesaProcessor({ baseUrl: fake.url, timeoutMs: 4000, tokenMarginMs: 1000 }).connector!.payouts!;
  ctx = { midId: 1, credentials: fake.payoutCredentials() };
});

afterAll(async () => {
  await hooks?.close();
  await fake?.stop();
});

afterEach(() => {
  fake.mode = 'up';
});

function order(o: Partial<PayoutOrder> = {}): PayoutOrder {
  n += 1;
  return {
    reference: `out-${n}-${Date.now()}`, gatewayReference: `PCMPOUT${n}`, amountMinor: 250_000n, currency: 'KES', paymentMethod: 'MOBILE_MONEY',
    accountNumber: '+254708374149', bankCode: null, accountName: 'Jane Driver', narration: 'Weekly earnings', callbackUrl: `${hooks.url}/payout${n}`, ...o,
  };
}

/** The notes of the bodies posted to a payout's callback URL, in order. */
function notes(o: PayoutOrder): CallbackNote<PayoutObservedStatus>[] {
  const path = new URL(o.callbackUrl).pathname;
  return hooks.received.filter((r) => r.path === path).map((r) => payouts.parsePayoutCallback(JSON.parse(r.body)));
}

async function finalNote(o: PayoutOrder, status: PayoutObservedStatus, vendorStatus?: string): Promise<CallbackNote<PayoutObservedStatus>> {
  return eventually(() => notes(o).find((x) => x.observed?.status === status && (!vendorStatus || x.observed.vendorStatus.startsWith(vendorStatus))), 10_000, `a ${status} result`);
}

test('a payout is a B2C BusinessPayment from the B2C short code under our reference; the Result completes it', async () => {
  const o = order();
  expect(await payouts.initiatePayout(ctx, o)).toEqual({ kind: 'accepted', vendorReference: o.reference });
  expect(fake.payments.get(o.reference)).toMatchObject({ commandId: 'BusinessPayment', amount: 2500, partyA: fake.o.b2cShortCode, partyB: '254708374149', resultUrl: o.callbackUrl, queueTimeOutUrl: o.callbackUrl, remarks: 'Weekly earnings', occasion: o.gatewayReference });
  const note = await finalNote(o, 'COMPLETED');
  expect(note).toMatchObject({ vendorReference: o.reference, reported: { amountMinor: 250_000n, currency: 'KES' } });
  expect(note.observed).toMatchObject({ vendorStatus: 'ResultCode 0 The service request is processed successfully.', amountMinor: 250_000n, currency: 'KES', unmapped: false });
});

test('a balance too low, an unregistered number and a wrong security credential are FAILED with a reason', async () => {
  fake.failNextPayout('1');
  const low = order();
  expect((await payouts.initiatePayout(ctx, low)).kind).toBe('accepted');
  expect((await finalNote(low, 'FAILED')).observed?.message).toBe("The merchant's M-Pesa B2C account has too little money");
  const unregistered = order({ accountNumber: MPESA_UNREGISTERED });
  expect((await payouts.initiatePayout(ctx, unregistered)).kind).toBe('accepted');
  expect((await finalNote(unregistered, 'FAILED')).observed?.message).toBe('The phone number is not a registered M-Pesa customer');
  const wrong: CallContext = { midId: 2, credentials: { ...fake.payoutCredentials(), security_credential: fake.securityCredential('not-the-password') } };
  const o = order();
  expect((await payouts.initiatePayout(wrong, o)).kind).toBe('accepted');
  expect((await finalNote(o, 'FAILED')).observed).toMatchObject({ vendorStatus: expect.stringContaining('ResultCode 2001'), message: 'M-Pesa refused the initiator name or security credential' });
});

test('a resend under the same OriginatorConversationID is refused as a duplicate by M-Pesa and read as accepted: one payment', async () => {
  const o = order();
  expect((await payouts.initiatePayout(ctx, o)).kind).toBe('accepted');
  expect(await payouts.initiatePayout(ctx, o)).toEqual({ kind: 'accepted', vendorReference: o.reference });
  expect(fake.calls.filter((c) => c.path === '/mpesa/b2c/v3/paymentrequest').map((c) => c.status).slice(-1)).toEqual([400]);
  expect([...fake.payments.values()].filter((p) => p.occasion === o.gatewayReference)).toHaveLength(1);
});

test('a lost answer is unknown, never resent; the Transaction Status query by our reference settles it on the callback URL', async () => {
  fake.swallowPayout = 1;
  const o = order();
  fake.dropResultsTo.set(o.callbackUrl, 1);
  expect((await payouts.initiatePayout(ctx, o)).kind).toBe('unknown');
  await eventually(() => fake.payments.get(o.reference)?.resultCode === '0', 10_000, 'paid');
  expect(notes(o)).toEqual([]);
  const q = await payouts.queryPayout(ctx, { reference: o.reference, vendorReference: null, callbackUrl: o.callbackUrl });
  expect(q).toMatchObject({ kind: 'observed', observed: { status: 'PENDING', vendorStatus: expect.stringContaining('TransactionStatusQuery accepted') } });
  const note = await finalNote(o, 'COMPLETED');
  expect(note).toMatchObject({ vendorReference: o.reference, reported: { amountMinor: 250_000n, currency: 'KES' } });
  expect(note.observed?.vendorStatus).toBe('TransactionStatus Completed');
  expect([...fake.payments.values()].filter((p) => p.occasion === o.gatewayReference)).toHaveLength(1);
});

test('a queue timeout is PENDING; the late Result completes the payout', async () => {
  fake.queueTimeoutNext = 1;
  const o = order();
  expect((await payouts.initiatePayout(ctx, o)).kind).toBe('accepted');
  const first = await eventually(() => notes(o)[0], 10_000, 'the queue timeout notice');
  expect(first).toMatchObject({ vendorReference: o.reference, reported: null, observed: { status: 'PENDING', vendorStatus: expect.stringContaining('ResultType 1') } });
  await finalNote(o, 'COMPLETED');
});

test('a payout reversed after it completed reads REVERSED through the Transaction Status query', async () => {
  const o = order();
  expect((await payouts.initiatePayout(ctx, o)).kind).toBe('accepted');
  await finalNote(o, 'COMPLETED');
  fake.reversePayout(o.reference);
  expect((await payouts.queryPayout(ctx, { reference: o.reference, vendorReference: o.reference, callbackUrl: o.callbackUrl })).kind).toBe('observed');
  expect((await finalNote(o, 'REVERSED')).observed).toMatchObject({ vendorStatus: 'TransactionStatus Reversed', message: 'M-Pesa reversed the payout' });
});

test('a bank payout, another currency, part of a shilling, a foreign number or a MID without an initiator is refused, nothing sent', async () => {
  const before = fake.calls.length;
  expect(await payouts.initiatePayout(ctx, order({ paymentMethod: 'BANK', accountNumber: '0123456789', bankCode: '01' }))).toMatchObject({ kind: 'refused', message: 'M-Pesa pays out to M-Pesa phone numbers only, not to bank accounts' });
  expect(await payouts.initiatePayout(ctx, order({ currency: 'UGX' }))).toMatchObject({ kind: 'refused', message: 'M-Pesa pays out whole Kenyan shillings only' });
  expect(await payouts.initiatePayout(ctx, order({ amountMinor: 250_050n }))).toMatchObject({ kind: 'refused', message: 'M-Pesa pays out whole Kenyan shillings only' });
  expect(await payouts.initiatePayout(ctx, order({ accountNumber: '+256772123456' }))).toMatchObject({ kind: 'refused', message: expect.stringContaining('Kenyan phone number') });
  const collectionOnly: CallContext = { midId: 3, credentials: fake.credentials() };
  expect(await payouts.initiatePayout(collectionOnly, order())).toMatchObject({ kind: 'refused', message: 'This M-Pesa MID has no B2C initiator, so it cannot pay out' });
  expect((await payouts.queryPayout(collectionOnly, { reference: 'x', vendorReference: null, callbackUrl: 'https://x.example/cb' })).kind).toBe('unavailable');
  expect((await payouts.queryPayout(ctx, { reference: 'x', vendorReference: null })).kind).toBe('unavailable');
  expect(fake.calls.slice(before)).toEqual([]);
});
