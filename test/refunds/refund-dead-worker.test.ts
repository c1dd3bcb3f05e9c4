// Proves a refund whose worker died mid-call is never sent twice, through the public API in live against MTN MoMo (the project's fake MTN over real HTTP): the claim marks it 'sending', the dead worker's refund request reached MTN and nothing was written; after the claim's lease the next worker asks MTN with the status query instead of sending, and the refund settles from that answer, with exactly one refund request at MTN and the hold posted out once.
import type { Claimed as RefundClaim } from '../../src/refunds/processor-calls';
import { mtnMomoProcessor } from '../../src/processors/mtn-momo';
import type { RefundConnector } from '../../src/processors/types';
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { FAST_PROCESSORS, liveMerchant } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

/** the lease of a claim: four calls of PROCESSOR_TIMEOUT_MS (1.5 s here) and a 10 s margin */
const LEASE_MS = 16_000;

let fake: FakeMtnMomo;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;
let offsetMs = 0;

beforeAll(async () => {
  fake = new FakeMtnMomo({ answerAfterMs: 10 });
  await fake.start();
  hooks = await startReceiver();
  // the workers are driven by hand on a clock the test moves, so that a claim can outlive its worker
  svc = await startTestService({ workers: false, now: () => new Date(Date.now() + offsetMs), env: { APP_ENV: 'live', MTN_MOMO_BASE_URL: fake.url, ...FAST_PROCESSORS } });
  m = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.refundCredentials(), webhookUrl: hooks.url });
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

it('asks MTN about a refund whose worker died after its request, never sends it again, and settles it from the status query', async () => {
  const collection = expectOk(await m.client.post('/v1/collections/request-to-pay', {
    currency: 'UGX', amount: 50000, payment_method: 'MOBILE_MONEY', account_number: '256772123456', merchant_reference: `DEAD-RFD-${process.pid}`, narration: 'Order for live goods',
  })).gateway_reference as string;
  await eventually(async () => {
    await svc.services.processorRequests.sendDue();
    await svc.services.processorRequests.checkDue();
    return expectOk(await m.client.get(`/v1/collections/${collection}`)).transaction_status === 'COMPLETED' ? true : undefined;
  }, 15_000, 'collected');
  const before = expectOk(await m.client.get('/v1/data/wallets/UGX/balance'));
  const r = expectOk(await m.client.post(`/v1/collections/${collection}/refunds`, { amount: 20000, merchant_reference: `RFD-DEAD-${process.pid}` }));
  // a worker claims it (marked 'sending' before its call), its request reaches MTN, and it dies before writing anything
  const claimed = await svc.services.processorRequests.claimSends<RefundClaim>('refund');
  expect(claimed.map((c) => [c.gateway_reference, c.send_state, c.was_sending])).toEqual([[r.gateway_reference, 'sending', false]]);
  const c = claimed[0];
  const refunds = mtnMomoProcessor({ baseUrl: fake.url!, timeoutMs: 1500, tokenMarginMs: 60_000 }).connector?.refunds as RefundConnector;
  const sent = await refunds.initiateRefund({ midId: m.midId, credentials: fake.refundCredentials() }, {
    reference: c.reference, gatewayReference: c.gateway_reference, amountMinor: c.amount_minor, currency: c.currency, reason: c.reason,
    original: { reference: c.original_reference!, vendorReference: c.original_vendor_reference, receipt: c.original_receipt, amountMinor: c.collection_amount_minor, accountNumber: c.account_number },
    callbackUrl: `${svc.url}/callbacks/mtn_momo/${c.callback_token}`,
  });
  expect(sent.kind).toBe('accepted');
  const posts = () => fake.calls.filter((x) => x.method === 'POST' && x.path === '/disbursement/v1_0/refund');
  const queries = () => fake.calls.filter((x) => x.method === 'GET' && x.path === `/disbursement/v1_0/refund/${c.reference}`);
  expect(posts()).toHaveLength(1);
  expect(await svc.services.processorRequests.sendDue('refund')).toBe(0); // the lease holds it
  offsetMs += LEASE_MS + 1000;

  // the next worker claims it after the lease and finds it still 'sending': an unknown outcome, not a send
  expect(await svc.services.processorRequests.sendDue('refund')).toBe(1);
  expect(posts()).toHaveLength(1);
  expect(expectOk(await m.client.get(`/v1/refunds/${r.gateway_reference}`))).toMatchObject({ transaction_status: 'PENDING', pending_reason: 'outcome_unknown' });
  offsetMs += 1000; // the send schedule's delay before the status query
  await eventually(async () => {
    await svc.services.processorRequests.checkDue('refund');
    return expectOk(await m.client.get(`/v1/refunds/${r.gateway_reference}`)).transaction_status === 'COMPLETED' ? true : undefined;
  }, 15_000, 'COMPLETED from the status query');

  // one refund request ever, under our reference; MTN was asked about it by that reference
  expect(posts()).toHaveLength(1);
  expect([...fake.refunds.keys()].filter((k) => k === c.reference)).toEqual([c.reference]);
  expect(queries().length).toBeGreaterThanOrEqual(1);
  expect(await svc.services.db.one('SELECT reference, send_state FROM refunds WHERE id = $1', [c.id])).toEqual({ reference: c.reference, send_state: 'settled' });
  expect(expectOk(await m.client.get('/v1/data/wallets/UGX/balance'))).toMatchObject({ available_balance: before.available_balance - 20000, refund_held_balance: 0 });
  const kinds = (await svc.services.db.any<{ kind: string }>('SELECT kind FROM journals WHERE refund_id = $1 ORDER BY id', [c.id])).map((j) => j.kind);
  expect(kinds).toEqual(['refund_hold', 'refund_out']);
});
