// Proves disbursements survive a restart of the service on the same database, through the public API and
// MTN MoMo's fake over real HTTP: a payout whose send was in flight when the service stopped (MTN got it,
// its answer never came back) has an unknown outcome, which the next service asks about with a status query
// under the same reference, never a resend, with one transfer at MTN, the hold posted out exactly and one notification per state change;
// a payout still queued when the service stopped is sent once by the next one; a payout claimed by a
// service that died (its call may have reached MTN) is never sent blind: after the claim's lease the next
// one asks MTN first, and sends it once, under its reference, only because MTN does not know it. The business's delivery log then lists every disbursement notification under the
// disbursement's own reference, as a disbursement's.
import type { Claimed as PayoutClaim } from '../../src/disbursements/processor-calls';
import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/db';
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { freshDatabase } from '../helpers/db';
import { FAST_PROCESSORS, liveMerchant } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { Client, startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

// one deployment: both processes share the keys (sealed MID credentials, merchants' access tokens)
const env = {
  APP_ENV: 'live',
  ...FAST_PROCESSORS,
  MASTER_KEY: randomBytes(32).toString('base64'),
  JWT_SECRET: randomBytes(32).toString('base64url'),
};

let fake: FakeMtnMomo;
let hooks: Receiver;
let database: Database;
let first: TestService | null = null;
let second: TestService | null = null;
let third: TestService | null = null;
let merchant: LiveMerchant | null = null;

beforeAll(async () => {
  fake = new FakeMtnMomo({ answerAfterMs: 10 });
  await fake.start();
  hooks = await startReceiver();
  database = await freshDatabase();
});

afterAll(async () => {
  await third?.close();
  await second?.close();
  await first?.close();
  await database?.close();
  await hooks?.close();
  await fake?.stop();
});

type Wallet = { balance: number; available_balance: number; disbursement_held_balance: number };

function payout(n: number, amount: number) {
  return { amount, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Jane Driver', merchant_reference: `PAY-RESTART-${process.pid}-${n}`, narration: 'Weekly earnings' };
}

it('settles a send in flight at the stop under its reference by a status query (never a resend), and sends one still queued once', async () => {
  // the first service's workers are driven by hand, so that a payout can be left in the queue at the stop
  first = await startTestService({ database, workers: false, env: { ...env, MTN_MOMO_BASE_URL: fake.url } });
  const s = first.services;
  const m: LiveMerchant = (merchant = await liveMerchant(first, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.refundCredentials(), webhookUrl: hooks.url }));
  await database.db.none('UPDATE mids SET disburses = true WHERE id = $1', [m.midId]);
  await database.db.none('UPDATE businesses SET disbursement_fee_fixed_minor = 50000 WHERE id = $1', [m.businessId]);
  await database.db.none("UPDATE api_tokens SET ip_allowlist = '{127.0.0.1/32, ::1/128}' WHERE id = $1", [m.apiTokenId]);
  const secret = { headers: { 'secret-key': m.apiSecret } };
  const funding = expectOk(await m.client.post('/v1/collections/request-to-pay', {
    currency: 'UGX', amount: 200000, payment_method: 'MOBILE_MONEY', account_number: '256772123456', merchant_reference: `RESTART-FUND-${process.pid}`, narration: 'Order for live goods',
  }));
  await eventually(async () => {
    await s.processorRequests.sendDue();
    await s.processorRequests.checkDue();
    return expectOk(await m.client.get(`/v1/collections/${funding.gateway_reference}`)).transaction_status === 'COMPLETED' ? true : undefined;
  }, 15_000, 'funded');
  const before = expectOk(await m.client.get('/v1/data/wallets/UGX/balance')) as Wallet;
  const referenceOf = async (gatewayReference: string) => (await database.db.one('SELECT reference FROM disbursements WHERE gateway_reference = $1', [gatewayReference])).reference as string;
  const transferPosts = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/disbursement/v1_0/transfer');

  // MTN takes the transfer and keeps it PENDING, and its answer to the POST never comes back
  fake.swallowTransfer = 1;
  fake.holdNextTransfer = 1;
  const inFlight = expectOk(await m.client.post('/v1/disbursements', payout(1, 30000), secret));
  const reference = await referenceOf(inFlight.gateway_reference);
  const sending = s.processorRequests.sendDue('payout');
  await eventually(async () => (fake.transfers.has(reference) ? true : undefined), 10_000, 'the transfer at MTN');
  // meanwhile another payout is accepted, and is still in the queue when the service stops
  const queued = expectOk(await m.client.post('/v1/disbursements', payout(2, 20000), secret));
  const queuedReference = await referenceOf(queued.gateway_reference);
  // a stopping service waits for the send in flight; the call times out without MTN's answer: an unknown
  // outcome, which only a status query under the same X-Reference-Id settles (never a second POST)
  expect(await sending).toBe(1);
  await first.close();
  first = null;
  const stateOf = (gatewayReference: string) => database.db.one('SELECT status, send_state, reference FROM disbursements WHERE gateway_reference = $1', [gatewayReference]);
  expect(await stateOf(inFlight.gateway_reference)).toEqual({ status: 'PENDING', send_state: 'unknown', reference });
  expect(await stateOf(queued.gateway_reference)).toEqual({ status: 'PENDING', send_state: 'queued', reference: queuedReference });
  expect(fake.transfers.has(queuedReference)).toBe(false);
  const postsAtStop = transferPosts().length; // the fake logs the calls it answers: not the swallowed one
  expect(fake.transfers.get(reference)).toMatchObject({ status: 'PENDING', externalId: inFlight.gateway_reference });

  second = await startTestService({ database, env: { ...env, MTN_MOMO_BASE_URL: fake.url } });
  const client = new Client(second.url, m.client.auth);
  const statusOf = async (gatewayReference: string) => expectOk(await client.get(`/v1/disbursements/${gatewayReference}`, secret)).transaction_status as string;
  await eventually(async () => ((await statusOf(inFlight.gateway_reference)) === 'PROCESSING' ? true : undefined), 15_000, 'the status query finds it at MTN');
  fake.settleTransfer(reference, 'SUCCESSFUL');
  await eventually(async () => ((await statusOf(inFlight.gateway_reference)) === 'COMPLETED' && (await statusOf(queued.gateway_reference)) === 'COMPLETED' ? true : undefined), 15_000, 'both COMPLETED');

  // one transfer each at MTN, under the reference each was written with: the one in flight was settled by
  // the status query under its reference and never posted again; the queued one made once
  expect([...fake.transfers.values()].filter((t) => t.externalId === inFlight.gateway_reference).map((t) => t.reference)).toEqual([reference]);
  expect([...fake.transfers.values()].filter((t) => t.externalId === queued.gateway_reference).map((t) => t.reference)).toEqual([queuedReference]);
  expect(transferPosts().slice(postsAtStop).map((c) => c.status)).toEqual([202]);
  expect(fake.calls.some((c) => c.method === 'GET' && c.path === `/disbursement/v1_0/transfer/${reference}`)).toBe(true);
  expect(await stateOf(inFlight.gateway_reference)).toEqual({ status: 'COMPLETED', send_state: 'settled', reference });
  expect(await stateOf(queued.gateway_reference)).toEqual({ status: 'COMPLETED', send_state: 'settled', reference: queuedReference });
  // the money: both holds posted out, amount and fee, nothing held
  expect(expectOk(await client.get('/v1/data/wallets/UGX/balance'))).toMatchObject({
    balance: before.balance - 30500 - 20500, available_balance: before.available_balance - 30500 - 20500, disbursement_held_balance: 0,
  });
  // one notification per state change of each, delivered
  for (const d of [inFlight, queued]) {
    const notified = await eventually(async () => {
      const n = await database.db.any<{ sequence: number; transaction_status: string; delivered: boolean }>(
        'SELECT n.sequence, n.transaction_status, n.delivered_at IS NOT NULL AS delivered FROM notifications n JOIN disbursements d ON d.id = n.disbursement_id WHERE d.gateway_reference = $1 ORDER BY n.sequence',
        [d.gateway_reference],
      );
      return n.length >= 2 && n.every((x) => x.delivered) ? n : undefined;
    }, 15_000, 'notifications delivered');
    expect(notified.map((n) => [n.sequence, n.transaction_status])).toEqual([[1, 'PROCESSING'], [2, 'COMPLETED']]);
  }
}, 600_000); // two service starts, each over a minute on a loaded machine

/** the lease of a claim: four calls of PROCESSOR_TIMEOUT_MS (1.5 s here) and a 10 s margin */
const LEASE_MS = 16_000;

it('never sends blind a payout claimed by a service that died: after the lease a status query asks, and MTN not knowing it sends it once under its reference', async () => {
  await second?.close();
  second = null;
  let offsetMs = 0;
  third = await startTestService({ database, workers: false, now: () => new Date(Date.now() + offsetMs), env: { ...env, MTN_MOMO_BASE_URL: fake.url } });
  const m = merchant!;
  const client = new Client(third.url, m.client.auth);
  const secret = { headers: { 'secret-key': m.apiSecret } };
  const before = expectOk(await client.get('/v1/data/wallets/UGX/balance')) as Wallet;
  const d = expectOk(await client.post('/v1/disbursements', payout(3, 10000), secret));
  // what a service that claimed the send and died before its call left behind: the claim (its lease, the 'sending' mark) and nothing else
  const claimed = await third.services.processorRequests.claimSends<PayoutClaim>('payout');
  expect(claimed.map((c) => [c.gateway_reference, c.send_state, c.was_sending])).toEqual([[d.gateway_reference, 'sending', false]]);
  const { reference } = claimed[0];
  const callsFor = (method: string, path: string) => fake.calls.filter((c) => c.method === method && c.path === path);
  const posts = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/disbursement/v1_0/transfer');
  const postsBefore = posts().length;
  expect(await third.services.processorRequests.sendDue('payout')).toBe(0); // the lease holds it
  offsetMs += LEASE_MS + 1000;
  // after the lease its call may have reached MTN: an unknown outcome, asked about before anything is sent
  expect(await third.services.processorRequests.sendDue('payout')).toBe(1);
  expect(posts().length).toBe(postsBefore);
  expect(await database.db.one('SELECT status, pending_reason, send_state FROM disbursements WHERE gateway_reference = $1', [d.gateway_reference]))
    .toEqual({ status: 'PENDING', pending_reason: 'outcome_unknown', send_state: 'unknown' });
  offsetMs += 1000; // the send schedule's delay before the status query
  expect(await third.services.processorRequests.checkDue('payout')).toBe(1);
  // MTN has no transfer under the reference (404): queued again, the same reference
  expect(callsFor('GET', `/disbursement/v1_0/transfer/${reference}`).map((c) => c.status)).toEqual([404]);
  expect(await database.db.one('SELECT pending_reason, send_state FROM disbursements WHERE gateway_reference = $1', [d.gateway_reference])).toEqual({ pending_reason: 'awaiting_processor', send_state: 'queued' });
  expect(await third.services.processorRequests.sendDue('payout')).toBe(1);
  expect(posts().slice(postsBefore).map((c) => c.status)).toEqual([202]);
  expect([...fake.transfers.values()].filter((t) => t.externalId === d.gateway_reference).map((t) => t.reference)).toEqual([reference]);
  await eventually(async () => {
    await third!.services.processorRequests.checkDue('payout');
    const got = expectOk(await client.get(`/v1/disbursements/${d.gateway_reference}`, secret));
    return got.transaction_status === 'COMPLETED' ? true : undefined;
  }, 15_000, 'COMPLETED');
  expect(await database.db.one('SELECT reference, send_attempts FROM disbursements WHERE gateway_reference = $1', [d.gateway_reference])).toEqual({ reference, send_attempts: 3 });
  expect(expectOk(await client.get('/v1/data/wallets/UGX/balance'))).toMatchObject({ balance: before.balance - 10500, disbursement_held_balance: 0 });
  const n = await database.db.any('SELECT n.transaction_status FROM notifications n JOIN disbursements d ON d.id = n.disbursement_id WHERE d.gateway_reference = $1 ORDER BY n.sequence', [d.gateway_reference]);
  expect(n.map((x) => x.transaction_status)).toEqual(['PROCESSING', 'COMPLETED']);
}, 600_000);

it("lists each disbursement's notifications in the business's delivery log, under the disbursement's own reference", async () => {
  const svc = third!;
  const m = merchant!;
  const ours = await database.db.any<{ gateway_reference: string; sequence: number; transaction_status: string }>(
    'SELECT d.gateway_reference, n.sequence, n.transaction_status FROM notifications n JOIN disbursements d ON d.id = n.disbursement_id WHERE d.business_id = $1 ORDER BY n.id DESC',
    [m.businessId],
  );
  expect(ours).toHaveLength(6); // three payouts, PROCESSING and COMPLETED each
  const res = await svc.admin.get(`/v1/admin/businesses/${m.businessId}/deliveries?per_page=100`);
  expect(res.status).toBe(200);
  const listed = res.body.data as { subject: string; gateway_reference: string; sequence: number; transaction_status: string }[];
  expect(listed.filter((x) => x.subject === 'disbursement').map((x) => ({ gateway_reference: x.gateway_reference, sequence: x.sequence, transaction_status: x.transaction_status }))).toEqual(ours);
  // the funding collection's notification is there too, as a collection's
  expect(listed.filter((x) => x.subject === 'collection')).toHaveLength(1);
  expect(listed).toHaveLength(7);
  // another business's log does not hold them
  const other = expectOk(await svc.admin.post('/v1/admin/businesses', { name: 'Other Shop', default_currency: 'UGX', fee_bearer: 'merchant', fees: [] }));
  const theirs = await svc.admin.get(`/v1/admin/businesses/${other.id}/deliveries`);
  expect(theirs.status).toBe(200);
  expect(theirs.body.data).toEqual([]);
});
