// Proves Paystack payouts (Transfers) against the fake over real HTTP: a recipient then the transfer under our reference, bank and mobile money, signed transfer.* webhooks, failure, a balance too low, the OTP setting refused with its remedy, a reused reference, a lost answer settled by verify, a reversal after success, outages.
import { randomUUID } from 'node:crypto';
import { paystackProcessor } from '../../../src/processors/paystack';
import { OTP_MESSAGE } from '../../../src/processors/paystack/payout-transformers';
import { signatureValid } from '../../../src/processors/paystack/transformers';
import type { CallContext, PayoutConnector, PayoutOrder } from '../../../src/processors/types';
import { FakePaystack } from '../../fakes/paystack';
import { eventually, startReceiver } from '../../helpers/notify-fixtures';
import type { Receiver } from '../../helpers/notify-fixtures';

let fake: FakePaystack;
let hooks: Receiver;
let payouts: PayoutConnector;
let ctx: CallContext;
let n = 0;

beforeAll(async () => {
  fake = new FakePaystack();
  await fake.start();
  hooks = await startReceiver();
  fake.webhookUrl = hooks.url;
  payouts = paystackProcessor({ baseUrl: fake.url, timeoutMs: 4000 }).connector!.payouts!;
  ctx = { midId: 1, credentials: { secret_key: fake.secretKey } };
});

afterAll(async () => {
  await hooks?.close();
  await fake?.stop();
});

afterEach(() => {
  fake.mode = 'up';
  fake.otpTransfers = false;
});

function order(o: Partial<PayoutOrder> = {}): PayoutOrder {
  n += 1;
  return {
    reference: randomUUID(), gatewayReference: `PCPSOUT${n}`, amountMinor: 25_000_00n, currency: 'NGN', paymentMethod: 'BANK',
    accountNumber: '0001234567', bankCode: '058', accountName: 'Jane Supplier', narration: 'Invoice 42', callbackUrl: 'https://pay.example.net/unused', ...o,
  };
}

async function settled(o: PayoutOrder, status: string) {
  return eventually(async () => {
    const q = await payouts.queryPayout(ctx, { reference: o.reference, vendorReference: null });
    return q.kind === 'observed' && q.observed.status === status ? q.observed : undefined;
  }, 10_000, `payout ${status}`);
}

/** The transfer.* events delivered about a payout, each with its signature checked. */
function events(o: PayoutOrder): { event: string; signed: boolean; reference: string | null }[] {
  return hooks.received
    .filter((h) => h.body.includes(o.reference) && h.body.includes('"transfer.'))
    .map((h) => ({ event: JSON.parse(h.body).event, signed: signatureValid(Buffer.from(h.body), h.headers['x-paystack-signature'] as string | undefined, fake.secretKey), reference: payouts.parsePayoutCallback(Buffer.from(h.body)).vendorReference }));
}

test('a bank payout makes a nuban recipient, then a transfer from the balance under our reference, and completes with a signed transfer.success', async () => {
  const o = order();
  const sent = await payouts.initiatePayout(ctx, o);
  expect(sent).toMatchObject({ kind: 'accepted', vendorReference: expect.stringMatching(/^TRF_/) });
  const t = fake.transfers.get(o.reference)!;
  expect(t).toMatchObject({ amount: 2_500_000, currency: 'NGN', reason: 'Invoice 42', recipient: { type: 'nuban', accountNumber: '0001234567', bankCode: '058', name: 'Jane Supplier' } });
  expect(await settled(o, 'COMPLETED')).toMatchObject({ vendorStatus: 'success', amountMinor: 2_500_000n, currency: 'NGN', unmapped: false });
  const e = await eventually(() => events(o).find((x) => x.event === 'transfer.success'), 10_000, 'transfer.success');
  expect(e).toEqual({ event: 'transfer.success', signed: true, reference: o.reference });
});

test('mobile money in Ghana and Kenya: the local number, the provider code (M-Pesa by default in Kenya)', async () => {
  const gh = order({ currency: 'GHS', paymentMethod: 'MOBILE_MONEY', accountNumber: '+233551234987', bankCode: 'MTN' });
  expect((await payouts.initiatePayout(ctx, gh)).kind).toBe('accepted');
  expect(fake.transfers.get(gh.reference)?.recipient).toMatchObject({ type: 'mobile_money', accountNumber: '0551234987', bankCode: 'MTN', currency: 'GHS' });
  const ke = order({ currency: 'KES', paymentMethod: 'MOBILE_MONEY', accountNumber: '+254712345678', bankCode: null });
  expect((await payouts.initiatePayout(ctx, ke)).kind).toBe('accepted');
  expect(fake.transfers.get(ke.reference)?.recipient).toMatchObject({ type: 'mobile_money', accountNumber: '0712345678', bankCode: 'MPESA', currency: 'KES' });
  await settled(ke, 'COMPLETED');
});

