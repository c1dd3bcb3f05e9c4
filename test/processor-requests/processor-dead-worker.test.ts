// Proves a collection whose send worker died mid-call never gets a second payment prompt, through the public API in live against M-Pesa (STK push, which is not relied on to refuse a repeated request) and MTN MoMo (the project's fakes over real HTTP): the claim marks the request 'sending'; the dead worker's request reached the processor, which held its answer, and nothing was written; after the claim's lease the next worker asks the processor with a status query instead of sending, and the collection settles from that answer (COMPLETED, or FAILED as the processor says), with exactly one request at the processor. A request the processor answers it never received ("not found") is sent again once, under the same reference.
import { mpesaProcessor } from '../../src/processors/mpesa';
import { mtnMomoProcessor } from '../../src/processors/mtn-momo';
import type { ClaimedCharge as Claimed } from '../../src/processor-requests/charges';
import type { Processor, SendResult } from '../../src/processors/types';
import { FakeMpesa } from '../fakes/mpesa';
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { FAST_PROCESSORS, journalsOf, liveMerchant, requestOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

/** the lease of a claim: four calls of PROCESSOR_TIMEOUT_MS (1.5 s here) and a 10 s margin */
const LEASE_MS = 16_000;

let mpesa: FakeMpesa;
let mtn: FakeMtnMomo;
let hooks: Receiver;
let svc: TestService;
let kes: LiveMerchant;
let ugx: LiveMerchant;
let offsetMs = 0;
let seq = 0;

beforeAll(async () => {
  mpesa = new FakeMpesa({ answerAfterMs: 10 });
  mtn = new FakeMtnMomo({ answerAfterMs: 10 });
  await mpesa.start();
  await mtn.start();
  hooks = await startReceiver();
  // the workers are driven by hand on a clock the test moves, so that a claim can outlive its worker
  svc = await startTestService({
    workers: false,
    now: () => new Date(Date.now() + offsetMs),
    env: { APP_ENV: 'live', MPESA_BASE_URL: mpesa.url, MTN_MOMO_BASE_URL: mtn.url, PENDING_TTL_SECONDS: '600', ...FAST_PROCESSORS },
  });
  kes = await liveMerchant(svc, { serviceType: 'mpesa', currency: 'KES', credentials: mpesa.credentials(), webhookUrl: hooks.url });
  ugx = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: mtn.credentials(), webhookUrl: hooks.url });
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await mpesa?.stop();
  await mtn?.stop();
});

async function pay(m: LiveMerchant, body: { currency: string; amount: number; account_number: string }): Promise<string> {
  seq += 1;
  const c = expectOk(await m.client.post('/v1/collections/request-to-pay', {
    ...body, payment_method: 'MOBILE_MONEY', merchant_reference: `DEAD-COL-${process.pid}-${seq}`, narration: 'Order for live goods',
  }));
  return c.gateway_reference as string;
}

/** A worker claims the one due send: marked 'sending' before its call, not found so already. */
async function claimOne(gatewayReference: string): Promise<Claimed> {
  const claimed = await svc.services.processorRequests.claimSends<Claimed>('collection');
  expect(claimed.map((c) => [c.gateway_reference, c.state, c.was_sending])).toEqual([[gatewayReference, 'sending', false]]);
  return claimed[0];
}

/** What the worker that claimed `r` sends before it dies: the same call, its answer never written. */
function deadWorkerSends(processor: Processor, credentials: Record<string, string>, r: Claimed): Promise<SendResult> {
  return processor.connector!.initiate({ midId: r.mid_id ?? 0, credentials }, {
    reference: r.reference, gatewayReference: r.gateway_reference, amountMinor: r.amount_minor, currency: r.currency,
    accountNumber: r.account_number ?? '', narration: r.narration, callbackUrl: svc.services.processorRequests.callbackUrl(r),
  });
}

const statusOf = async (m: LiveMerchant, ref: string) => expectOk(await m.client.get(`/v1/collections/${ref}`));
const stkPushesFor = (ref: string) => [...mpesa.pushes.values()].filter((p) => p.accountReference === ref.slice(0, 12));
const mtnPosts = () => mtn.calls.filter((c) => c.method === 'POST' && c.path === '/collection/v1_0/requesttopay');
const mtnPrompts = (ref: string) => [...mtn.requests.values()].filter((x) => x.externalId === ref);

