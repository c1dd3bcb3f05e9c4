// Proves MTN MoMo refunds against the fake over real HTTP: the Disbursement product's own credentials and token, success, failure, a reused reference (409), a lost or unreadable answer settled by the status query, a MID that cannot refund, and the callback.
import { randomUUID } from 'node:crypto';
import { mtnMomoProcessor } from '../../../src/processors/mtn-momo';
import type { CallContext, RefundConnector, RefundOrder } from '../../../src/processors/types';
import { FakeMtnMomo } from '../../fakes/mtn-momo';
import { eventually, startReceiver } from '../../helpers/notify-fixtures';
import type { Receiver } from '../../helpers/notify-fixtures';

let fake: FakeMtnMomo;
let hooks: Receiver;
let refunds: RefundConnector;
let ctx: CallContext;
let n = 0;

beforeAll(async () => {
  fake = new FakeMtnMomo({ answerAfterMs: 10 });
  await fake.start();
  hooks = await startReceiver();
  const processor = mtnMomoProcessor({ baseUrl: fake.url, timeoutMs: 4000, tokenMarginMs: 1000 });
  refunds = processor.connector!.refunds!;
  ctx = { midId: 1, credentials: fake.refundCredentials() };
});

afterAll(async () => {
  await hooks?.close();
  await fake?.stop();
});

afterEach(() => {
  fake.mode = 'up';
});

/** A request to pay the fake has completed, as the refund's original. */
async function collected(amount = 50000): Promise<RefundOrder['original']> {
  n += 1;
  const reference = randomUUID();
  const sent = await mtnMomoProcessor({ baseUrl: fake.url, timeoutMs: 2000, tokenMarginMs: 1000 }).connector!.initiate(ctx, {
    reference, gatewayReference: `PCMTNPAY${n}`, amountMinor: BigInt(amount) * 100n, currency: 'UGX', accountNumber: '256772123456',
    narration: 'Order', callbackUrl: `${hooks.url}/pay`,
  });
  expect(sent.kind).toBe('accepted');
  await eventually(() => fake.requests.get(reference)?.status === 'SUCCESSFUL', 10_000, 'collected');
  return { reference, vendorReference: null, receipt: null, amountMinor: BigInt(amount) * 100n, accountNumber: '256772123456' };
}

function order(original: RefundOrder['original'], amount: number, o: Partial<RefundOrder> = {}): RefundOrder {
  n += 1;
  return { reference: randomUUID(), gatewayReference: `PCMTNREF${n}`, original, amountMinor: BigInt(amount) * 100n, currency: 'UGX', reason: 'Order cancelled', callbackUrl: `${hooks.url}/refund${n}`, ...o };
}

async function settled(reference: string, status: string) {
  return eventually(async () => {
    const q = await refunds.queryRefund(ctx, { reference, vendorReference: null });
    return q.kind === 'observed' && q.observed.status === status ? q.observed : undefined;
  }, 10_000, `refund ${status}`);
}

test('a partial refund goes out on the Disbursement product with its own token and completes', async () => {
  const original = await collected();
  const collectionTokens = fake.calls.filter((c) => c.path === '/collection/token/').length;
  const o = order(original, 20000);
  expect(await refunds.initiateRefund(ctx, o)).toEqual({ kind: 'accepted', vendorReference: null });
  expect(fake.refunds.get(o.reference)).toMatchObject({ referenceIdToRefund: original.reference, amount: '20000', currency: 'UGX', externalId: o.gatewayReference, callbackUrl: o.callbackUrl });
  expect(await settled(o.reference, 'COMPLETED')).toMatchObject({ vendorStatus: 'SUCCESSFUL', amountMinor: 2_000_000n, currency: 'UGX', unmapped: false });
  // the refund's token came from the Disbursement product, and no Collection token was sent to it
  expect(fake.calls.filter((c) => c.path === '/collection/token/').length).toBe(collectionTokens);
  expect(fake.calls.filter((c) => c.path === '/disbursement/token/').map((c) => c.status)).toContain(200);
  expect(fake.calls.filter((c) => c.path.startsWith('/disbursement/')).every((c) => c.status !== 401)).toBe(true);
});

test('the callback reaches the refund callback URL and is read as a prompt only', async () => {
  const o = order(await collected(), 1000);
  expect((await refunds.initiateRefund(ctx, o)).kind).toBe('accepted');
  const hook = await eventually(() => hooks.received.find((r) => r.path.endsWith(o.callbackUrl.slice(o.callbackUrl.lastIndexOf('/')))), 10_000, 'refund callback');
  const body = JSON.parse(hook.body);
  expect(body).toMatchObject({ status: 'SUCCESSFUL', externalId: o.gatewayReference });
  expect(refunds.parseRefundCallback(body)).toEqual({ vendorReference: null, reported: null });
  expect(refunds.parseRefundCallback('garbage')).toEqual({ vendorReference: null, reported: null });
});

