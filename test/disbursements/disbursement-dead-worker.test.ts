// Proves a payout whose worker died mid-call is never sent twice, through the public API in live against M-Pesa's B2C (the project's fake Daraja over real HTTP, which, unlike MTN and Paystack, is not relied on to refuse a repeated OriginatorConversationID): the claim marks it 'sending', the dead worker's B2C request reached M-Pesa and nothing was written; after the claim's lease the next worker asks M-Pesa with a Transaction Status query instead of sending, and the payout settles from that query's answer, with exactly one B2C request at M-Pesa and the hold posted out once.
import type { Claimed as PayoutClaim } from '../../src/disbursements/processor-calls';
import { mpesaProcessor } from '../../src/processors/mpesa';
import type { PayoutConnector } from '../../src/processors/types';
import { FakeMpesa } from '../fakes/mpesa';
import { FAST_PROCESSORS, liveMerchant, secretOf, walletOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

/** the lease of a claim: four calls of PROCESSOR_TIMEOUT_MS (1.5 s here) and a 10 s margin */
const LEASE_MS = 16_000;

let fake: FakeMpesa;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;
let offsetMs = 0;

beforeAll(async () => {
  fake = new FakeMpesa({ answerAfterMs: 10 });
  await fake.start();
  hooks = await startReceiver();
  // the workers are driven by hand on a clock the test moves, so that a claim can outlive its worker
  svc = await startTestService({ workers: false, now: () => new Date(Date.now() + offsetMs), env: { APP_ENV: 'live', MPESA_BASE_URL: fake.url, ...FAST_PROCESSORS } });
  m = await liveMerchant(svc, { serviceType: 'mpesa', currency: 'KES', credentials: fake.payoutCredentials(), webhookUrl: hooks.url });
  await svc.services.db.none('UPDATE mids SET disburses = true WHERE id = $1', [m.midId]);
  await svc.services.db.none('UPDATE businesses SET disbursement_fee_fixed_minor = 1000 WHERE id = $1', [m.businessId]);
  await svc.services.db.none("UPDATE api_tokens SET ip_allowlist = '{127.0.0.1/32, ::1/128}' WHERE id = $1", [m.apiTokenId]);
  const funding = expectOk(await m.client.post('/v1/collections/request-to-pay', {
    currency: 'KES', amount: 1500, payment_method: 'MOBILE_MONEY', account_number: '254708374149', merchant_reference: `DEAD-FUND-${process.pid}`, narration: 'Order for live goods',
  }));
  await eventually(async () => {
    await svc.services.processorRequests.sendDue();
    await svc.services.processorRequests.checkDue();
    return expectOk(await m.client.get(`/v1/collections/${funding.gateway_reference}`)).transaction_status === 'COMPLETED' ? true : undefined;
  }, 15_000, 'funded');
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

it('asks M-Pesa about a payout whose worker died after its B2C request, never sends it again, and settles it from the status query', async () => {
  const before = await walletOf(m, 'KES');
  const d = expectOk(await m.client.post('/v1/disbursements', {
    amount: 500, currency: 'KES', payment_method: 'MOBILE_MONEY', account_number: '254708374149', account_name: 'Jane Driver', merchant_reference: `PAY-DEAD-${process.pid}`, narration: 'Weekly earnings',
  }, secretOf(m)));
  // a worker claims it (marked 'sending' before its call) ...
  const claimed = await svc.services.processorRequests.claimSends<PayoutClaim>('payout');
  expect(claimed.map((c) => [c.gateway_reference, c.send_state, c.was_sending])).toEqual([[d.gateway_reference, 'sending', false]]);
  const c = claimed[0];
  const callbackUrl = `${svc.url}/callbacks/mpesa/${c.callback_token}`;
  // ... its B2C request reaches M-Pesa, which pays; the worker dies before it writes anything, and the B2C Result to the callback URL is lost
  fake.dropResultsTo.set(callbackUrl, 1);
  const payouts = mpesaProcessor({ baseUrl: fake.url!, timeoutMs: 1500, tokenMarginMs: 60_000 }).connector?.payouts as PayoutConnector;
  const sent = await payouts.initiatePayout({ midId: m.midId, credentials: fake.payoutCredentials() }, {
    reference: c.reference, gatewayReference: c.gateway_reference, amountMinor: c.amount_minor, currency: c.currency, paymentMethod: c.payment_method,
    accountNumber: c.account_number, bankCode: c.bank_code, accountName: c.account_name, narration: c.narration ?? c.merchant_reference, callbackUrl,
  });
  expect(sent).toEqual({ kind: 'accepted', vendorReference: c.reference });
  const b2cRequests = () => fake.calls.filter((x) => x.path === '/mpesa/b2c/v3/paymentrequest');
  await eventually(async () => (fake.payments.get(c.reference)?.resultCode === '0' && fake.dropResultsTo.get(callbackUrl) === 0 ? true : undefined), 10_000, 'paid at M-Pesa, its Result lost');
  expect(await svc.services.processorRequests.sendDue('payout')).toBe(0); // the lease holds it
  offsetMs += LEASE_MS + 1000;

  // the next worker claims it after the lease and finds it still 'sending': an unknown outcome, not a send
  expect(await svc.services.processorRequests.sendDue('payout')).toBe(1);
  expect(b2cRequests()).toHaveLength(1);
  expect(expectOk(await m.client.get(`/v1/disbursements/${d.gateway_reference}`, secretOf(m)))).toMatchObject({ transaction_status: 'PENDING', pending_reason: 'outcome_unknown' });
  offsetMs += 1000; // the send schedule's delay before the status query
  const settled = await eventually(async () => {
    await svc.services.processorRequests.checkDue('payout');
    const got = expectOk(await m.client.get(`/v1/disbursements/${d.gateway_reference}`, secretOf(m)));
    return got.transaction_status === 'COMPLETED' ? got : undefined;
  }, 15_000, 'COMPLETED from the status query');
  expect(settled.failure_reason).toBeNull();

  // one B2C request ever, under our reference; M-Pesa was asked about it by that reference, and its Result settled it
  expect(b2cRequests()).toHaveLength(1);
  expect([...fake.payments.values()].filter((p) => p.occasion === d.gateway_reference).map((p) => p.originatorConversationId)).toEqual([c.reference]);
  expect(fake.statusQueries.filter((q) => q.originalConversationId === c.reference).length).toBeGreaterThanOrEqual(1);
  expect(await svc.services.db.one('SELECT reference, send_state FROM disbursements WHERE id = $1', [c.id])).toEqual({ reference: c.reference, send_state: 'settled' });
  expect(await walletOf(m, 'KES')).toMatchObject({ balance: before.balance - 510, available_balance: before.available_balance - 510, disbursement_held_balance: 0 });
  const kinds = (await svc.services.db.any('SELECT kind FROM journals WHERE disbursement_id = $1 ORDER BY id', [c.id])).map((j: { kind: string }) => j.kind);
  expect(kinds).toEqual(['disbursement_hold', 'disbursement_out']);
});
