// Proves Paystack refunds through the public API against the project's fake Paystack over real HTTP: a full refund and two partials go to POST /refund naming the transaction, the amount and our reference (in the merchant note); a refund completes only when the status query says processed, its signed refund.* webhook being only the prompt (the check schedule is too long to do it) and a forged one refused; a refusal or a failure at Paystack fails the refund with the reason and returns the held money; a lost answer is settled by the status query, and Paystack holds one refund, never a second.
import { signature } from '../../src/processors/paystack/transformers';
import type { FakeRefund } from '../fakes/paystack';
import { startHostedWorld } from '../helpers/hosted';
import { cardPaid } from '../helpers/hosted-disputes';
import type { HostedWorld } from '../helpers/hosted';
import { askRefund, postingsOf, refundedAmount, refundHooks, refundIn, refundPostings, refundRow, walletOf } from '../helpers/hosted-refunds';
import { eventually } from '../helpers/notify-fixtures';

let w: HostedWorld;

beforeAll(async () => {
  // status queries on the schedule come only after ten minutes: within a test, a refund moves on a prompt
  w = await startHostedWorld({ PROCESSOR_CHECK_SCHEDULE: '10m' });
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(() => w?.close());

/** A NGN 25,000 card payment Paystack completes at once (a direct card with no 3-D Secure step). */
const paid = async (): Promise<string> => (await cardPaid(w)).collection;

const note = (reference: string) => `PayCollect refund ${reference}`;

/** The refund at the fake Paystack that carries our reference in its merchant note. */
async function atPaystack(gatewayReference: string): Promise<FakeRefund> {
  const { reference } = await refundRow(w, gatewayReference);
  return eventually(() => [...w.paystack.refunds.values()].find((r) => r.merchantNote === note(reference)), 10_000, 'refund at Paystack');
}

/** Our POST /refund calls for a refund, as the fake saw them. */
async function sends(gatewayReference: string) {
  const { reference } = await refundRow(w, gatewayReference);
  return w.paystack.calls.filter((c) => c.method === 'POST' && c.path === '/refund' && (c.body as { merchant_note?: string }).merchant_note === note(reference));
}

/** A Paystack refund left pending at Paystack until `end` is played: the refund waits PROCESSING here. */
async function heldAtPaystack(collection: string, body: { amount?: number; reason?: string } = {}) {
  w.paystack.holdNextRefund = 1;
  const r = await askRefund(w, collection, body);
  expect(r).toMatchObject({ transaction_status: 'PENDING', pending_reason: 'awaiting_processor', currency: 'NGN', transaction_type: 'refund', claim_url: null });
  await refundIn(w, r.gateway_reference, 'PROCESSING');
  return { r, fake: await atPaystack(r.gateway_reference) };
}

/** Paystack's webhook route of the MID, as Paystack posts to it. */
function paystackHook(raw: string, key: string | null) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers['x-paystack-signature'] = signature(Buffer.from(raw), key);
  return w.svc.anon.post(`/callbacks/paystack/mids/${w.mids.card}`, undefined, { raw, headers });
}

it('a full refund is sent with our reference, and completes only when the status query says processed: a forged webhook is refused, a signed one that lies only prompts the query', async () => {
  const collection = await paid();
  const before = await walletOf(w, 'NGN');
  const { r, fake } = await heldAtPaystack(collection, { reason: 'Order cancelled' });
  expect(r.amount).toBe(25000);
  const row = await refundRow(w, r.gateway_reference);
  expect(await sends(r.gateway_reference)).toEqual([
    { method: 'POST', path: '/refund', status: 200, body: { transaction: collection, amount: 2_500_000, currency: 'NGN', customer_note: 'Order cancelled', merchant_note: note(row.reference) } },
  ]);
  expect(fake).toMatchObject({ amount: 2_500_000, currency: 'NGN', status: 'pending' });
  expect(fake.transaction.reference).toBe(collection);
  expect(row).toMatchObject({ vendor_reference: String(fake.id), send_state: 'sent' });
  expect(await walletOf(w, 'NGN')).toMatchObject({ available_balance: before.available_balance - 25000, refund_held_balance: before.refund_held_balance + 25000, balance: before.balance });

  // Paystack's refund.processed names the transaction, not the refund (doc/payments/refunds/events)
  const lie = JSON.stringify({ event: 'refund.processed', data: { status: 'processed', transaction_reference: collection, refund_reference: '1700000000', amount: '2500000', currency: 'NGN', integration: 412829, domain: 'test' } });
  expect((await paystackHook(lie, null)).status).toBe(401);
  expect((await paystackHook(lie, 'sk_test_someone_else_0000')).status).toBe(401);
  const fetches = () => w.paystack.calls.filter((c) => c.method === 'GET' && c.path === `/refund/${fake.id}`).length;
  // Paystack's own refund.pending may have prompted a query already: wait until none is due or under way
  await w.paystack.deliveriesDone();
  await eventually(async () => {
    const q = await w.svc.services.db.one<{ checks: number; due: boolean }>('SELECT checks, next_check_at <= now() AS due FROM refunds WHERE gateway_reference = $1', [r.gateway_reference]);
    return !q.due && q.checks === fetches();
  }, 10_000, 'no status query due or under way');
  const seen = fetches();
  expect((await paystackHook(lie, w.paystack.secretKey)).status).toBe(200);
  await eventually(() => fetches() > seen, 10_000, 'the status query the signed webhook prompted');
  await refundIn(w, r.gateway_reference, 'PROCESSING');
  expect(await walletOf(w, 'NGN')).toMatchObject({ available_balance: before.available_balance - 25000, refund_held_balance: before.refund_held_balance + 25000 });
  expect((await refundPostings(w, r.gateway_reference)).map((p) => p.journal)).toEqual(['refund_hold', 'refund_hold']);

  // Paystack processes it: its own refund.processing and refund.processed prompt the query that completes it
  w.paystack.finishRefund(fake.id, 'processed');
  const done = await refundIn(w, r.gateway_reference, 'COMPLETED');
  expect(done).toMatchObject({ amount: 25000, failure_reason: null, pending_reason: null });
  expect(fetches()).toBeGreaterThanOrEqual(seen + 2);
  expect(await walletOf(w, 'NGN')).toMatchObject({ available_balance: before.available_balance - 25000, refund_held_balance: before.refund_held_balance, balance: before.balance - 25000 });
  expect(await refundPostings(w, r.gateway_reference)).toEqual(postingsOf('COMPLETED', 2_500_000));
  expect(await refundedAmount(w, collection)).toBe(25000);
  await eventually(() => refundHooks(w, r.gateway_reference).length === 2, 10_000, 'two refund notifications');
  expect(refundHooks(w, r.gateway_reference)).toEqual([{ transaction_status: 'PROCESSING', sequence: 1 }, { transaction_status: 'COMPLETED', sequence: 2 }]);
  expect(await sends(r.gateway_reference)).toHaveLength(1);
});

it('two partial refunds each go to Paystack with their amount and complete; a third above what is left is refused and changes nothing', async () => {
  const collection = await paid();
  const before = await walletOf(w, 'NGN');
  for (const amount of [10000, 15000]) {
    const { r, fake } = await heldAtPaystack(collection, { amount });
    expect(fake).toMatchObject({ amount: amount * 100, currency: 'NGN' });
    expect((await sends(r.gateway_reference)).map((c) => c.body)).toEqual([expect.objectContaining({ transaction: collection, amount: amount * 100 })]);
    w.paystack.finishRefund(fake.id, 'processed');
    await refundIn(w, r.gateway_reference, 'COMPLETED');
    expect(await refundPostings(w, r.gateway_reference)).toEqual(postingsOf('COMPLETED', amount * 100));
  }
  const refundCalls = w.paystack.calls.length;
  const over = await w.client.post(`/v1/collections/${collection}/refunds`, { amount: 0.01, merchant_reference: `RFD-OVER-${process.pid}` });
  expect(over.status).toBe(400);
  expect(over.body.code).toBe('VALIDATION_ERROR');
  expect((await w.client.get(`/v1/refunds?merchant_reference=RFD-OVER-${process.pid}`)).body.data).toEqual([]);
  expect(await refundedAmount(w, collection)).toBe(25000);
  expect(await walletOf(w, 'NGN')).toMatchObject({ available_balance: before.available_balance - 25000, refund_held_balance: before.refund_held_balance });
  expect([...w.paystack.refunds.values()].filter((x) => x.transaction.reference === collection).map((x) => [x.amount, x.status])).toEqual([[1_000_000, 'processed'], [1_500_000, 'processed']]);
  expect(w.paystack.calls.slice(refundCalls).filter((c) => c.method === 'POST')).toEqual([]);
});

it('a refund Paystack refuses (less is left at Paystack than we hold) fails with Paystack\'s words and returns the money', async () => {
  const collection = await paid();
  // the merchant refunded NGN 5,000 in Paystack's own dashboard: Paystack has only 20,000 left to refund
  const direct = await fetch(`${w.paystack.url}/refund`, {
    method: 'POST', headers: { authorization: `Bearer ${w.paystack.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ transaction: collection, amount: 500_000 }),
  });
  expect(direct.status).toBe(200);
  const before = await walletOf(w, 'NGN');
  const r = await askRefund(w, collection);
  const failed = await refundIn(w, r.gateway_reference, 'FAILED');
  expect(failed.failure_reason).toBe('Paystack refused the refund: Refund amount cannot be more than the amount left to refund on the transaction');
  expect(await sends(r.gateway_reference)).toEqual([expect.objectContaining({ status: 400, body: expect.objectContaining({ transaction: collection, amount: 2_500_000 }) })]);
  expect(await walletOf(w, 'NGN')).toEqual(before);
  expect(await refundPostings(w, r.gateway_reference)).toEqual(postingsOf('RETURNED', 2_500_000));
  expect(await refundedAmount(w, collection)).toBe(0);
  await eventually(() => refundHooks(w, r.gateway_reference).length === 1, 10_000, 'the FAILED notification');
  expect(refundHooks(w, r.gateway_reference)).toEqual([{ transaction_status: 'FAILED', sequence: 1 }]);
});

it('a refund Paystack takes and then fails (refund.failed) is FAILED with the reason, and the hold returns to available', async () => {
  const collection = await paid();
  const before = await walletOf(w, 'NGN');
  const { r, fake } = await heldAtPaystack(collection, { amount: 7500 });
  expect(await walletOf(w, 'NGN')).toMatchObject({ available_balance: before.available_balance - 7500, refund_held_balance: before.refund_held_balance + 7500 });
  w.paystack.finishRefund(fake.id, 'failed');
  const failed = await refundIn(w, r.gateway_reference, 'FAILED');
  expect(failed.failure_reason).toBe('Paystack could not refund the customer: Refund failed at the processor');
  expect(await walletOf(w, 'NGN')).toEqual(before);
  expect(await refundPostings(w, r.gateway_reference)).toEqual(postingsOf('RETURNED', 750_000));
  expect(await refundedAmount(w, collection)).toBe(0);
  await eventually(() => refundHooks(w, r.gateway_reference).length === 2, 10_000, 'two refund notifications');
  expect(refundHooks(w, r.gateway_reference)).toEqual([{ transaction_status: 'PROCESSING', sequence: 1 }, { transaction_status: 'FAILED', sequence: 2 }]);
});

it('a lost answer is settled by the status query (the refund found by its note among the transaction\'s): one refund at Paystack, never a second', async () => {
  const collection = await paid();
  const before = await walletOf(w, 'NGN');
  w.paystack.swallowRefund = 1;
  w.paystack.holdNextRefund = 1;
  const r = await askRefund(w, collection, { amount: 12000 });
  const fake = await atPaystack(r.gateway_reference);
  await refundIn(w, r.gateway_reference, 'PROCESSING');
  const lists = () => w.paystack.calls.filter((c) => c.method === 'GET' && c.path === '/refund');
  expect(lists().length).toBeGreaterThanOrEqual(1);
  w.paystack.finishRefund(fake.id, 'processed');
  await refundIn(w, r.gateway_reference, 'COMPLETED');
  expect(await sends(r.gateway_reference)).toHaveLength(1);
  expect([...w.paystack.refunds.values()].filter((x) => x.transaction.reference === collection).map((x) => x.amount)).toEqual([1_200_000]);
  expect(await walletOf(w, 'NGN')).toMatchObject({ available_balance: before.available_balance - 12000, refund_held_balance: before.refund_held_balance });
  expect(await refundPostings(w, r.gateway_reference)).toEqual(postingsOf('COMPLETED', 1_200_000));
  await eventually(() => refundHooks(w, r.gateway_reference).length === 2, 10_000, 'two refund notifications');
  expect(refundHooks(w, r.gateway_reference).map((h) => h.transaction_status)).toEqual(['PROCESSING', 'COMPLETED']);
});