it('asks M-Pesa about a collection whose worker died after its STK push, never pushes it again, and completes it from the status query', async () => {
  const ref = await pay(kes, { currency: 'KES', amount: 150, account_number: '254708374149' });
  const r = await claimOne(ref);
  // its STK push reaches M-Pesa, which holds the answer; the worker dies before it writes anything
  mpesa.swallow = 1;
  expect(await deadWorkerSends(mpesaProcessor({ baseUrl: mpesa.url!, timeoutMs: 1500, tokenMarginMs: 60_000 }), mpesa.credentials(), r)).toMatchObject({ kind: 'unknown' });
  expect(stkPushesFor(ref)).toHaveLength(1);
  const push = stkPushesFor(ref)[0];
  // the customer approves the one prompt; M-Pesa's callback names its CheckoutRequestID (a prompt, never proof)
  await eventually(async () => ((await requestOf(svc, ref))?.vendor_reference === push.checkoutRequestId ? true : undefined), 10_000, 'the callback names the push');
  expect(await requestOf(svc, ref)).toMatchObject({ state: 'sending', send_attempts: 1 });
  expect(await svc.services.processorRequests.sendDue()).toBe(0); // the lease holds it
  offsetMs += LEASE_MS + 1000;

  // the next worker claims it after the lease and finds it still 'sending': an unknown outcome, not a send
  expect(await svc.services.processorRequests.sendDue()).toBe(1);
  expect(stkPushesFor(ref)).toHaveLength(1);
  expect(await requestOf(svc, ref)).toMatchObject({ state: 'unknown', send_attempts: 2, reference: r.reference });
  expect((await statusOf(kes, ref)).transaction_status).toBe('PENDING');
  offsetMs += 1000; // the send schedule's delay before the status query
  await eventually(async () => {
    await svc.services.processorRequests.checkDue();
    return (await statusOf(kes, ref)).transaction_status === 'COMPLETED' ? true : undefined;
  }, 15_000, 'COMPLETED from the status query');

  // one STK push ever (one prompt on the phone), asked about by its CheckoutRequestID, credited once
  expect(stkPushesFor(ref)).toHaveLength(1);
  expect(mpesa.calls.filter((c) => c.path === '/mpesa/stkpushquery/v1/query').length).toBeGreaterThanOrEqual(1);
  expect(await requestOf(svc, ref)).toMatchObject({ state: 'settled', reference: r.reference, vendor_reference: push.checkoutRequestId });
  expect(await journalsOf(svc, ref)).toBe(1);
});

it('asks MTN about a collection whose worker died after its request to pay, and fails it as MTN says, with one prompt', async () => {
  const ref = await pay(ugx, { currency: 'UGX', amount: 50000, account_number: '46733123450' }); // the sandbox number that fails
  const r = await claimOne(ref);
  // the request to pay reaches MTN, which holds the answer; the worker dies before it writes anything
  mtn.swallow = 1;
  await deadWorkerSends(mtnMomoProcessor({ baseUrl: mtn.url!, timeoutMs: 1500, tokenMarginMs: 60_000 }), mtn.credentials(), r);
  expect(mtnPrompts(ref).map((x) => x.reference)).toEqual([r.reference]);
  await eventually(async () => (mtnPrompts(ref)[0].status === 'FAILED' ? true : undefined), 10_000, 'declined at MTN');
  const posts = mtnPosts().length;
  expect(await svc.services.processorRequests.sendDue()).toBe(0); // the lease holds it
  offsetMs += LEASE_MS + 1000;

  expect(await svc.services.processorRequests.sendDue()).toBe(1);
  expect(await requestOf(svc, ref)).toMatchObject({ state: 'unknown', send_attempts: 2 });
  offsetMs += 1000;
  expect(await svc.services.processorRequests.checkDue()).toBe(1);
  const got = await statusOf(ugx, ref);
  expect(got.transaction_status).toBe('FAILED');
  expect(mtn.calls.filter((c) => c.method === 'GET' && c.path === `/collection/v1_0/requesttopay/${r.reference}`).map((c) => c.status)).toEqual([200]);
  // never sent again: no request to pay since the worker died, one prompt at MTN, nothing credited
  expect(mtnPosts().length).toBe(posts);
  expect(mtnPrompts(ref)).toHaveLength(1);
  expect(await requestOf(svc, ref)).toMatchObject({ state: 'settled', reference: r.reference, next_send_at: null });
  expect(await journalsOf(svc, ref)).toBe(0);
});

it('sends once more, under the same reference, a collection whose worker died before its request reached MTN (MTN answers not found)', async () => {
  const ref = await pay(ugx, { currency: 'UGX', amount: 50000, account_number: '256772000123' });
  const r = await claimOne(ref); // ... and the worker dies before its call
  const posts = mtnPosts().length;
  expect(await svc.services.processorRequests.sendDue()).toBe(0);
  offsetMs += LEASE_MS + 1000;

  // after the lease: asked about, not sent
  expect(await svc.services.processorRequests.sendDue()).toBe(1);
  expect(mtnPosts().length).toBe(posts);
  expect(await requestOf(svc, ref)).toMatchObject({ state: 'unknown', send_attempts: 2 });
  offsetMs += 1000;
  expect(await svc.services.processorRequests.checkDue()).toBe(1);
  // MTN has no request under the reference (404): queued again, the same reference
  expect(mtn.calls.filter((c) => c.method === 'GET' && c.path === `/collection/v1_0/requesttopay/${r.reference}`).map((c) => c.status)).toEqual([404]);
  expect(await requestOf(svc, ref)).toMatchObject({ state: 'queued', reference: r.reference });
  expect(await svc.services.processorRequests.sendDue()).toBe(1);
  expect(mtnPosts().slice(posts).map((c) => c.status)).toEqual([202]);
  expect(mtnPrompts(ref).map((x) => x.reference)).toEqual([r.reference]);
  offsetMs += 1000;
  await eventually(async () => {
    await svc.services.processorRequests.checkDue();
    return (await statusOf(ugx, ref)).transaction_status === 'COMPLETED' ? true : undefined;
  }, 15_000, 'COMPLETED');
  expect(mtnPosts().slice(posts)).toHaveLength(1);
  expect(await requestOf(svc, ref)).toMatchObject({ state: 'settled', reference: r.reference, send_attempts: 3 });
  expect(await journalsOf(svc, ref)).toBe(1);
});
