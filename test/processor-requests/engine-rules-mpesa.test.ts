// Proves the processor-request engine's rules (engine-rules-shared.ts) against M-Pesa (the project's fake
// Daraja over real HTTP) for a collection (an STK push; asked about by STK Push Query, which needs the
// CheckoutRequestID only the push's answer or its callback gives) and a payout (B2C under our reference as
// the OriginatorConversationID; asked about by a Transaction Status query whose Result is posted to the
// payout's callback URL). Daraja's answers are asynchronous: a Result on the callback URL naming the id
// the send was given is the answer; any other callback is a prompt. M-Pesa has no clear "not found" for a
// request of ours: STK Push Query can only name a CheckoutRequestID (an unknown one is a 400 "Invalid
// CheckoutRequestID", about no reference of ours), and a Transaction Status query about an
// OriginatorConversationID M-Pesa never took is answered, as the fake implements it, by a Result R000002
// "The OriginalTransactionID is invalid", which may also mean a request still in its queue; so the engine
// never sends either again on it, tested below. A refund is a reversal of the payment's receipt (which
// its STK callback gave), sent once a Transaction Status query of that receipt, whose Result comes to the
// refund's callback URL, confirms it as this payment: that first step only reads, and is driven as the
// refund is started; the reversal is asked about by a Transaction Status query naming the
// OriginatorConversationID its answer, or its Result on the callback URL, gave. Two refunds cannot wait
// unsent side by side (driving the second's first step would send the first's reversal), so the takeover
// of a dead process's claim is tested below, on that first step.
import { FakeMpesa } from '../fakes/mpesa';
import { FAST_PROCESSORS, liveMerchant, secretOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { driven, engineRules, requestOf } from './engine-rules-shared';
import type { EngineWorld, KindRules, RequestRow } from './engine-rules-shared';

let fake: FakeMpesa;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;
let seq = 0;
let offsetMs = 0;
const w: EngineWorld = { svc: () => svc, advance: (ms) => { offsetMs += ms; }, now: () => new Date(Date.now() + offsetMs) };

beforeAll(async () => {
  fake = new FakeMpesa({ answerAfterMs: 10 });
  await fake.start();
  hooks = await startReceiver();
  // the workers are driven by hand on a clock the test moves
  svc = await startTestService({ workers: false, now: w.now, env: { APP_ENV: 'live', MPESA_BASE_URL: fake.url, ...FAST_PROCESSORS } });
  m = await liveMerchant(svc, { serviceType: 'mpesa', currency: 'KES', credentials: fake.payoutCredentials(), webhookUrl: hooks.url });
  await svc.services.db.none('UPDATE mids SET disburses = true WHERE id = $1', [m.midId]);
  await svc.services.db.none("UPDATE api_tokens SET ip_allowlist = '{127.0.0.1/32, ::1/128}' WHERE id = $1", [m.apiTokenId]);
  const funds = await collection.start(); // the wallet's funds for the payouts
  await driven(w, 'collection', async () => ((await collection.status(funds)) === 'COMPLETED' ? true : undefined), 'funded');
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

/** Where the fake's calls stood when each request was asked for (calls name no request: a test's own come after; sends come first in `calls`). */
const from = new Map<string, number>();
const since = (r: RequestRow, path: string) => fake.calls.slice(from.get(r.reference) ?? 0).filter((c) => c.path === path).length;

const collection: KindRules = {
  kind: 'collection',
  start: async () => {
    seq += 1;
    const ref = expectOk(await m.client.post('/v1/collections/request-to-pay', {
      currency: 'KES', amount: 1500, payment_method: 'MOBILE_MONEY', account_number: '254708374149', merchant_reference: `ENG-MP-C-${process.pid}-${seq}`, narration: 'Order for goods',
    })).gateway_reference;
    from.set((await requestOf(svc, 'collection', ref)).reference, fake.calls.length);
    return ref;
  },
  status: async (ref) => expectOk(await m.client.get(`/v1/collections/${ref}`)).transaction_status,
  loseNextAnswer: () => { fake.swallow = 1; },
  // M-Pesa's AccountReference is our gateway reference's first 12 characters
  atProcessor: (r) => pushesOf(r)[0],
  calls: (r) => [
    ...Array<string>(pushesOf(r).length).fill('send'),
    ...Array<string>(since(r, '/mpesa/stkpushquery/v1/query')).fill('query'),
  ],
  // the stkCallback of the push, delivered again
  prompt: async (r) => {
    const push = pushesOf(r)[0];
    const res = await fetch(push.callbackUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(stkCallback(push)) });
    expect(res.status).toBe(200);
  },
  noNotFound: 'STK Push Query names only a CheckoutRequestID',
};

const gatewayOf = new Map<string, string>();
function pushesOf(r: RequestRow) {
  const gateway = gatewayOf.get(r.reference);
  return [...fake.pushes.values()].filter((p) => gateway !== undefined && p.accountReference === gateway.slice(0, 12));
}

function stkCallback(p: { merchantRequestId: string; checkoutRequestId: string; receipt: string | null; amount: number; phone: string }) {
  return { Body: { stkCallback: {
    MerchantRequestID: p.merchantRequestId, CheckoutRequestID: p.checkoutRequestId, ResultCode: 0, ResultDesc: 'The service request is processed successfully.',
    CallbackMetadata: { Item: [{ Name: 'Amount', Value: p.amount }, { Name: 'MpesaReceiptNumber', Value: p.receipt }, { Name: 'TransactionDate', Value: 20261202020202 }, { Name: 'PhoneNumber', Value: Number(p.phone) }] },
  } } };
}

const payout: KindRules = {
  kind: 'payout',
  start: async () => {
    seq += 1;
    const ref = expectOk(await m.client.post('/v1/disbursements', {
      amount: 100, currency: 'KES', payment_method: 'MOBILE_MONEY', account_number: '254708374149', account_name: 'Jane Driver', merchant_reference: `ENG-MP-P-${process.pid}-${seq}`, narration: 'Weekly earnings',
    }, secretOf(m))).gateway_reference;
    from.set((await requestOf(svc, 'payout', ref)).reference, fake.calls.length);
    return ref;
  },
  status: async (ref) => expectOk(await m.client.get(`/v1/disbursements/${ref}`, secretOf(m))).transaction_status,
  loseNextAnswer: () => { fake.swallowPayout = 1; },
  atProcessor: (r) => [...fake.payments.values()].find((p) => p.originatorConversationId === r.reference),
  // a B2C taken (answered or not) is a payment at the fake; a B2C sent again under our reference, its 400 duplicate
  calls: (r) => [
    ...Array<string>((payout.atProcessor(r) ? 1 : 0) + fake.calls.slice(from.get(r.reference) ?? 0).filter((c) => c.path === '/mpesa/b2c/v3/paymentrequest' && c.status === 400).length).fill('send'),
    ...Array<string>(fake.statusQueries.filter((q) => q.originalConversationId === r.reference || (r.vendor_reference !== null && q.originalConversationId === r.vendor_reference)).length).fill('query'),
  ],
  // the B2C Result of the payout, posted to its callback URL again
  prompt: async (r) => {
    const sent = fake.resultsSent.filter((x) => JSON.stringify(x.body).includes(r.reference));
    const res = await fetch(sent[sent.length - 1].url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sent[sent.length - 1].body) });
    expect(res.status).toBe(200);
  },
  noNotFound: 'a Transaction Status Result R000002 is no clear not-found',
};

