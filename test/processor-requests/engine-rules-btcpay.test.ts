// Proves the processor-request engine's rules (engine-rules-shared.ts) against BTCPay Server (the project's
// fake BTCPay over real HTTP, which records every call) for the one kind the engine sends there: a refund,
// the invoice's refund (POST .../invoices/{id}/refund) that makes a pull payment the customer claims. BTCPay
// takes no reference of ours: the pull payment's description carries it, and a refund whose answer was
// lost is asked about by the store's pull-payment list (GET /pull-payments?includeArchived=true), then by
// the pull payment and its payouts. BTCPay's clear "not found": that list without our description. Its
// prompts are its signed payout and invoice webhooks on the MID's route. BTCPay offers no payouts
// (src/processors/btcpay: `payouts: null`). A collection is an invoice made when the customer opens
// payment_url (checkouts.ts), never by the engine's send: only its prompt and takeover rules are the
// engine's, tested below.
import { createHmac, randomBytes } from 'node:crypto';
import { FakeBtcpay } from '../fakes/btcpay';
import { FAST_PROCESSORS } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';
import { driven, engineRules, requestOf } from './engine-rules-shared';
import type { EngineWorld, KindRules, RequestRow } from './engine-rules-shared';

let fake: FakeBtcpay;
let hooks: Receiver;
let svc: TestService;
let client: Client;
let midId = 0;
let seq = 0;
let offsetMs = 0;
const w: EngineWorld = { svc: () => svc, advance: (ms) => { offsetMs += ms; }, now: () => new Date(Date.now() + offsetMs) };