test('a refund MTN fails is FAILED with the reason in a merchant’s words', async () => {
  fake.failNextRefund('NOT_ENOUGH_FUNDS');
  const o = order(await collected(), 5000);
  expect((await refunds.initiateRefund(ctx, o)).kind).toBe('accepted');
  expect(await settled(o.reference, 'FAILED')).toMatchObject({ vendorStatus: 'FAILED NOT_ENOUGH_FUNDS', message: "The merchant's disbursement account at the processor has too little money" });
});

test('more than was collected is accepted, then failed by MTN (NOT_ALLOWED), and the first refund stands', async () => {
  const original = await collected(10000);
  const first = order(original, 8000);
  expect((await refunds.initiateRefund(ctx, first)).kind).toBe('accepted');
  await settled(first.reference, 'COMPLETED');
  const second = order(original, 3000);
  expect((await refunds.initiateRefund(ctx, second)).kind).toBe('accepted');
  expect(await settled(second.reference, 'FAILED')).toMatchObject({ vendorStatus: 'FAILED NOT_ALLOWED' });
  expect(fake.refunds.get(first.reference)?.status).toBe('SUCCESSFUL');
});

test('a resend with the same reference is answered 409 and read as accepted: one refund at MTN', async () => {
  const o = order(await collected(), 1000);
  await refunds.initiateRefund(ctx, o);
  expect(await refunds.initiateRefund(ctx, o)).toEqual({ kind: 'accepted', vendorReference: null });
  expect(fake.calls.filter((c) => c.path === '/disbursement/v1_0/refund').map((c) => c.status).slice(-2)).toEqual([202, 409]);
  expect([...fake.refunds.values()].filter((r) => r.externalId === o.gatewayReference)).toHaveLength(1);
});

test('a lost answer is an unknown outcome, as is an unreadable one; the status query settles both', async () => {
  const original = await collected();
  fake.swallowRefund = 1;
  const lost = order(original, 1000);
  expect((await refunds.initiateRefund(ctx, lost)).kind).toBe('unknown');
  await settled(lost.reference, 'COMPLETED');
  fake.garbageRefund = 1;
  const garbled = order(original, 1000);
  expect((await refunds.initiateRefund(ctx, garbled)).kind).toBe('unknown');
  await settled(garbled.reference, 'COMPLETED');
});

test('a reference MTN never received is not_found; an outage is unavailable, never a failure', async () => {
  expect(await refunds.queryRefund(ctx, { reference: randomUUID(), vendorReference: null })).toEqual({ kind: 'not_found' });
  fake.mode = 'error';
  expect((await refunds.queryRefund(ctx, { reference: randomUUID(), vendorReference: null })).kind).toBe('unavailable');
  const never = { reference: randomUUID(), vendorReference: null, receipt: null, amountMinor: 100n, accountNumber: null };
  expect((await refunds.initiateRefund(ctx, order(never, 1))).kind).toBe('retry');
});

test('a MID without Disbursement credentials cannot refund: refused with a clear message, nothing sent', async () => {
  const callsBefore = fake.calls.length;
  const collectionOnly: CallContext = { midId: 2, credentials: fake.credentials() };
  const r = await refunds.initiateRefund(collectionOnly, order(await collected(), 1000));
  expect(r).toMatchObject({ kind: 'refused', message: 'This MTN MoMo MID has no Disbursement credentials, so it cannot refund' });
  expect(fake.calls.slice(callsBefore).filter((c) => c.path.startsWith('/disbursement/'))).toEqual([]);
});

test('Collection credentials in the Disbursement fields get no token: the refund is retried, never sent', async () => {
  const wrong: CallContext = { midId: 3, credentials: { ...fake.credentials(), disbursement_api_user: fake.o.apiUser, disbursement_api_key: fake.o.apiKey, disbursement_subscription_key: fake.o.subscriptionKey } };
  const o = order(await collected(), 1000);
  expect((await refunds.initiateRefund(wrong, o)).kind).toBe('retry');
  expect(fake.refunds.has(o.reference)).toBe(false);
});

test('an amount a zero-decimal currency cannot carry is refused before anything is sent', async () => {
  const o = order(await collected(), 1, { amountMinor: 150n });
  expect(await refunds.initiateRefund(ctx, o)).toMatchObject({ kind: 'refused', message: 'MTN MoMo takes UGX in whole units only' });
  expect(fake.refunds.has(o.reference)).toBe(false);
});
