// Proves BTCPay refunds against the fake over real HTTP: the invoice refund answers a pull payment and its claim link, the customer claims, the merchant approves, the payout completes; an unpaid invoice is refused; a withdrawn refund is CANCELLED; a lost or unreadable answer is found again by description; signed payout events.
import { btcpayProcessor } from '../../../src/processors/btcpay';
import { BtcpayClient } from '../../../src/processors/btcpay/client';
import { signatureValid } from '../../../src/processors/btcpay/transformers';
import type { CallContext, RefundConnector, RefundOrder } from '../../../src/processors/types';
import { FakeBtcpay } from '../../fakes/btcpay';
import { eventually, freePort, startReceiver } from '../../helpers/notify-fixtures';
import type { Receiver } from '../../helpers/notify-fixtures';

let fake: FakeBtcpay;
let hooks: Receiver;
let refunds: RefundConnector;
let ctx: CallContext;
let n = 0;

beforeAll(async () => {
  fake = new FakeBtcpay({ confirmAfterMs: null });
  await fake.start();
  hooks = await startReceiver();
  fake.webhookUrl = hooks.url;
  refunds = btcpayProcessor({ timeoutMs: 4000 }).connector!.refunds!;
  ctx = { midId: 1, credentials: { server_url: fake.url, store_id: fake.storeId, api_key: fake.apiKey, webhook_secret: fake.webhookSecret } };
});

afterAll(async () => {
  await hooks?.close();
  await fake?.stop();
});

afterEach(() => {
  fake.mode = 'up';
});

/** An invoice made through the client, paid in full and confirmed unless `settle` is false. */
async function invoiced(amountMinor = 25_000_00n, settle = true): Promise<RefundOrder['original']> {
  n += 1;
  const client = new BtcpayClient({ serverUrl: fake.url, storeId: fake.storeId, apiKey: fake.apiKey, timeoutMs: 2000 });
  const made = await client.createInvoice({ gatewayReference: `PCBTC${n}`, amountMinor, currency: 'UGX', returnUrl: 'https://pay.example/back', expirationMinutes: 30 });
  if (made.kind !== 'invoice') throw new Error(`expected an invoice, got ${made.kind}`);
  if (settle) {
    fake.pay(made.id, Number(amountMinor));
    fake.confirm(made.id);
  }
  return { reference: `PCBTC${n}`, vendorReference: made.id, receipt: null, amountMinor, accountNumber: null };
}

function order(original: RefundOrder['original'], amountMinor: bigint): RefundOrder {
  n += 1;
  return { reference: `rf-${n}-${Date.now()}`, gatewayReference: `PCREF${n}`, original, amountMinor, currency: 'UGX', reason: null, callbackUrl: 'https://pay.example/unused' };
}

async function query(o: RefundOrder, vendorReference: string | null) {
  const q = await refunds.queryRefund(ctx, { reference: o.reference, vendorReference });
  if (q.kind !== 'observed') throw new Error(`expected observed, got ${q.kind}`);
  return q.observed;
}

test('a partial refund is a pull payment with its claim link; PENDING until claimed, approved and paid; COMPLETED when the payout completes', async () => {
  const o = order(await invoiced(), 10_000_00n);
  const sent = await refunds.initiateRefund(ctx, o);
  if (sent.kind !== 'accepted_with_link') throw new Error(`expected accepted_with_link, got ${sent.kind}`);
  const pp = fake.pullPayments.get(sent.vendorReference!)!;
  expect(pp).toMatchObject({ invoiceId: o.original.vendorReference, amountCents: 1_000_000, currency: 'UGX', description: `PayCollect refund ${o.reference}`, autoApproveClaims: false });
  expect(sent.claimUrl).toBe(`${fake.url}/pull-payments/${pp.id}`);
  expect((await fetch(sent.claimUrl)).status).toBe(200);

  expect(await query(o, sent.vendorReference)).toMatchObject({ status: 'PENDING', message: 'Waiting for the customer to claim the refund', vendorStatus: 'pull payment open; payouts: none' });
  const payout = fake.claim(pp.id);
  expect(await query(o, sent.vendorReference)).toMatchObject({ status: 'PENDING', message: 'The customer claimed the refund; the merchant approves the payout in BTCPay Server' });
  fake.payoutState(payout.id, 'AwaitingPayment');
  fake.payoutState(payout.id, 'InProgress');
  expect(await query(o, sent.vendorReference)).toMatchObject({ status: 'PENDING', message: 'The refund is being paid out' });
  fake.payoutState(payout.id, 'Completed');
  expect(await query(o, sent.vendorReference)).toMatchObject({ status: 'COMPLETED', amountMinor: 10_000_00n, currency: 'UGX', unmapped: false });
});

test('a refund claimed in two payouts completes only when both are paid', async () => {
  const o = order(await invoiced(), 25_000_00n);
  const sent = await refunds.initiateRefund(ctx, o);
  if (sent.kind !== 'accepted_with_link') throw new Error('expected accepted_with_link');
  const first = fake.claim(sent.vendorReference!, 1_000_000);
  fake.completePayout(first.id);
  expect(await query(o, sent.vendorReference)).toMatchObject({ status: 'PENDING', message: 'The customer has claimed part of the refund' });
  fake.completePayout(fake.claim(sent.vendorReference!).id);
  expect(await query(o, sent.vendorReference)).toMatchObject({ status: 'COMPLETED', amountMinor: 25_000_00n });
});