// the collection's gateway reference, for the pushes' AccountReference
const startCollection = collection.start;
collection.start = async () => {
  const ref = await startCollection();
  gatewayOf.set((await requestOf(svc, 'collection', ref)).reference, ref);
  return ref;
};

/** The reversals M-Pesa took for a refund (answered or not): they name its callback URL as their ResultURL. */
const reversalsOf = (r: RequestRow) => [...fake.reversals.values()].filter((x) => x.resultUrl.endsWith(r.callback_token));

const refund: KindRules = {
  kind: 'refund',
  // a payment of KES 1,500 completed with its receipt, refunded whole, the receipt confirmed: its reversal is due
  start: async () => {
    const paid = await collection.start();
    await driven(w, 'collection', async () => ((await collection.status(paid)) === 'COMPLETED' && (await paymentReceipt(paid)) !== null ? true : undefined), 'paid, with its receipt');
    seq += 1;
    const ref = expectOk(await m.client.post(`/v1/collections/${paid}/refunds`, { amount: 1500, merchant_reference: `ENG-MP-R-${process.pid}-${seq}` })).gateway_reference;
    await paymentConfirmed(ref);
    return ref;
  },
  status: async (ref) => expectOk(await m.client.get(`/v1/refunds/${ref}`)).transaction_status,
  loseNextAnswer: () => { fake.swallowReversal = 1; },
  atProcessor: (r) => reversalsOf(r)[0],
  // a reversal taken (answered or not) is a reversal at the fake; a query, a Transaction Status query about
  // the reversal (by its OriginatorConversationID), not the one about the payment's receipt that came first
  calls: (r) => [
    ...Array<string>(reversalsOf(r).length).fill('send'),
    ...Array<string>(fake.statusQueries.filter((q) => q.resultUrl.endsWith(r.callback_token) && q.originalConversationId !== null).length).fill('query'),
  ],
  // every Result M-Pesa posted to the refund's callback URL (about the payment, the reversal's own, a status query's), posted again
  prompt: async (r) => {
    const sent = fake.resultsSent.filter((x) => x.url.endsWith(r.callback_token));
    expect(sent.length).toBeGreaterThan(0);
    for (const x of sent) {
      const res = await fetch(x.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(x.body) });
      expect(res.status).toBe(200);
    }
  },
  noNotFound: 'a reversal is asked about only by the OriginatorConversationID M-Pesa gave it',
  ownTakeover: "a refund's first step, which only reads, is driven as it is started",
};

