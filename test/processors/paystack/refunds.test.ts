// Proves Paystack refunds against the fake over real HTTP: full and partial refunds, more than is left refused, the states through fetch, signed refund.* webhooks, failure and needs-attention, a lost or unreadable answer found again by the merchant note, outages.
import { paystackProcessor } from '../../../src/processors/paystack';
import { PaystackClient } from '../../../src/processors/paystack/client';
import { signatureValid } from '../../../src/processors/paystack/transformers';
import type { CallContext, RefundConnector, RefundOrder } from '../../../src/processors/types';
import { FakePaystack, NO_3DS_CARD } from '../../fakes/paystack';
import { eventually, startReceiver } from '../../helpers/notify-fixtures';
import type { Receiver } from '../../helpers/notify-fixtures';

let fake: FakePaystack;
let hooks: Receiver;
let refunds: RefundConnector;
let ctx: CallContext;
let n = 0;

beforeAll(async () => {
  fake = new FakePaystack();
  await fake.start();
  hooks = await startReceiver();
  fake.webhookUrl = hooks.url;
  refunds = paystackProcessor({ baseUrl: fake.url, timeoutMs: 4000 }).connector!.refunds!;
  ctx = { midId: 1, credentials: { secret_key: fake.secretKey } };
});

afterAll(async () => {
  await hooks?.close();
  await fake?.stop();
});

afterEach(() => {
  fake.mode = 'up';
});

/** A card payment Paystack completed at once, as the refund's original. */
async function paid(amountMinor = 1_050_00n): Promise<RefundOrder['original']> {
  n += 1;
  const reference = `PCPAY${n}X${Date.now()}`;
  const client = new PaystackClient({ baseUrl: fake.url, secretKey: fake.secretKey, timeoutMs: 2000 });
  const card = { full_name: 'Jane Doe', card_number: NO_3DS_CARD, expiry_month: '12', expiry_year: '2030', cvv: '408', billing_address: '', billing_city: '', billing_zip: '', billing_state: '', billing_country: 'NG' };
  const a = await client.charge({ reference, amountMinor, currency: 'NGN', email: 'jane@shop.example', method: 'CARD', returnUrl: 'https://shop.example/back' }, card);
  expect(a.kind).toBe('reported');
  return { reference, vendorReference: reference, receipt: null, amountMinor, accountNumber: null };
}

function order(original: RefundOrder['original'], amountMinor: bigint): RefundOrder {
  n += 1;
  return { reference: `rf_${n}_${Date.now()}`, gatewayReference: `PCREF${n}`, original, amountMinor, currency: 'NGN', reason: 'Damaged item', callbackUrl: 'https://pay.example.net/unused' };
}

async function settled(o: RefundOrder, vendorReference: string | null, status: string) {
  return eventually(async () => {
    const q = await refunds.queryRefund(ctx, { reference: o.reference, vendorReference, original: o.original });
    return q.kind === 'observed' && q.observed.status === status ? q.observed : undefined;
  }, 10_000, `refund ${status}`);
}

function hooksAbout(transactionReference: string) {
  return hooks.received.filter((h) => h.body.includes(transactionReference) && h.body.includes('"refund.'));
}

test('two partial refunds, then more than is left is refused and changes nothing', async () => {
  const original = await paid(1_000_00n);
  const first = order(original, 400_00n);
  const a = await refunds.initiateRefund(ctx, first);
  if (a.kind !== 'accepted') throw new Error(`expected accepted, got ${a.kind}`);
  expect(fake.calls.at(-1)).toMatchObject({ method: 'POST', path: '/refund', status: 200, body: { transaction: original.reference, amount: 40000, currency: 'NGN', customer_note: 'Damaged item', merchant_note: `PayCollect refund ${first.reference}` } });
  expect(await settled(first, a.vendorReference, 'COMPLETED')).toMatchObject({ vendorStatus: 'processed', amountMinor: 40000n, currency: 'NGN', unmapped: false });
  const second = order(original, 600_00n);
  expect((await refunds.initiateRefund(ctx, second)).kind).toBe('accepted');
  const over = await refunds.initiateRefund(ctx, order(original, 1n));
  expect(over).toMatchObject({ kind: 'refused', message: expect.stringContaining('Paystack refused the refund') });
  expect([...fake.refunds.values()].filter((r) => r.transaction.reference === original.reference).map((r) => r.amount)).toEqual([40000, 60000]);
});

