// Proves the processor-request engine's rules (engine-rules-shared.ts) against Paystack (the project's fake
// Paystack over real HTTP, which records every call) for the kinds the engine sends there: a refund (POST
// /refund; asked about by GET /refund/:id, or, before Paystack's id is known, by the transaction's refund
// list and the merchant note carrying our reference) and a payout (a recipient, then POST /transfer under
// our reference; asked about by GET /transfer/verify/:reference). Paystack's clear "not found": a refund
// list of the transaction without our note, a 404 "Transfer not found". Its prompts are its signed
// refund.* and transfer.* webhooks on the MID's route. A collection is a hosted checkout there, started
// when the customer opens payment_url or charged once while request-to-pay runs (checkouts.ts), never by
// the engine's send: only its prompt and takeover rules are the engine's, tested below.
import { encryptCard } from '../../scripts/encrypt-card';
import { signature } from '../../src/processors/paystack/transformers';
import { FakePaystack, NO_3DS_CARD } from '../fakes/paystack';
import { FAST_PROCESSORS, secretOf } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';
import { driven, engineRules, requestOf } from './engine-rules-shared';
import type { EngineWorld, KindRules, RequestRow } from './engine-rules-shared';

let fake: FakePaystack;
let hooks: Receiver;
let svc: TestService;
let client: Client;
let apiSecret: string;
const mids = { card: 0, bank: 0 };
let seq = 0;
let offsetMs = 0;
const w: EngineWorld = { svc: () => svc, advance: (ms) => { offsetMs += ms; }, now: () => new Date(Date.now() + offsetMs) };