const paymentReceipt = async (collectionRef: string) =>
  (await svc.services.db.one<{ receipt: string | null }>('SELECT p.receipt FROM processor_requests p JOIN collections c ON c.id = p.collection_id WHERE c.gateway_reference = $1', [collectionRef])).receipt;

/**
 * A refund's first step, which only reads: Transaction Status of the payment's receipt, asked again until
 * its Result on the refund's callback URL confirms the payment (a Result that came before its query's id
 * was kept is dropped). Then the reversal is due, and nothing has sent it.
 */
async function paymentConfirmed(ref: string): Promise<void> {
  const r = await requestOf(svc, 'refund', ref);
  const asked = () => fake.statusQueries.filter((q) => q.resultUrl.endsWith(r.callback_token)).length;
  const answered = () => fake.resultsSent.filter((x) => x.url.endsWith(r.callback_token)).length;
  const confirmed = async () => (await svc.services.db.one<{ at: Date | null }>('SELECT original_confirmed_at AS at FROM refunds WHERE id = $1', [r.id])).at !== null;
  await eventually(async () => {
    if (await confirmed()) return true;
    w.advance(400);
    await svc.services.processorRequests.sendDue('refund');
    await eventually(() => (answered() >= asked() ? true : undefined), 5000, 'the Result about the payment');
    return (await confirmed()) ? true : undefined;
  }, 20_000, 'the refunded payment confirmed');
  expect(reversalsOf(r)).toEqual([]);
}

engineRules('M-Pesa', w, [collection, payout, refund]);

describe('M-Pesa, which has no clear "not found" for a request of ours', () => {
  it('never pushes again, nor asks blind, a collection of unknown outcome whose push never reached it', async () => {
    const ref = await collection.start();
    const r = await requestOf(svc, 'collection', ref);
    // what a push that never reached M-Pesa leaves behind: an unknown outcome, no CheckoutRequestID, its status query due
    await svc.services.db.none("UPDATE processor_requests SET state = 'unknown', next_send_at = NULL, next_check_at = $2 WHERE collection_id = $1", [r.id, w.now()]);
    for (let i = 0; i < 5; i++) {
      w.advance(400);
      await svc.services.processorRequests.sendDue('collection');
      await svc.services.processorRequests.checkDue('collection');
    }
    expect(collection.calls(r)).toEqual([]);
    expect(await requestOf(svc, 'collection', ref)).toMatchObject({ state: 'unknown', send_attempts: 0 });
    expect(await collection.status(ref)).toBe('PENDING');
  });

  it('never sends again a payout of unknown outcome whose B2C never reached it: asked by our OriginatorConversationID, whose Result R000002 settles nothing nor names it', async () => {
    const ref = await payout.start();
    const r = await requestOf(svc, 'payout', ref);
    // what a B2C that never reached M-Pesa leaves behind: an unknown outcome, its status query due
    await svc.services.db.none("UPDATE disbursements SET send_state = 'unknown', next_send_at = NULL, next_check_at = $2 WHERE id = $1", [r.id, w.now()]);
    const results = () => fake.resultsSent.filter((x) => x.url.endsWith(r.callback_token)).length;
    const queries = () => fake.statusQueries.filter((q) => q.resultUrl.endsWith(r.callback_token)).length;
    for (let i = 0; i < 5; i++) {
      w.advance(400);
      await svc.services.processorRequests.sendDue('payout');
      await svc.services.processorRequests.checkDue('payout');
      await eventually(async () => (results() >= queries() ? true : undefined), 5000, 'the Result on the callback URL');
    }
    // asked first by our reference; M-Pesa, never given it, answers R000002 on the callback URL
    expect(fake.statusQueries.filter((q) => q.originalConversationId === r.reference).length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(fake.resultsSent.find((x) => x.url.endsWith(r.callback_token))?.body)).toContain('R000002');
    // every query names our reference: a Result R000002 is headed by the query's own id, which names no payout
    expect(fake.statusQueries.filter((q) => q.resultUrl.endsWith(r.callback_token)).map((q) => q.originalConversationId)).toEqual(Array(queries()).fill(r.reference));
    expect((await requestOf(svc, 'payout', ref)).vendor_reference).toBeNull();
    // never sent: no B2C under our reference, the payout not final, its money still held
    expect(payout.calls(r).filter((x) => x === 'send')).toEqual([]);
    expect(payout.atProcessor(r)).toBeUndefined();
    expect((await requestOf(svc, 'payout', ref)).send_attempts).toBe(0);
    expect(['PENDING', 'PROCESSING']).toContain(await payout.status(ref));
  });

  it('never reverses again, nor asks blind, a refund of unknown outcome whose reversal never reached it: no OriginatorConversationID to ask by', async () => {
    const ref = await refund.start();
    const r = await requestOf(svc, 'refund', ref);
    // what a reversal that never reached M-Pesa leaves behind: an unknown outcome, its status query due
    await svc.services.db.none("UPDATE refunds SET send_state = 'unknown', next_send_at = NULL, next_check_at = $2 WHERE id = $1", [r.id, w.now()]);
    for (let i = 0; i < 5; i++) {
      w.advance(400);
      await svc.services.processorRequests.sendDue('refund');
      await svc.services.processorRequests.checkDue('refund');
    }
    expect(refund.calls(r)).toEqual([]);
    expect(refund.atProcessor(r)).toBeUndefined();
    expect(await requestOf(svc, 'refund', ref)).toMatchObject({ state: 'unknown', send_attempts: r.send_attempts, vendor_reference: null });
    expect(await refund.status(ref)).toBe('PENDING');
  });
});

