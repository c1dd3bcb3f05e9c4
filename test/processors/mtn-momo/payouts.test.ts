// Proves MTN MoMo payouts (Disbursement Transfer) against the fake over real HTTP: success on the Disbursement token, failure with its reason, a reused reference (409), a lost answer settled by the status query, the callback as a prompt, and what is refused before anything is sent.
import { randomUUID } from 'node:crypto';
import { mtnMomoProcessor } from '../../../src/processors/mtn-momo';
import type { CallContext, PayoutConnector, PayoutOrder } from '../../../src/processors/types';
import { FakeMtnMomo } from '../../fakes/mtn-momo';
import { eventually, startReceiver } from '../../helpers/notify-fixtures';
import type { Receiver } from '../../helpers/notify-fixtures';

let fake: FakeMtnMomo;
let hooks: Receiver;
let payouts: PayoutConnector;
let ctx: CallContext;
let n = 0;

beforeAll(async () => {
  fake = new FakeMtnMomo({ answerAfterMs: 10 });
  await fake.start();
  hooks = await startReceiver();
  payouts = mtnMomoProcessor({ baseUrl: fake.url, timeoutMs: 4000, tokenMarginMs: 1000 }).connector!.payouts!;
  ctx = { midId: 1, credentials: fake.refundCredentials() };
});

afterAll(async () => {
  await hooks?.close();
  await fake?.stop();
});

afterEach(() => {
  fake.mode = 'up';
});

function order(o: Partial<PayoutOrder> = {}): PayoutOrder {
  n += 1;
  return {
    reference: randomUUID(), gatewayReference: `PCMTNOUT${n}`, amountMinor: 2_500_000n, currency: 'UGX', paymentMethod: 'MOBILE_MONEY',
    accountNumber: '+256772123456', bankCode: null, accountName: 'Jane Driver', narration: 'Weekly earnings', callbackUrl: `${hooks.url}/payout${n}`, ...o,
  };
}

async function settled(reference: string, status: string) {
  return eventually(async () => {
    const q = await payouts.queryPayout(ctx, { reference, vendorReference: null });
    return q.kind === 'observed' && q.observed.status === status ? q.observed : undefined;
  }, 10_000, `payout ${status}`);
}

test('a payout is a Transfer on the Disbursement product, to the MSISDN without its plus sign, and completes', async () => {
  const collectionTokens = fake.calls.filter((c) => c.path === '/collection/token/').length;
  const o = order();
  expect(await payouts.initiatePayout(ctx, o)).toEqual({ kind: 'accepted', vendorReference: null });
  expect(fake.transfers.get(o.reference)).toMatchObject({ amount: '25000', currency: 'UGX', externalId: o.gatewayReference, partyId: '256772123456', payeeNote: 'Weekly earnings', callbackUrl: o.callbackUrl });
  expect(await settled(o.reference, 'COMPLETED')).toMatchObject({ vendorStatus: 'SUCCESSFUL', amountMinor: 2_500_000n, currency: 'UGX', unmapped: false });
  expect(fake.calls.filter((c) => c.path === '/collection/token/').length).toBe(collectionTokens);
  expect(fake.calls.filter((c) => c.path.startsWith('/disbursement/')).every((c) => c.status !== 401)).toBe(true);
});

test('a transfer MTN fails is FAILED with the reason in a merchant’s words', async () => {
  fake.failNextTransfer('NOT_ENOUGH_FUNDS');
  const low = order();
  expect((await payouts.initiatePayout(ctx, low)).kind).toBe('accepted');
  expect(await settled(low.reference, 'FAILED')).toMatchObject({ vendorStatus: 'FAILED NOT_ENOUGH_FUNDS', message: "The merchant's disbursement account at the processor has too little money" });
  const nobody = order({ accountNumber: '46733123456', currency: 'EUR', amountMinor: 1250n });
  expect((await payouts.initiatePayout(ctx, nobody)).kind).toBe('accepted');
  expect(await settled(nobody.reference, 'FAILED')).toMatchObject({ vendorStatus: 'FAILED PAYEE_NOT_FOUND', message: 'The phone number has no mobile money account' });
});