test('payout events arrive signed and name the pull payment', async () => {
  const o = order(await invoiced(), 5_000_00n);
  const sent = await refunds.initiateRefund(ctx, o);
  if (sent.kind !== 'accepted_with_link') throw new Error('expected accepted_with_link');
  fake.completePayout(fake.claim(sent.vendorReference!).id);
  const events = await eventually(() => {
    const mine = hooks.received.filter((h) => h.body.includes(sent.vendorReference!));
    return mine.length >= 4 ? mine : undefined;
  }, 10_000, 'four payout events');
  // each event is its own delivery: they may arrive in any order
  expect(events.map((h) => JSON.parse(h.body).type).sort()).toEqual(['PayoutApproved', 'PayoutCreated', 'PayoutUpdated', 'PayoutUpdated']);
  for (const h of events) {
    expect(signatureValid(Buffer.from(h.body), h.headers['btcpay-sig'] as string, fake.webhookSecret)).toBe(true);
    expect(refunds.parseRefundCallback(Buffer.from(h.body))).toEqual({ vendorReference: sent.vendorReference, reported: null });
  }
});

test('a refund withdrawn in BTCPay (archived) before it is claimed is CANCELLED; a cancelled payout leaves it claimable', async () => {
  const o = order(await invoiced(), 5_000_00n);
  const sent = await refunds.initiateRefund(ctx, o);
  if (sent.kind !== 'accepted_with_link') throw new Error('expected accepted_with_link');
  const payout = fake.claim(sent.vendorReference!);
  fake.payoutState(payout.id, 'Cancelled');
  expect(await query(o, sent.vendorReference)).toMatchObject({ status: 'PENDING', vendorStatus: 'pull payment open; payouts: Cancelled' });
  fake.archive(sent.vendorReference!);
  expect(await query(o, sent.vendorReference)).toMatchObject({ status: 'CANCELLED', message: 'The refund was withdrawn in BTCPay Server before the customer claimed it' });
});

test('an unpaid invoice, an unknown invoice and a payment without invoice are refused, making no pull payment', async () => {
  const before = fake.pullPayments.size;
  const unpaid = await invoiced(1_000_00n, false);
  expect(await refunds.initiateRefund(ctx, order(unpaid, 1_000_00n))).toMatchObject({ kind: 'refused', message: 'BTCPay Server refused the refund: Cannot refund this invoice' });
  expect(await refunds.initiateRefund(ctx, order({ ...unpaid, vendorReference: 'NoSuchInvoice00' }, 1_000_00n))).toMatchObject({ kind: 'refused', message: 'BTCPay Server refused the refund: invoice not found' });
  expect(await refunds.initiateRefund(ctx, order({ ...unpaid, vendorReference: null }, 1_000_00n))).toMatchObject({ kind: 'refused', message: 'The payment has no BTCPay invoice to refund' });
  expect(fake.pullPayments.size).toBe(before);
});

test('a lost or unreadable answer is unknown; the query finds the pull payment by its description; one never made is not_found', async () => {
  const original = await invoiced();
  const lost = order(original, 1_000_00n);
  fake.mode = 'lose';
  expect((await refunds.initiateRefund(ctx, lost)).kind).toBe('unknown');
  fake.mode = 'up';
  expect(await query(lost, null)).toMatchObject({ status: 'PENDING', vendorStatus: 'pull payment open; payouts: none' });

  const garbled = order(original, 1_000_00n);
  fake.garbageRefund = 1;
  expect((await refunds.initiateRefund(ctx, garbled)).kind).toBe('unknown');
  expect((await query(garbled, null)).status).toBe('PENDING');
  expect([...fake.pullPayments.values()].filter((pp) => pp.description.endsWith(garbled.reference))).toHaveLength(1);

  expect(await refunds.queryRefund(ctx, { reference: 'never-sent', vendorReference: null })).toEqual({ kind: 'not_found' });
  expect(await refunds.queryRefund(ctx, { reference: 'never-sent', vendorReference: 'NoSuchPullPayment' })).toEqual({ kind: 'not_found' });
});

test('an outage: a 503 is unknown (BTCPay may have made it), no connection at all is retried, the query is unavailable', async () => {
  const o = order(await invoiced(), 1_000_00n);
  fake.mode = 'error';
  expect((await refunds.initiateRefund(ctx, o)).kind).toBe('unknown');
  expect((await refunds.queryRefund(ctx, { reference: o.reference, vendorReference: 'x' })).kind).toBe('unavailable');
  fake.mode = 'up';
  const down: CallContext = { midId: 2, credentials: { ...ctx.credentials, server_url: `http://127.0.0.1:${await freePort()}` } };
  expect((await refunds.initiateRefund(down, o)).kind).toBe('retry');
});