it("a refund claimed by a process that stopped beating is taken over at once: its first step only reads (the receipt's Transaction Status), so it is asked again, no reversal; a live process's claim is left to it", async () => {
  const refunds: string[] = [];
  for (let i = 0; i < 2; i++) {
    const c = await collection.start();
    await driven(w, 'collection', async () => ((await collection.status(c)) === 'COMPLETED' ? true : undefined), 'paid');
    seq += 1;
    refunds.push(expectOk(await m.client.post(`/v1/collections/${c}/refunds`, { amount: 1500, merchant_reference: `ENG-MP-R-${process.pid}-${seq}` })).gateway_reference);
  }
  const [dead, alive] = refunds;
  const at = w.now();
  await svc.services.db.none(
    `INSERT INTO worker_processes (id, started_at, heartbeat_at) VALUES ('engine-dead', $1, $2), ('engine-alive', $1, $1)
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at`,
    [at, new Date(at.getTime() - 11_000)],
  );
  for (const [ref, process] of [[dead, 'engine-dead'], [alive, 'engine-alive']]) {
    const r = await requestOf(svc, 'refund', ref);
    await svc.services.db.none("UPDATE refunds SET send_state = 'sending', send_attempts = 1, next_send_at = $2, claimed_by = $3 WHERE id = $1", [r.id, new Date(at.getTime() + 60_000), process]);
  }
  await svc.services.db.none("UPDATE worker_processes SET heartbeat_at = $1 WHERE id = 'engine-alive'", [w.now()]);
  const receiptOf = async (ref: string) => (await svc.services.db.one('SELECT p.receipt FROM refunds r JOIN processor_requests p ON p.collection_id = r.collection_id WHERE r.gateway_reference = $1', [ref])).receipt as string;
  const [deadReceipt, aliveReceipt] = [await receiptOf(dead), await receiptOf(alive)];
  expect([deadReceipt, aliveReceipt]).toEqual([expect.stringMatching(/^NLJ/), expect.stringMatching(/^NLJ/)]);
  const asked = (receipt: string) => fake.statusQueries.filter((q) => q.transactionId === receipt).length;
  const before = [asked(deadReceipt), asked(aliveReceipt)];
  const reversals = fake.reversals.size;
  expect(await svc.services.processorRequests.sendDue('refund')).toBe(1);
  expect(asked(deadReceipt)).toBe(before[0] + 1);
  expect(asked(aliveReceipt)).toBe(before[1]);
  expect(fake.reversals.size).toBe(reversals);
  expect((await requestOf(svc, 'refund', dead)).state).not.toBe('unknown');
  expect((await requestOf(svc, 'refund', alive)).state).toBe('sending');
  await svc.services.db.none("DELETE FROM worker_processes WHERE id IN ('engine-dead', 'engine-alive')");
});