test('a resend with the same reference is answered 409 and read as accepted: one transfer at MTN', async () => {
  const o = order();
  await payouts.initiatePayout(ctx, o);
  expect(await payouts.initiatePayout(ctx, o)).toEqual({ kind: 'accepted', vendorReference: null });
  expect(fake.calls.filter((c) => c.path === '/disbursement/v1_0/transfer').map((c) => c.status).slice(-2)).toEqual([202, 409]);
  expect([...fake.transfers.values()].filter((t) => t.externalId === o.gatewayReference)).toHaveLength(1);
});

test('a lost answer is an unknown outcome; the status query finds the transfer, pending then completed', async () => {
  fake.swallowTransfer = 1;
  fake.holdNextTransfer = 1;
  const o = order();
  expect((await payouts.initiatePayout(ctx, o)).kind).toBe('unknown');
  expect(await settled(o.reference, 'PENDING')).toMatchObject({ vendorStatus: 'PENDING' });
  // were it sent again under the same reference, MTN would make no second payment
  expect(await payouts.initiatePayout(ctx, o)).toEqual({ kind: 'accepted', vendorReference: null });
  fake.settleTransfer(o.reference, 'SUCCESSFUL');
  await settled(o.reference, 'COMPLETED');
  expect([...fake.transfers.values()].filter((t) => t.externalId === o.gatewayReference)).toHaveLength(1);
});

test('the callback reaches the payout callback URL and is read as a prompt only', async () => {
  const o = order();
  expect((await payouts.initiatePayout(ctx, o)).kind).toBe('accepted');
  const hook = await eventually(() => hooks.received.find((r) => r.path.endsWith(o.callbackUrl.slice(o.callbackUrl.lastIndexOf('/')))), 10_000, 'payout callback');
  const body = JSON.parse(hook.body);
  expect(body).toMatchObject({ status: 'SUCCESSFUL', externalId: o.gatewayReference, payee: { partyIdType: 'MSISDN', partyId: '256772123456' } });
  expect(payouts.parsePayoutCallback(body)).toEqual({ vendorReference: null, reported: null });
  expect(payouts.parsePayoutCallback('garbage')).toEqual({ vendorReference: null, reported: null });
});

test('a reference MTN never received is not_found; an outage is unavailable, never a failure', async () => {
  expect(await payouts.queryPayout(ctx, { reference: randomUUID(), vendorReference: null })).toEqual({ kind: 'not_found' });
  fake.mode = 'error';
  expect((await payouts.queryPayout(ctx, { reference: randomUUID(), vendorReference: null })).kind).toBe('unavailable');
  expect((await payouts.initiatePayout(ctx, order())).kind).toBe('retry');
});

test('a bank payout, an amount the currency cannot carry, or a MID without Disbursement credentials is refused, nothing sent', async () => {
  const before = fake.calls.length;
  expect(await payouts.initiatePayout(ctx, order({ paymentMethod: 'BANK', accountNumber: '0123456789', bankCode: '044' }))).toMatchObject({
    kind: 'refused', message: 'MTN MoMo pays out to mobile money wallets only, not to bank accounts',
  });
  expect(await payouts.initiatePayout(ctx, order({ amountMinor: 150n }))).toMatchObject({ kind: 'refused', message: 'MTN MoMo takes UGX in whole units only' });
  const collectionOnly: CallContext = { midId: 2, credentials: fake.credentials() };
  expect(await payouts.initiatePayout(collectionOnly, order())).toMatchObject({ kind: 'refused', message: 'This MTN MoMo MID has no Disbursement credentials, so it cannot pay out' });
  expect(fake.calls.slice(before)).toEqual([]);
});
