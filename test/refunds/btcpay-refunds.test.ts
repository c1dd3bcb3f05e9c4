// Proves BTCPay refunds through the public API against the project's fake BTCPay Server over real HTTP: the refund makes a pull payment of the invoice (a Custom refund of our amount, our reference in its description) and the refund record shows its claim link while it waits; a forged payout event is refused and a signed one that lies only prompts the query; the customer's claim and the merchant's approval change nothing until the payout completes, then the money leaves the hold; a pull payment withdrawn (archived) before it is paid is CANCELLED and the money returns; an unreadable answer is settled by finding the pull payment by its description, whose claim link the refund then shows, and no second one is made. Payout events are the only prompts (the check schedule is too long to move a refund within a test).
import { createHmac } from 'node:crypto';
import { requestPayment, startHostedWorld } from '../helpers/hosted';
import type { HostedWorld } from '../helpers/hosted';
import { askRefund, postingsOf, refundedAmount, refundHooks, refundIn, refundPostings, refundRow, walletOf } from '../helpers/hosted-refunds';
import { eventually } from '../helpers/notify-fixtures';

let w: HostedWorld;

beforeAll(async () => {
  w = await startHostedWorld({ PROCESSOR_CHECK_SCHEDULE: '10m' });
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(() => w?.close());

/** A USD 12.50 crypto payment: the invoice made from payment_url, paid in full and settled. */
async function paid(): Promise<{ collection: string; invoice: string }> {
  const p = await requestPayment(w, 'CRYPTO');
  const opened = await fetch(p.payment_url, { redirect: 'manual' });
  expect(opened.status).toBe(303);
  const invoice = new URL(opened.headers.get('location')!).pathname.split('/').pop()!;
  w.btcpay.pay(invoice, 1250);
  await eventually(async () => (await w.client.get(`/v1/collections/${p.gateway_reference}`)).body.data.transaction_status === 'COMPLETED', 15_000, 'paid');
  return { collection: p.gateway_reference, invoice };
}

const description = (reference: string) => `PayCollect refund ${reference}`;

async function pullPaymentOf(gatewayReference: string) {
  const { reference } = await refundRow(w, gatewayReference);
  return [...w.btcpay.pullPayments.values()].filter((pp) => pp.description === description(reference));
}

const payoutQueries = (pullPaymentId: string) => w.btcpay.calls.filter((c) => c.method === 'GET' && c.path.startsWith(`/api/v1/pull-payments/${pullPaymentId}/payouts`)).length;

it('a partial refund is a pull payment whose claim link the refund shows; claimed and approved it waits; it completes when the payout completes and the money leaves the hold', async () => {
  const { collection, invoice } = await paid();
  const before = await walletOf(w, 'USD');
  const r = await askRefund(w, collection, { amount: 5, reason: 'One book was missing' });
  expect(r).toMatchObject({ transaction_status: 'PENDING', pending_reason: 'awaiting_processor', amount: 5, currency: 'USD', claim_url: null });
  const processing = await refundIn(w, r.gateway_reference, 'PROCESSING');
  const [pp] = await pullPaymentOf(r.gateway_reference);
  expect(pp).toMatchObject({ invoiceId: invoice, amountCents: 500, currency: 'USD', autoApproveClaims: false, archived: false });
  expect(processing.claim_url).toBe(`${w.btcpay.url}/pull-payments/${pp.id}`);
  expect((await fetch(processing.claim_url!)).status).toBe(200);
  expect(await refundRow(w, r.gateway_reference)).toMatchObject({ vendor_reference: pp.id, claim_url: processing.claim_url, send_state: 'sent' });
  expect(w.btcpay.calls.filter((c) => c.method === 'POST' && c.path === `/api/v1/stores/${w.btcpay.storeId}/invoices/${invoice}/refund`)).toHaveLength(1);
  expect(await walletOf(w, 'USD')).toMatchObject({ available_balance: before.available_balance - 5, refund_held_balance: before.refund_held_balance + 5, balance: before.balance });

  // a payout event that lies: forged, it is refused; signed, it only prompts a query, which finds no payout
  const lie = JSON.stringify({
    deliveryId: 'FakeDelivery1', webhookId: 'FakeWebhook1', originalDeliveryId: 'FakeDelivery1', isRedelivery: false, type: 'PayoutUpdated',
    timestamp: Math.floor(Date.now() / 1000), storeId: w.btcpay.storeId, payoutId: 'NoSuchPayout1', pullPaymentId: pp.id, payoutState: 'Completed',
  });
  const payoutHook = (secret: string) => w.svc.anon.post(`/callbacks/btcpay/mids/${w.mids.crypto}`, undefined, {
    raw: lie, headers: { 'content-type': 'application/json', 'btcpay-sig': `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(lie).digest('hex')}` },
  });
  expect(payoutQueries(pp.id)).toBe(0);
  expect((await payoutHook('not-the-webhook-secret')).status).toBe(401);
  expect((await payoutHook(w.btcpay.webhookSecret)).status).toBe(200);
  await eventually(() => payoutQueries(pp.id) >= 1, 10_000, 'the query the signed lie prompted');
  expect(await refundIn(w, r.gateway_reference, 'PROCESSING')).toMatchObject({ claim_url: processing.claim_url });

  // the customer claims, the merchant approves: each payout event prompts a query, which says wait
  const payout = w.btcpay.claim(pp.id);
  await eventually(() => payoutQueries(pp.id) >= 2, 10_000, 'the query the claim prompted');
  w.btcpay.payoutState(payout.id, 'AwaitingPayment');
  await eventually(() => payoutQueries(pp.id) >= 3, 10_000, 'the query the approval prompted');
  expect(await refundIn(w, r.gateway_reference, 'PROCESSING')).toMatchObject({ claim_url: processing.claim_url });
  expect(await walletOf(w, 'USD')).toMatchObject({ refund_held_balance: before.refund_held_balance + 5 });

  w.btcpay.payoutState(payout.id, 'InProgress');
  w.btcpay.payoutState(payout.id, 'Completed');
  const done = await refundIn(w, r.gateway_reference, 'COMPLETED');
  expect(done).toMatchObject({ amount: 5, failure_reason: null, pending_reason: null });
  expect(await walletOf(w, 'USD')).toMatchObject({ available_balance: before.available_balance - 5, refund_held_balance: before.refund_held_balance, balance: before.balance - 5 });
  expect(await refundPostings(w, r.gateway_reference)).toEqual(postingsOf('COMPLETED', 500));
  expect(await refundedAmount(w, collection)).toBe(5);
  await eventually(() => refundHooks(w, r.gateway_reference).length === 2, 10_000, 'two refund notifications');
  expect(refundHooks(w, r.gateway_reference)).toEqual([{ transaction_status: 'PROCESSING', sequence: 1 }, { transaction_status: 'COMPLETED', sequence: 2 }]);
  const hook = w.hooks.received.map((h) => JSON.parse(h.body)).find((b) => b.gateway_reference === r.gateway_reference && b.transaction_status === 'PROCESSING');
  expect(hook).toMatchObject({ transaction_type: 'refund', claim_url: processing.claim_url, collection_gateway_reference: collection });
});

it('a pull payment withdrawn in BTCPay (archived) before its payout is paid: CANCELLED with the reason, and the money comes back', async () => {
  const { collection } = await paid();
  const before = await walletOf(w, 'USD');
  const r = await askRefund(w, collection);
  expect(r.amount).toBe(12.5);
  const processing = await refundIn(w, r.gateway_reference, 'PROCESSING');
  const [pp] = await pullPaymentOf(r.gateway_reference);
  expect(processing.claim_url).toBe(`${w.btcpay.url}/pull-payments/${pp.id}`);
  expect(pp.amountCents).toBe(1250);
  w.btcpay.claim(pp.id);
  // the merchant withdraws the refund in BTCPay: the claim awaiting approval is cancelled with it
  w.btcpay.archive(pp.id);
  const cancelled = await refundIn(w, r.gateway_reference, 'CANCELLED');
  expect(cancelled.failure_reason).toBe('The refund was withdrawn in BTCPay Server before the customer claimed it');
  expect(await walletOf(w, 'USD')).toEqual(before);
  expect(await refundPostings(w, r.gateway_reference)).toEqual(postingsOf('RETURNED', 1250));
  expect(await refundedAmount(w, collection)).toBe(0);
  await eventually(() => refundHooks(w, r.gateway_reference).length === 2, 10_000, 'two refund notifications');
  expect(refundHooks(w, r.gateway_reference)).toEqual([{ transaction_status: 'PROCESSING', sequence: 1 }, { transaction_status: 'CANCELLED', sequence: 2 }]);
});

it('an unreadable answer is settled by the pull payment found by its description: the refund shows its claim link, no second pull payment is made, and its payout completes it', async () => {
  const { collection } = await paid();
  const before = await walletOf(w, 'USD');
  w.btcpay.garbageRefund = 1;
  const r = await askRefund(w, collection, { amount: 2.5 });
  const processing = await refundIn(w, r.gateway_reference, 'PROCESSING');
  const made = await pullPaymentOf(r.gateway_reference);
  expect(made).toHaveLength(1);
  expect(w.btcpay.calls.filter((c) => c.method === 'GET' && c.path === `/api/v1/stores/${w.btcpay.storeId}/pull-payments?includeArchived=true`).length).toBeGreaterThanOrEqual(1);
  expect(processing.claim_url).toBe(`${w.btcpay.url}/pull-payments/${made[0].id}`);
  expect(await refundRow(w, r.gateway_reference)).toMatchObject({ vendor_reference: made[0].id });
  w.btcpay.completePayout(w.btcpay.claim(made[0].id).id);
  await refundIn(w, r.gateway_reference, 'COMPLETED');
  expect(await pullPaymentOf(r.gateway_reference)).toHaveLength(1);
  expect(await walletOf(w, 'USD')).toMatchObject({ available_balance: before.available_balance - 2.5, refund_held_balance: before.refund_held_balance });
  expect(await refundPostings(w, r.gateway_reference)).toEqual(postingsOf('COMPLETED', 250));
});