test('a refund above the payment is refused with Paystack\'s words; an unknown transaction and another currency too', async () => {
  const original = await paid(100_00n);
  expect(await refunds.initiateRefund(ctx, order(original, 100_01n))).toMatchObject({ kind: 'refused', message: expect.stringContaining('cannot be more than') });
  expect(await refunds.initiateRefund(ctx, order({ ...original, reference: 'PCNEVER', vendorReference: 'PCNEVER' }, 1n))).toMatchObject({ kind: 'refused', message: expect.stringContaining('not found') });
  expect(await refunds.initiateRefund(ctx, { ...order(original, 1n), currency: 'EUR' })).toMatchObject({ kind: 'refused', message: 'Paystack does not refund in EUR' });
});

test('refund.pending, refund.processing and refund.processed arrive signed; the note names the transaction, and the refund id when sent', async () => {
  const original = await paid();
  const o = order(original, 1_050_00n);
  const a = await refunds.initiateRefund(ctx, o);
  if (a.kind !== 'accepted') throw new Error('expected accepted');
  const events = await eventually(() => (hooksAbout(original.reference).length >= 3 ? hooksAbout(original.reference) : undefined), 10_000, 'three refund events');
  // each event is its own delivery: they may arrive in any order
  expect(events.map((h) => JSON.parse(h.body).event).sort()).toEqual(['refund.pending', 'refund.processed', 'refund.processing']);
  for (const h of events) {
    expect(signatureValid(Buffer.from(h.body), h.headers['x-paystack-signature'] as string, fake.secretKey)).toBe(true);
    expect(signatureValid(Buffer.from(h.body), h.headers['x-paystack-signature'] as string, 'sk_test_another')).toBe(false);
    expect(refunds.parseRefundCallback(Buffer.from(h.body))).toEqual({ vendorReference: null, reported: null, originalReference: original.reference });
  }
});

test('a failed refund and one that needs attention read as FAILED and PENDING; needs-attention names the refund id', async () => {
  fake.failNextRefund();
  const failing = order(await paid(), 500_00n);
  const f = await refunds.initiateRefund(ctx, failing);
  if (f.kind !== 'accepted') throw new Error('expected accepted');
  expect(await settled(failing, f.vendorReference, 'FAILED')).toMatchObject({ vendorStatus: 'failed', message: 'Paystack could not refund the customer: Refund failed at the processor' });

  fake.needsAttentionNext();
  const stuck = order(await paid(), 500_00n);
  const s = await refunds.initiateRefund(ctx, stuck);
  if (s.kind !== 'accepted') throw new Error('expected accepted');
  const hook = await eventually(() => hooksAbout(stuck.original.reference).find((h) => h.body.includes('refund.needs-attention')), 10_000, 'needs-attention event');
  expect(refunds.parseRefundCallback(JSON.parse(hook.body))).toMatchObject({ vendorReference: s.vendorReference });
  expect(await settled(stuck, s.vendorReference, 'PENDING')).toMatchObject({ vendorStatus: 'needs-attention', message: "Paystack needs the customer's account details to finish the refund" });
});

test('a lost answer is unknown; the query finds the refund by its merchant note among the transaction\'s refunds', async () => {
  const original = await paid();
  const o = order(original, 300_00n);
  fake.mode = 'lose';
  expect((await refunds.initiateRefund(ctx, o)).kind).toBe('unknown');
  fake.mode = 'up';
  await settled(o, null, 'COMPLETED');
  const other = order(original, 1n);
  expect(await refunds.queryRefund(ctx, { reference: other.reference, vendorReference: null, original })).toEqual({ kind: 'not_found' });
});

test('an unreadable 200 is unknown, and the refund is found all the same; without an id or a transaction: unavailable', async () => {
  const o = order(await paid(), 200_00n);
  fake.garbageRefund = 1;
  expect((await refunds.initiateRefund(ctx, o)).kind).toBe('unknown');
  await settled(o, null, 'COMPLETED');
  expect((await refunds.queryRefund(ctx, { reference: o.reference, vendorReference: null })).kind).toBe('unavailable');
});

test('an outage is retried (never unknown when nothing was sent); fetch of an unknown id is not_found', async () => {
  const o = order(await paid(), 100n);
  fake.mode = 'error';
  expect((await refunds.initiateRefund(ctx, o)).kind).toBe('retry');
  expect((await refunds.queryRefund(ctx, { reference: o.reference, vendorReference: '1' })).kind).toBe('unavailable');
  fake.mode = 'up';
  expect(await refunds.queryRefund(ctx, { reference: o.reference, vendorReference: '999999999' })).toEqual({ kind: 'not_found' });
  expect([...fake.refunds.values()].some((r) => r.merchantNote.includes(o.reference))).toBe(false);
});