beforeAll(async () => {
  fake = new FakePaystack();
  await fake.start();
  hooks = await startReceiver();
  // the workers are driven by hand on a clock the test moves
  svc = await startTestService({ workers: false, now: w.now, env: { APP_ENV: 'live', PAYSTACK_BASE_URL: fake.url, ...FAST_PROCESSORS } });
  const business = expectOk(await svc.admin.post('/v1/admin/businesses', { name: 'Lagos Books', default_currency: 'NGN' }), 'createBusiness');
  for (const method of ['CARD', 'BANK'] as const) {
    mids[method === 'CARD' ? 'card' : 'bank'] = expectOk(await svc.admin.post(`/v1/admin/businesses/${business.id}/mids`, {
      business_name: 'Lagos Books', service_type: 'paystack', payment_method: method, currency: 'NGN', credentials: { secret_key: fake.secretKey },
    }), 'createMid').id;
  }
  await svc.services.db.none('UPDATE mids SET disburses = true WHERE id = $1', [mids.bank]);
  // the webhook URL set in Paystack's dashboard: the card MID's route (the same key signs every event)
  fake.webhookUrl = `${svc.url}/callbacks/paystack/mids/${mids.card}`;
  expectOk(await svc.admin.post(`/v1/admin/businesses/${business.id}/verify`, { verified_by: 'ops.test' }), 'verifyBusiness');
  const token = expectOk(await svc.admin.post(`/v1/admin/businesses/${business.id}/api-tokens`, {
    notification_email: 'payments@lagosbooks.example', webhook_url: hooks.url, webhook_hash: 'whsec-engine-0123456789abcdef',
  }), 'createApiToken');
  await svc.services.db.none("UPDATE api_tokens SET ip_allowlist = '{127.0.0.1/32, ::1/128}' WHERE id = $1", [token.id]);
  apiSecret = token.api_secret;
  const access = expectOk(await svc.anon.post('/v1/auth/token', { api_key: token.api_key, expires_in: 3600 }, { headers: { 'secret-key': token.api_secret } }), 'createAccessToken');
  client = svc.merchant(access.token);
  await paid(); // the wallet's funds for the payouts
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

const secret = () => secretOf({ apiSecret });

/** A card payment Paystack charges at once (a direct card with no 3-D Secure step), not yet confirmed by a status query. */
async function charged(): Promise<string> {
  seq += 1;
  const key = (await client.get('/v1/public-key')).body.data.public_key;
  const encrypted = encryptCard(key, {
    full_name: 'Adaeze Okafor', card_number: NO_3DS_CARD, expiry_month: '12', expiry_year: String(new Date().getUTCFullYear() + 2), cvv: '408',
    billing_address: '3 Marina', billing_city: 'Lagos', billing_zip: '', billing_state: 'Lagos', billing_country: 'NG',
  });
  return expectOk(await client.post('/v1/collections/request-to-pay', {
    currency: 'NGN', amount: 25000, payment_method: 'CARD', redirect_url: `https://shop.example.org/orders/${seq}`, account_name: 'Adaeze Okafor',
    account_email: 'adaeze@customer.example', merchant_reference: `ENG-PS-${process.pid}-${seq}`, narration: 'Order of printed books', encrypted_card: encrypted,
  }), 'requestToPay').gateway_reference;
}

/** A hosted card checkout the customer opened (Paystack's transaction initialized) and has not paid. */
async function opened(): Promise<string> {
  seq += 1;
  const p = expectOk(await client.post('/v1/collections/request-to-pay', {
    currency: 'NGN', amount: 25000, payment_method: 'CARD', redirect_url: `https://shop.example.org/orders/${seq}`, account_name: 'Adaeze Okafor',
    account_email: 'adaeze@customer.example', merchant_reference: `ENG-PS-${process.pid}-${seq}`, narration: 'Order of printed books',
  }), 'requestToPay');
  const res = await fetch(p.payment_url, { redirect: 'manual' });
  expect(res.headers.get('location')).toContain(fake.url);
  expect(fake.transaction(p.gateway_reference)).toBeDefined();
  return p.gateway_reference;
}

async function paid(): Promise<string> {
  const ref = await charged();
  await driven(w, 'collection', async () => ((await collectionStatus(ref)) === 'COMPLETED' ? true : undefined), 'paid');
  return ref;
}

const collectionStatus = async (ref: string) => expectOk(await client.get(`/v1/collections/${ref}`)).transaction_status as string;

/** A signed webhook on the card MID's route, as Paystack posts it. */
async function webhook(event: string, data: unknown): Promise<void> {
  const raw = JSON.stringify({ event, data });
  const res = await svc.anon.post(`/callbacks/paystack/mids/${mids.card}`, undefined, { raw, headers: { 'content-type': 'application/json', 'x-paystack-signature': signature(Buffer.from(raw), fake.secretKey) } });
  expect(res.status).toBe(200);
}

/** Each refund's transaction at Paystack (its own payment): the refund list is asked by it. */
const transactionOf = new Map<string, string>();
const note = (reference: string) => `PayCollect refund ${reference}`;
const refundAt = (reference: string) => [...fake.refunds.values()].find((x) => x.merchantNote === note(reference));

const refund: KindRules = {
  kind: 'refund',
  start: async () => {
    const collection = await paid();
    seq += 1;
    const ref = expectOk(await client.post(`/v1/collections/${collection}/refunds`, { amount: 1000, merchant_reference: `ENG-PS-R-${process.pid}-${seq}` }), 'createRefund').gateway_reference;
    const { reference, vendor } = await svc.services.db.one(
      'SELECT r.reference, p.vendor_reference AS vendor FROM refunds r JOIN processor_requests p ON p.collection_id = r.collection_id WHERE r.gateway_reference = $1', [ref]);
    transactionOf.set(reference, vendor);
    return ref;
  },
  status: async (ref) => expectOk(await client.get(`/v1/refunds/${ref}`)).transaction_status,
  loseNextAnswer: () => { fake.swallowRefund = 1; },
  atProcessor: (r) => refundAt(r.reference),
  calls: (r: RequestRow) => {
    const id = refundAt(r.reference)?.id;
    const list = `?transaction=${encodeURIComponent(transactionOf.get(r.reference) ?? '-')}&perPage=100`;
    return fake.calls.flatMap((c) => {
      if (c.method === 'POST' && c.path === '/refund' && (c.body as { merchant_note?: string }).merchant_note === note(r.reference)) return ['send'];
      if (c.method === 'GET' && ((c.path === '/refund' && c.query === list) || (id !== undefined && c.path === `/refund/${id}`))) return ['query'];
      return [];
    });
  },
  // Paystack's refund.processed names the transaction, not the refund (doc/payments/refunds/events)
  prompt: async (r) => {
    const x = refundAt(r.reference)!;
    await webhook('refund.processed', { status: 'processed', transaction_reference: x.transaction.reference, refund_reference: x.refundReference, amount: String(x.amount), currency: x.currency });
  },
};

const payout: KindRules = {
  kind: 'payout',
  start: async () => {
    seq += 1;
    return expectOk(await client.post('/v1/disbursements', {
      amount: 100, currency: 'NGN', payment_method: 'BANK', account_number: '0123456789', bank_code: '058', account_name: 'Adaeze Okafor',
      merchant_reference: `ENG-PS-P-${process.pid}-${seq}`, narration: 'Weekly earnings',
    }, secret()), 'createDisbursement').gateway_reference;
  },
  status: async (ref) => expectOk(await client.get(`/v1/disbursements/${ref}`, secret())).transaction_status,
  loseNextAnswer: () => { fake.swallowTransfer = 1; },
  atProcessor: (r) => fake.transfers.get(r.reference),
  calls: (r) => fake.calls.flatMap((c) => {
    if (c.method === 'POST' && c.path === '/transfer' && (c.body as { reference?: string }).reference === r.reference) return ['send'];
    if (c.method === 'GET' && c.path === `/transfer/verify/${encodeURIComponent(r.reference)}`) return ['query'];
    return [];
  }),
  prompt: async (r) => webhook('transfer.success', fake.transferView(fake.transfers.get(r.reference)!)),
  // a completed payout is watched for transfer.reversed while the check schedule (two steps here) lasts
  promptedQueriesAtMost: 2,
};

engineRules('Paystack', w, [refund, payout]);

describe('a Paystack collection (a hosted checkout, never sent by the engine)', () => {
  const verifies = (ref: string) => fake.calls.filter((c) => c.method === 'GET' && c.path === `/transaction/verify/${ref}`).length;

  it('completed makes no call when its signed charge.success comes, however often', async () => {
    const ref = await paid();
    const before = verifies(ref);
    for (let i = 0; i < 6; i++) {
      await webhook('charge.success', fake.view(fake.transaction(ref)!));
      w.advance(400);
      await svc.services.processorRequests.checkDue('collection');
    }
    expect(verifies(ref)).toBe(before);
    expect(await collectionStatus(ref)).toBe('COMPLETED');
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
    for (const [ref, process] of [[dead, 'engine-dead'], [alive, 'engine-alive']]) {
      const r = await requestOf(svc, 'collection', ref);
      await svc.services.db.none('UPDATE processor_requests SET next_check_at = $2, claimed_by = $3 WHERE collection_id = $1', [r.id, new Date(at.getTime() + 60_000), process]);
    }
    await svc.services.db.none("UPDATE worker_processes SET heartbeat_at = $1 WHERE id = 'engine-alive'", [w.now()]);
    const before = [verifies(dead), verifies(alive)];
    expect(await svc.services.processorRequests.checkDue('collection')).toBe(1);
    expect(verifies(dead)).toBe(before[0] + 1);
    expect(await collectionStatus(dead)).toBe('PENDING');
    expect(verifies(alive)).toBe(before[1]);
    expect(await collectionStatus(alive)).toBe('PENDING');
    await svc.services.db.none("DELETE FROM worker_processes WHERE id IN ('engine-dead', 'engine-alive')");
  });
});