test('a transfer Paystack fails is FAILED with its reason and a signed transfer.failed', async () => {
  fake.failNextTransfer('Account number is not valid');
  const o = order();
  expect((await payouts.initiatePayout(ctx, o)).kind).toBe('accepted');
  expect(await settled(o, 'FAILED')).toMatchObject({ vendorStatus: 'failed', message: 'Paystack could not pay the recipient: Account number is not valid' });
  expect(await eventually(() => events(o).find((x) => x.event === 'transfer.failed'), 10_000, 'transfer.failed')).toMatchObject({ signed: true, reference: o.reference });
});

test('a transfer reversed after success reads REVERSED, with a signed transfer.reversed', async () => {
  const o = order();
  expect((await payouts.initiatePayout(ctx, o)).kind).toBe('accepted');
  await settled(o, 'COMPLETED');
  fake.reverseTransfer(o.reference);
  expect(await settled(o, 'REVERSED')).toMatchObject({ vendorStatus: 'reversed', message: 'Paystack reversed the payout: the money came back to the balance', amountMinor: 2_500_000n });
  expect(await eventually(() => events(o).find((x) => x.event === 'transfer.reversed'), 10_000, 'transfer.reversed')).toMatchObject({ signed: true, reference: o.reference });
});

test('an integration that confirms transfers by OTP is refused with what the merchant must turn off', async () => {
  fake.otpTransfers = true;
  const o = order();
  expect(await payouts.initiatePayout(ctx, o)).toEqual({ kind: 'refused', message: OTP_MESSAGE, detail: 'transfer status otp' });
  expect(OTP_MESSAGE).toContain('turn off');
  // verify reads the held transfer as failed with the same remedy: it is never sent
  expect(await settled(o, 'FAILED')).toMatchObject({ vendorStatus: 'otp', message: OTP_MESSAGE });
});

test('a balance too low is refused with Paystack’s words, nothing paid', async () => {
  fake.balances.set('ZAR', 100);
  const o = order({ currency: 'ZAR', bankCode: '632005' });
  expect(await payouts.initiatePayout(ctx, o)).toMatchObject({ kind: 'refused', message: 'Paystack refused the transfer: Your balance is not enough to fulfil this request' });
  expect(fake.transfers.has(o.reference)).toBe(false);
  expect(await payouts.queryPayout(ctx, { reference: o.reference, vendorReference: null })).toEqual({ kind: 'not_found' });
});

test('a resend with the same reference is a duplicate at Paystack, read as accepted: one transfer', async () => {
  const o = order();
  expect((await payouts.initiatePayout(ctx, o)).kind).toBe('accepted');
  expect(await payouts.initiatePayout(ctx, o)).toEqual({ kind: 'accepted', vendorReference: null });
  expect(fake.calls.filter((c) => c.path === '/transfer').map((c) => c.status).slice(-2)).toEqual([200, 400]);
  expect([...fake.transfers.values()].filter((t) => t.reference === o.reference)).toHaveLength(1);
});

test('a lost answer is unknown; verify by our reference finds the transfer, and a lost webhook changes nothing', async () => {
  fake.swallowTransfer = 1;
  const o = order();
  fake.dropTransferEvents.add(o.reference);
  expect((await payouts.initiatePayout(ctx, o)).kind).toBe('unknown');
  expect(await settled(o, 'COMPLETED')).toMatchObject({ vendorStatus: 'success' });
  expect(events(o)).toEqual([]);
});

test('an outage is unavailable or retry, never a failure; a reference Paystack never received is not_found', async () => {
  expect(await payouts.queryPayout(ctx, { reference: randomUUID(), vendorReference: null })).toEqual({ kind: 'not_found' });
  fake.mode = 'error';
  expect((await payouts.queryPayout(ctx, { reference: randomUUID(), vendorReference: null })).kind).toBe('unavailable');
  expect((await payouts.initiatePayout(ctx, order())).kind).toBe('retry');
});

test('what Paystack cannot take is refused before anything is sent', async () => {
  const before = fake.calls.length;
  const cases: [Partial<PayoutOrder>, string][] = [
    [{ currency: 'USD' }, 'Paystack does not pay out in USD'],
    [{ reference: 'Not-Lowercase' }, 'The payout reference is not one Paystack takes (lowercase letters, digits, - and _)'],
    [{ currency: 'KES', paymentMethod: 'BANK' }, 'Paystack pays KES out to mobile money only'],
    [{ bankCode: null }, 'A bank payout needs the bank code'],
    [{ paymentMethod: 'MOBILE_MONEY', accountNumber: '+2348012345678', bankCode: null }, 'Paystack pays out to mobile money in Ghana and Kenya only'],
    [{ currency: 'GHS', paymentMethod: 'MOBILE_MONEY', accountNumber: '+233551234987', bankCode: null }, 'A Ghana mobile money payout needs the provider code (MTN, VOD or ATL) as its bank code'],
    [{ currency: 'GHS', paymentMethod: 'MOBILE_MONEY', accountNumber: '+254712345678', bankCode: 'MTN' }, 'The phone number must be in international form (+233...)'],
    [{ accountName: '  ' }, 'Paystack needs the account name of the recipient'],
  ];
  for (const [o, message] of cases) expect(await payouts.initiatePayout(ctx, order(o))).toMatchObject({ kind: 'refused', message });
  expect(fake.calls.slice(before)).toEqual([]);
});