beforeAll(async () => {
  fake = new FakeBtcpay();
  await fake.start();
  hooks = await startReceiver();
  // the workers are driven by hand on a clock the test moves
  svc = await startTestService({ workers: false, now: w.now, env: { APP_ENV: 'live', ...FAST_PROCESSORS } });
  const business = expectOk(await svc.admin.post('/v1/admin/businesses', { name: 'Satoshi Books', default_currency: 'USD' }), 'createBusiness');
  const mid = expectOk(await svc.admin.post(`/v1/admin/businesses/${business.id}/mids`, {
    business_name: 'Satoshi Books', service_type: 'btcpay', payment_method: 'CRYPTO', currency: 'USD',
    credentials: { server_url: fake.url, store_id: fake.storeId, api_key: fake.apiKey, webhook_secret: fake.webhookSecret },
  }), 'createMid');
  // the store's webhook points at the MID's route
  midId = mid.id;
  fake.webhookUrl = `${svc.url}/callbacks/btcpay/mids/${mid.id}`;
  expectOk(await svc.admin.post(`/v1/admin/businesses/${business.id}/verify`, { verified_by: 'ops.test' }), 'verifyBusiness');
  const token = expectOk(await svc.admin.post(`/v1/admin/businesses/${business.id}/api-tokens`, {
    notification_email: 'payments@satoshibooks.example', webhook_url: hooks.url, webhook_hash: 'whsec-engine-0123456789abcdef',
  }), 'createApiToken');
  const access = expectOk(await svc.anon.post('/v1/auth/token', { api_key: token.api_key, expires_in: 3600 }, { headers: { 'secret-key': token.api_secret } }), 'createAccessToken');
  client = svc.merchant(access.token);
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

/** A USD 12.50 crypto collection whose invoice the customer opened (made at BTCPay) and has not paid. */
async function opened(): Promise<{ collection: string; invoice: string }> {
  seq += 1;
  const p = expectOk(await client.post('/v1/collections/request-to-pay', {
    currency: 'USD', amount: 12.5, payment_method: 'CRYPTO', redirect_url: `https://shop.example.org/orders/${seq}`, account_name: 'Hal Finney',
    account_email: 'hal@customer.example', account_number: '0123456789', merchant_reference: `ENG-BT-${process.pid}-${seq}`, narration: 'Order of printed books',
  }), 'requestToPay');
  const res = await fetch(p.payment_url, { redirect: 'manual' });
  expect(res.status).toBe(303);
  return { collection: p.gateway_reference, invoice: new URL(res.headers.get('location')!).pathname.split('/').pop()! };
}

/** The invoice paid in full and settled (the fake confirms it shortly), the collection COMPLETED. */
async function paid(): Promise<{ collection: string; invoice: string }> {
  const o = await opened();
  fake.pay(o.invoice, 1250);
  await driven(w, 'collection', async () => ((await collectionStatus(o.collection)) === 'COMPLETED' ? true : undefined), 'paid');
  return o;
}

/** A webhook with BTCPay's envelope and signature, posted to the MID's route as the store does (and awaited). */
async function webhook(type: string, payload: Record<string, unknown>): Promise<void> {
  const delivery = randomBytes(8).toString('hex');
  const raw = JSON.stringify({
    deliveryId: delivery, webhookId: 'EngineRulesHook', originalDeliveryId: delivery, isRedelivery: false, type, timestamp: Math.floor(Date.now() / 1000), storeId: fake.storeId, ...payload,
  }, null, 2);
  const sig = `sha256=${createHmac('sha256', Buffer.from(fake.webhookSecret, 'utf8')).update(raw).digest('hex')}`;
  const res = await svc.anon.post(`/callbacks/btcpay/mids/${midId}`, undefined, { raw, headers: { 'content-type': 'application/json', 'btcpay-sig': sig } });
  expect(res.status).toBe(200);
}

const collectionStatus = async (ref: string) => expectOk(await client.get(`/v1/collections/${ref}`)).transaction_status as string;

/** Each refund's invoice, and where the fake's calls stood when it was asked for. */
const refunded = new Map<string, { invoice: string; from: number }>();
const description = (reference: string) => `PayCollect refund ${reference}`;
const pullPaymentOf = (reference: string) => [...fake.pullPayments.values()].find((pp) => pp.description === description(reference));

const refund: KindRules = {
  kind: 'refund',
  start: async () => {
    const { collection, invoice } = await paid();
    seq += 1;
    const ref = expectOk(await client.post(`/v1/collections/${collection}/refunds`, { amount: 5, merchant_reference: `ENG-BT-R-${process.pid}-${seq}` }), 'createRefund').gateway_reference;
    const { reference } = await svc.services.db.one('SELECT reference FROM refunds WHERE gateway_reference = $1', [ref]);
    refunded.set(reference, { invoice, from: fake.calls.length });
    return ref;
  },
  status: async (ref) => expectOk(await client.get(`/v1/refunds/${ref}`)).transaction_status,
  // mode `lose`: BTCPay makes the pull payment, its answer never arrives
  loseNextAnswer: () => { fake.mode = 'lose'; },
  answersAgain: () => { fake.mode = 'up'; },
  atProcessor: (r) => pullPaymentOf(r.reference),
  // the pull-payment list names no refund: a list call after a refund was asked for counts as a query about it
  calls: (r: RequestRow) => {
    const { invoice, from } = refunded.get(r.reference)!;
    const pp = pullPaymentOf(r.reference)?.id;
    return fake.calls.slice(from).flatMap((c) => {
      if (c.method === 'POST' && c.path === `/api/v1/stores/${fake.storeId}/invoices/${invoice}/refund`) return ['send'];
      if (c.method === 'GET' && c.path === `/api/v1/stores/${fake.storeId}/pull-payments?includeArchived=true`) return ['query'];
      if (c.method === 'GET' && pp !== undefined && c.path.startsWith(`/api/v1/pull-payments/${pp}`)) return ['query'];
      return [];
    });
  },
  // the customer claims the whole pull payment and the store pays it
  finish: (r) => {
    const pp = pullPaymentOf(r.reference);
    if (!pp || [...fake.payouts.values()].some((p) => p.pullPaymentId === pp.id)) return;
    fake.completePayout(fake.claim(pp.id).id);
  },
  // the completed payout's PayoutUpdated, as BTCPay sends it (PayoutTriggerProvider.cs)
  prompt: async (r) => {
    const pp = pullPaymentOf(r.reference)!;
    const payout = [...fake.payouts.values()].find((p) => p.pullPaymentId === pp.id)!;
    await webhook('PayoutUpdated', { payoutId: payout.id, pullPaymentId: pp.id, payoutState: payout.state });
  },
};

engineRules('BTCPay', w, [refund]);

describe('a BTCPay collection (an invoice made from payment_url, never sent by the engine)', () => {
  const invoiceQueries = (invoice: string) => fake.calls.filter((c) => c.method === 'GET' && c.path === `/api/v1/stores/${fake.storeId}/invoices/${invoice}`).length;

  afterEach(() => { fake.mode = 'up'; });

  it('completed makes no call when its signed InvoiceSettled comes, however often', async () => {
    const { collection, invoice } = await paid();
    const before = invoiceQueries(invoice);
    for (let i = 0; i < 6; i++) {
      await webhook('InvoiceSettled', { invoiceId: invoice, metadata: fake.invoice(invoice)!.metadata, overPaid: false, manuallyMarked: false });
      w.advance(400);
      await svc.services.processorRequests.checkDue('collection');
    }
    expect(invoiceQueries(invoice)).toBe(before);
    expect(await collectionStatus(collection)).toBe('COMPLETED');
  });

  it("opened, claimed by a process that stopped beating, is asked about at once, before its lease ends; a live process's claim is left to it", async () => {
    const dead = await opened();
    const alive = await opened();
    const at = w.now();
    await svc.services.db.none(
      `INSERT INTO worker_processes (id, started_at, heartbeat_at) VALUES ('engine-dead', $1, $2), ('engine-alive', $1, $1)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at`,
      [at, new Date(at.getTime() - 11_000)],
    );
    // each claimed for its status query by another process (their lease: a minute)
    for (const [ref, process] of [[dead.collection, 'engine-dead'], [alive.collection, 'engine-alive']]) {
      const r = await requestOf(svc, 'collection', ref);
      await svc.services.db.none('UPDATE processor_requests SET next_check_at = $2, claimed_by = $3 WHERE collection_id = $1', [r.id, new Date(at.getTime() + 60_000), process]);
    }
    await svc.services.db.none("UPDATE worker_processes SET heartbeat_at = $1 WHERE id = 'engine-alive'", [w.now()]);
    const before = [invoiceQueries(dead.invoice), invoiceQueries(alive.invoice)];
    expect(await svc.services.processorRequests.checkDue('collection')).toBe(1);
    expect(invoiceQueries(dead.invoice)).toBe(before[0] + 1);
    expect(invoiceQueries(alive.invoice)).toBe(before[1]);
    expect(await collectionStatus(dead.collection)).toBe('PENDING');
    await svc.services.db.none("DELETE FROM worker_processes WHERE id IN ('engine-dead', 'engine-alive')");
  });
});
