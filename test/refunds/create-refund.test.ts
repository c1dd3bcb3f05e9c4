// Proves refunds through the public API on the sandbox simulator: full, partial and two partials with the wallet's held and available parts exact at each step, refusals (over-refund, not COMPLETED, short available balance, bad input, another merchant's) that change nothing, replays, failed and cancelled refunds returning the money, the signed webhook records, the audit entry, and the list and its filters.
import { createHmac } from 'node:crypto';
import { eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';

let svc: TestService;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000', PROCESSOR_CHECK_SCHEDULE: '100ms,200ms', WEBHOOK_RETRY_SCHEDULE: '0s,100ms' } });
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

/** A COMPLETED UGX mobile money collection of `amount`, through the sandbox tools. */
async function completed(m: MerchantSetup, amount = 50000): Promise<string> {
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount, account_number: '256700000009' }));
  expect(created.status).toBe(200);
  const reference = created.body.data.gateway_reference;
  expect((await m.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  return reference;
}

async function balance(client: Client, currency = 'UGX') {
  const res = await client.get(`/v1/data/wallets/${currency}/balance`);
  expect(res.status).toBe(200);
  return res.body.data as { balance: number; available_balance: number; refund_held_balance: number };
}

async function refundStatus(client: Client, reference: string, status: string) {
  return eventually(async () => {
    const r = await client.get(`/v1/refunds/${reference}`);
    return r.body.data.transaction_status === status ? r.body.data : undefined;
  }, 10_000, `refund ${reference} ${status}`);
}

/** What a refusal must leave as it was: the merchant's refunds, the wallet, the collection's refunded amount. */
async function snapshot(m: MerchantSetup, collection: string) {
  const refunds = await svc.database.db.one('SELECT count(*)::int AS n FROM refunds WHERE business_id = $1', [m.businessId]);
  const c = await m.client.get(`/v1/collections/${collection}`);
  const audit = await svc.database.db.one("SELECT count(*)::int AS n FROM audit_log WHERE business_id = $1 AND action = 'createRefund'", [m.businessId]);
  return { refunds: refunds.n, audit: audit.n, refunded: c.body.data.refunded_amount, wallet: await balance(m.client) };
}

describe('refunds on the simulator', () => {
  it('refunds a whole collection: held at once, then out of the wallet on COMPLETED', async () => {
    const m = await setupMerchant(svc);
    const collection = await completed(m);
    expect(await balance(m.client)).toMatchObject({ balance: 50000, available_balance: 50000, refund_held_balance: 0 });

    const res = await m.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: ref('RFD'), reason: 'Order cancelled' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('accepted');
    expect(res.body.data).toMatchObject({
      collection_gateway_reference: collection, amount: 50000, currency: 'UGX', account_amount: 50000, account_currency: 'UGX',
      transaction_type: 'refund', reason: 'Order cancelled', claim_url: null,
    });
    expect(['PENDING', 'PROCESSING', 'COMPLETED']).toContain(res.body.data.transaction_status);
    expect((await m.client.get(`/v1/collections/${collection}`)).body.data.refunded_amount).toBe(50000);

    await refundStatus(m.client, res.body.data.gateway_reference, 'COMPLETED');
    expect(await balance(m.client)).toMatchObject({ balance: 0, available_balance: 0, refund_held_balance: 0 });
    const audit = await svc.database.db.one("SELECT actor_type, actor_email, target_type, target_id FROM audit_log WHERE action = 'createRefund' AND business_id = $1", [m.businessId]);
    expect(audit).toEqual({ actor_type: 'api_token', actor_email: m.apiKey, target_type: 'refund', target_id: res.body.data.gateway_reference });
    const journals = await svc.database.db.any('SELECT kind FROM journals WHERE refund_id = $1 ORDER BY id', [res.body.data.id]);
    expect(journals.map((j: { kind: string }) => j.kind)).toEqual(['refund_hold', 'refund_out']);

    // the wallet statement shows both refund journals under the refund's own reference, and reconciles
    const from = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19) + 'Z';
    const to = new Date(Date.now() + 3_600_000).toISOString().slice(0, 19) + 'Z';
    const st = await m.client.get(`/v1/data/wallets/UGX/statement?from=${from}&to=${to}`);
    expect(st.status).toBe(200);
    const lines = st.body.data.lines as { kind: string; reference_type: string; reference: string; collection_reference: string; change: { available: number; total: number } }[];
    expect(lines.filter((l) => l.reference_type === 'refund')).toEqual([
      expect.objectContaining({ kind: 'refund_hold', reference: res.body.data.gateway_reference, collection_reference: collection, change: expect.objectContaining({ available: -50000, total: 0 }) }),
      expect.objectContaining({ kind: 'refund_out', reference: res.body.data.gateway_reference, collection_reference: collection, change: expect.objectContaining({ available: 0, total: -50000 }) }),
    ]);
    expect(st.body.data.closing_balance.total).toBe(0);
  });

  it('refunds in two parts, then refuses a third that would exceed what was paid and changes nothing', async () => {
    const m = await setupMerchant(svc);
    const collection = await completed(m);
    const first = await m.client.post(`/v1/collections/${collection}/refunds`, { amount: 20000, merchant_reference: ref('RFD') });
    expect(first.status).toBe(200);
    expect((await balance(m.client)).available_balance).toBe(30000);
    const second = await m.client.post(`/v1/collections/${collection}/refunds`, { amount: 29999.99, merchant_reference: ref('RFD') });
    expect(second.status).toBe(200);
    expect((await m.client.get(`/v1/collections/${collection}`)).body.data.refunded_amount).toBe(49999.99);
    // both settled first, so that what the refusal leaves is all the snapshot sees
    await refundStatus(m.client, first.body.data.gateway_reference, 'COMPLETED');
    await refundStatus(m.client, second.body.data.gateway_reference, 'COMPLETED');

    const before = await snapshot(m, collection);
    const over = await m.client.post(`/v1/collections/${collection}/refunds`, { amount: 0.02, merchant_reference: ref('RFD') });
    expect(over.status).toBe(400);
    expect(over.body.code).toBe('VALIDATION_ERROR');
    expect(over.body.data).toEqual([{ field: 'amount', message: 'is more than the 0.01 UGX still refundable on this collection' }]);
    expect(await snapshot(m, collection)).toEqual(before);

    // the rest (amount left out) is the last cent
    const rest = await m.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: ref('RFD') });
    expect(rest.body.data.amount).toBe(0.01);
    await refundStatus(m.client, rest.body.data.gateway_reference, 'COMPLETED');
    expect(await balance(m.client)).toMatchObject({ balance: 0, available_balance: 0, refund_held_balance: 0 });
    const none = await m.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: ref('RFD') });
    expect(none.body).toMatchObject({ code: 'VALIDATION_ERROR', data: [{ field: 'amount', message: 'the collection has been refunded in full already' }] });
  });

  it('debits the wallet by the collection\'s own conversion, and keeps the fee: a full refund needs more than the credit', async () => {
    const m = await setupMerchant(svc, { wallets: ['UGX'], fees: [{ payment_method: 'MOBILE_MONEY', percent: 3, fixed: 0 }] });
    const collection = await completed(m, 50000);
    expect((await balance(m.client)).available_balance).toBe(48500);
    const before = await snapshot(m, collection);
    const short = await m.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: ref('RFD') });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ code: 'INSUFFICIENT_FUNDS', message: 'The UGX wallet has 48,500 UGX available; this refund needs 50,000 UGX' });
    expect(await snapshot(m, collection)).toEqual(before);

    await completed(m, 10000); // 9700 more available
    const full = await m.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: ref('RFD') });
    expect(full.status).toBe(200);
    expect(full.body.data).toMatchObject({ amount: 50000, account_amount: 50000 });
    expect((await balance(m.client)).available_balance).toBe(8200);
    await refundStatus(m.client, full.body.data.gateway_reference, 'COMPLETED');
    expect(await balance(m.client)).toMatchObject({ available_balance: 8200, refund_held_balance: 0, balance: 8200 });
  });

  it('converts at the collection\'s rate when the wallet is in another currency', async () => {
    const m = await setupMerchant(svc, { mids: [{ payment_method: 'MOBILE_MONEY', currency: 'USD' }] });
    expect((await svc.admin.put('/v1/admin/fx-rates', { base: 'USD', quote: 'UGX', rate: 3700.5 })).status).toBe(200);
    const usd = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ currency: 'USD', amount: 10, account_number: '256700000009' }));
    expect(usd.status).toBe(200);
    const collection = usd.body.data.gateway_reference;
    await m.client.post(`/v1/sandbox/collections/${collection}/simulate`, { outcome: 'COMPLETED' });
    const third = await m.client.post(`/v1/collections/${collection}/refunds`, { amount: 3.33, merchant_reference: ref('RFD') });
    expect(third.body.data).toMatchObject({ amount: 3.33, currency: 'USD', account_amount: 12322.66, account_currency: 'UGX' });
    const rest = await m.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: ref('RFD') });
    // 37005.00 in all: the first is rounded down (12322.665), the last takes what that left
    expect(rest.body.data).toMatchObject({ amount: 6.67, account_amount: 24682.34 });
  });

  it('refuses a partial refund too small to move a cent of the wallet, changing nothing; the whole rest still takes the credit exactly', async () => {
    const m = await setupMerchant(svc, { defaultCurrency: 'USD', wallets: ['USD'], mids: [{ payment_method: 'MOBILE_MONEY', currency: 'UGX' }] });
    expect((await svc.admin.put('/v1/admin/fx-rates', { base: 'USD', quote: 'UGX', rate: 3700.5 })).status).toBe(200);
    const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ currency: 'UGX', amount: 10000, account_number: '256700000009' }));
    expect(created.status).toBe(200);
    const collection = created.body.data.gateway_reference;
    await m.client.post(`/v1/sandbox/collections/${collection}/simulate`, { outcome: 'COMPLETED' });
    const paid = await m.client.get(`/v1/collections/${collection}`);
    expect(paid.body.data).toMatchObject({ account_amount: 2.7, account_currency: 'USD' });
    const before = await balance(m.client, 'USD');
    // 1 UGX of 10000 is 0.027 US cents
    const tiny = await m.client.post(`/v1/collections/${collection}/refunds`, { amount: 1, merchant_reference: ref('RFD') });
    expect(tiny.status).toBe(400);
    expect(tiny.body).toMatchObject({ code: 'VALIDATION_ERROR', data: [{ field: 'amount', message: "is too small to move anything in the wallet's currency; refund more, or the whole rest" }] });
    expect(await balance(m.client, 'USD')).toEqual(before);
    expect((await m.client.get(`/v1/collections/${collection}`)).body.data).toMatchObject({ refunded_amount: 0, refunds: [] });
    const rest = await m.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: ref('RFD') });
    expect(rest.status).toBe(200);
    expect(rest.body.data).toMatchObject({ amount: 10000, account_amount: 2.7, account_currency: 'USD' });
  });

  it('refuses a collection that is not COMPLETED, and changes nothing', async () => {
    const m = await setupMerchant(svc);
    const funded = await completed(m);
    const pending = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700000010' }));
    const reference = pending.body.data.gateway_reference;
    const before = await snapshot(m, reference);
    const res = await m.client.post(`/v1/collections/${reference}/refunds`, { merchant_reference: ref('RFD') });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_STATE', message: 'The collection is PENDING; only a COMPLETED collection can be refunded' });
    expect(await snapshot(m, reference)).toEqual(before);
    await m.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome: 'FAILED' });
    expect((await m.client.post(`/v1/collections/${reference}/refunds`, { merchant_reference: ref('RFD') })).body.code).toBe('INVALID_STATE');
    expect(await snapshot(m, funded)).toMatchObject({ refunds: 0, refunded: 0 });
  });

  it.each([
    ['amount 0', { amount: 0 }, 'amount'],
    ['a negative amount', { amount: -5 }, 'amount'],
    ['three decimals', { amount: 1.005 }, 'amount'],
    ['an amount as text', { amount: '100' }, 'amount'],
    ['no merchant_reference', { merchant_reference: undefined }, 'merchant_reference'],
    ['a short merchant_reference', { merchant_reference: 'abc' }, 'merchant_reference'],
    ['a merchant_reference with spaces', { merchant_reference: 'has spaces 12345' }, 'merchant_reference'],
    ['an empty reason', { reason: '' }, 'reason'],
    ['a reason too long', { reason: 'x'.repeat(201) }, 'reason'],
    ['an unknown field', { currency: 'UGX' }, 'currency'],
  ])('refuses %s with VALIDATION_ERROR naming the field, and changes nothing', async (_what, change, field) => {
    const m = await setupMerchant(svc);
    const collection = await completed(m);
    const before = await snapshot(m, collection);
    const body = { amount: 100, merchant_reference: ref('RFD'), ...change };
    const res = await m.client.post(`/v1/collections/${collection}/refunds`, JSON.parse(JSON.stringify(body)));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    expect(await snapshot(m, collection)).toEqual(before);
  });

  it('answers 404 for an unknown collection and for another merchant\'s, changing nothing', async () => {
    const m = await setupMerchant(svc);
    const collection = await completed(m);
    const other = await setupMerchant(svc);
    const before = await snapshot(m, collection);
    expect((await other.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: ref('RFD') })).status).toBe(404);
    expect((await m.client.post('/v1/collections/PCNOPE0000000000000000/refunds', { merchant_reference: ref('RFD') })).status).toBe(404);
    expect(await snapshot(m, collection)).toEqual(before);
    const mine = await m.client.post(`/v1/collections/${collection}/refunds`, { amount: 10, merchant_reference: ref('RFD') });
    expect((await other.client.get(`/v1/refunds/${mine.body.data.gateway_reference}`)).status).toBe(404);
    expect((await m.client.get('/v1/refunds/RFNOPE')).status).toBe(404);
  });

  it('answers a replay with the same refund, and a different body under the same reference with DUPLICATE_MERCHANT_REFERENCE', async () => {
    const m = await setupMerchant(svc);
    const collection = await completed(m);
    const body = { amount: 1000, merchant_reference: ref('RFD'), reason: 'Damaged' };
    const first = await m.client.post(`/v1/collections/${collection}/refunds`, body);
    const again = await m.client.post(`/v1/collections/${collection}/refunds`, body);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.gateway_reference).toBe(first.body.data.gateway_reference);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const before = await snapshot(m, collection);
    const changed = await m.client.post(`/v1/collections/${collection}/refunds`, { ...body, amount: 1001 });
    expect(changed.body.code).toBe('DUPLICATE_MERCHANT_REFERENCE');
    const other = await completed(m);
    expect((await m.client.post(`/v1/collections/${other}/refunds`, body)).body.code).toBe('DUPLICATE_MERCHANT_REFERENCE');
    expect(await snapshot(m, collection)).toMatchObject({ refunds: before.refunds, refunded: before.refunded, audit: before.audit });
    // a refund may use the text of a collection's merchant_reference: they are references of different kinds
    const sameText = await m.client.post(`/v1/collections/${collection}/refunds`, { amount: 1, merchant_reference: (await m.client.get(`/v1/collections/${collection}`)).body.data.merchant_reference });
    expect(sameText.status).toBe(200);
  });

  it.each([
    ['FAILED', 100.13, 'The simulated processor declined the refund'],
    ['CANCELLED', 100.14, 'The simulated processor cancelled the refund'],
  ])('a refund the simulator ends %s gives the held money back to available', async (status, amount, why) => {
    const m = await setupMerchant(svc);
    const collection = await completed(m);
    const res = await m.client.post(`/v1/collections/${collection}/refunds`, { amount, merchant_reference: ref('RFD') });
    expect(res.status).toBe(200);
    const ended = await refundStatus(m.client, res.body.data.gateway_reference, status);
    expect(ended).toMatchObject({ failure_reason: why, pending_reason: null });
    expect(await balance(m.client)).toMatchObject({ balance: 50000, available_balance: 50000, refund_held_balance: 0 });
    expect((await m.client.get(`/v1/collections/${collection}`)).body.data.refunded_amount).toBe(0);
    const journals = await svc.database.db.any('SELECT kind FROM journals WHERE refund_id = $1 ORDER BY id', [res.body.data.id]);
    expect(journals.map((j: { kind: string }) => j.kind)).toEqual(['refund_hold', 'refund_return']);
  });

  it('lists the designated refund amounts among the sandbox scenarios', async () => {
    const m = await setupMerchant(svc);
    const res = await m.client.get('/v1/sandbox/scenarios');
    const refunds = res.body.data.filter((s: { transaction_type: string }) => s.transaction_type === 'refund');
    expect(refunds.map((s: { name: string; outcome: string }) => `${s.name}:${s.outcome}`)).toEqual(['REFUND_SUCCESS:COMPLETED', 'REFUND_FAILURE:FAILED', 'REFUND_CANCELLED:CANCELLED']);
  });

  it('notifies each change to the webhook, signed like a collection notification, in order', async () => {
    const m = await setupMerchant(svc, { webhookUrl: receiver.url });
    const collection = await completed(m);
    const res = await m.client.post(`/v1/collections/${collection}/refunds`, { amount: 1234.5, merchant_reference: ref('RFD') });
    const reference = res.body.data.gateway_reference;
    const mine = () => receiver.received.filter((r) => JSON.parse(r.body).gateway_reference === reference);
    await eventually(async () => (mine().length >= 2 ? true : undefined), 10_000, 'two refund notifications');
    const bodies = mine().map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => [b.sequence, b.transaction_status, b.transaction_type])).toEqual([[1, 'PROCESSING', 'refund'], [2, 'COMPLETED', 'refund']]);
    expect(bodies[1]).toMatchObject({ amount: 1234.5, collection_gateway_reference: collection, pending_reason: null });
    for (const r of mine()) {
      const id = String(r.headers['webhook-id']);
      const ts = String(r.headers['webhook-timestamp']);
      const expected = createHmac('sha256', Buffer.from(m.webhookHash, 'utf8')).update(`${id}.${ts}.${r.body}`).digest('base64');
      expect(r.headers['webhook-signature']).toBe(`v1,${expected}`);
    }
    // the collection's own notification log is the collection's alone
    const log = await m.client.get(`/v1/collections/${collection}/notifications`);
    expect(log.body.data.every((n: { transaction_status: string }) => n.transaction_status === 'COMPLETED')).toBe(true);
    // the business's delivery log shows the refund's under the refund's reference
    const deliveries = await svc.admin.get(`/v1/admin/businesses/${m.businessId}/deliveries`);
    expect(deliveries.status).toBe(200);
    const ofRefund = deliveries.body.data.filter((d: { gateway_reference: string }) => d.gateway_reference === reference);
    expect(ofRefund.map((d: { sequence: number; transaction_status: string }) => [d.sequence, d.transaction_status])).toEqual([[2, 'COMPLETED'], [1, 'PROCESSING']]);
  });

  it('emails by the API token\'s flags: the merchant a summary at the end, the customer a notice once refunded', async () => {
    const m = await setupMerchant(svc, { emailMerchant: true, emailUser: true, notificationEmail: 'owner@shop.example' });
    const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700000009', account_email: 'amina@example.org' }));
    const collection = created.body.data.gateway_reference;
    await m.client.post(`/v1/sandbox/collections/${collection}/simulate`, { outcome: 'COMPLETED' });
    const done = await m.client.post(`/v1/collections/${collection}/refunds`, { amount: 300, merchant_reference: ref('RFD') });
    const failed = await m.client.post(`/v1/collections/${collection}/refunds`, { amount: 200.13, merchant_reference: ref('RFD') });
    await refundStatus(m.client, done.body.data.gateway_reference, 'COMPLETED');
    await refundStatus(m.client, failed.body.data.gateway_reference, 'FAILED');
    const emails = await svc.database.db.any(
      "SELECT kind, recipient, subject, text_body AS body FROM emails e JOIN collections c ON c.id = e.collection_id WHERE c.gateway_reference = $1 AND e.subject LIKE 'Refund%' ORDER BY e.id",
      [collection],
    );
    // money in the currency's own decimals: whole UGX without ".00", a finer fraction in full
    expect(emails).toEqual(expect.arrayContaining([
      expect.objectContaining({ kind: 'summary', recipient: 'owner@shop.example', subject: `Refund ${done.body.data.gateway_reference} COMPLETED: 300 UGX`, body: expect.stringContaining('Amount refunded:      300 UGX\n') }),
      expect.objectContaining({ kind: 'receipt', recipient: 'amina@example.org', subject: expect.stringMatching(/^Refund from .*: 300 UGX$/), body: expect.stringMatching(/has refunded 300 UGX to you\./) }),
      expect.objectContaining({ kind: 'summary', recipient: 'owner@shop.example', subject: `Refund ${failed.body.data.gateway_reference} FAILED: 200.13 UGX` }),
    ]));
    expect(emails).toHaveLength(3);
    // the merchant's summaries print their time as every email does: `2026-11-27 07:07:52 UTC`, no `Z`
    const summaries = emails.filter((e: { kind: string }) => e.kind === 'summary');
    expect(summaries).toHaveLength(2);
    for (const e of summaries) expect(e.body).toMatch(/\nTime: {17}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\n/);
  });

  it('lists refunds newest first, filtered by collection and status', async () => {
    const m = await setupMerchant(svc);
    const a = await completed(m);
    const b = await completed(m);
    const r1 = await m.client.post(`/v1/collections/${a}/refunds`, { amount: 10, merchant_reference: ref('RFD') });
    const r2 = await m.client.post(`/v1/collections/${b}/refunds`, { amount: 20.13, merchant_reference: ref('RFD') });
    const r3 = await m.client.post(`/v1/collections/${a}/refunds`, { amount: 30, merchant_reference: ref('RFD') });
    await refundStatus(m.client, r2.body.data.gateway_reference, 'FAILED');
    const all = await m.client.get('/v1/refunds?per_page=2');
    expect(all.body.paging).toMatchObject({ total: 3, per_page: 2 });
    expect(all.body.data.map((r: { gateway_reference: string }) => r.gateway_reference)).toEqual([r3.body.data.gateway_reference, r2.body.data.gateway_reference]);
    const next = await m.client.get(`/v1/refunds?per_page=2&cursor=${all.body.paging.next_cursor}`);
    expect(next.body.data.map((r: { gateway_reference: string }) => r.gateway_reference)).toEqual([r1.body.data.gateway_reference]);
    const ofA = await m.client.get(`/v1/refunds?collection_gateway_reference=${a}`);
    expect(ofA.body.data).toHaveLength(2);
    const failed = await m.client.get('/v1/refunds?status=FAILED');
    expect(failed.body.data.map((r: { gateway_reference: string }) => r.gateway_reference)).toEqual([r2.body.data.gateway_reference]);
    expect((await m.client.get('/v1/refunds?status=NOPE')).body.code).toBe('VALIDATION_ERROR');
    expect((await m.client.get('/v1/refunds?colour=red')).body.code).toBe('VALIDATION_ERROR');
  });
});
