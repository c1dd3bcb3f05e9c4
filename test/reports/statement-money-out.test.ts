// Proves the wallet statement (getWalletStatement, getAdminWalletStatement) on money that leaves the wallet, made through the API and the processor-request engine (the sandbox processor), never planted: a payout shows as `disbursement` lines (its hold, then its payout with the fee it took) under its own gateway_reference; a payout and a refund still pending at the period's end show their holds in `other`, and the closing total is the wallet's balance, holds included; a posting exactly at `to` is not in the statement (the end is excluded) and is in the one that starts there (the start is included), and both reconcile.
import { disbursingMerchant, eventually, ref } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { expectOk } from '../helpers/merchants';
import { parseCsv } from './csv';

let svc: TestService;
let m: MerchantSetup;
let from: Date;
let collection: string;
/** the collection's own merchant reference, as the shop named it */
let collectionMine: string;
let paid: { id: string; gateway_reference: string; merchant_reference: string };
let waiting: { id: string; gateway_reference: string; merchant_reference: string };
let refund: { gateway_reference: string; merchant_reference: string };
/** when the refund's hold was posted: a whole second (the service's clock is pinned there for it), as a period's bounds are */
let heldAt: Date;
/** the service's clock: the real time, or a time pinned for one request */
let pinned: Date | null = null;

const KINDS = ['available', 'pending', 'reserved', 'other', 'total'] as const;
type Buckets = Record<(typeof KINDS)[number], number>;
const minor = (n: number) => BigInt(Math.round(n * 100));

beforeAll(async () => {
  // the workers are off: the engine is driven by hand, so what is pending at the period's end stays pending
  svc = await startTestService({ workers: false, now: () => pinned ?? new Date(), env: { PROCESSOR_CHECK_SCHEDULE: '100ms,200ms' } });
  from = new Date(Date.now() - 60_000);
  m = await disbursingMerchant(svc, 100000);
  ({ gateway_reference: collection, merchant_reference: collectionMine } = await svc.services.db.one<{ gateway_reference: string; merchant_reference: string }>(
    'SELECT gateway_reference, merchant_reference FROM collections WHERE business_id = $1',
    [m.businessId],
  ));
  expectOk(await svc.admin.patch(`/v1/admin/businesses/${m.businessId}`, { disbursement_fee_fixed: 500 }));
  const secret = { headers: { 'secret-key': m.apiSecret } };
  const payout = (amount: number) => ({
    amount, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello Transport Ltd', merchant_reference: ref('PAY'), narration: 'Driver payout',
  });
  // a payout sent and completed by the sandbox processor, through the engine
  paid = expectOk(await m.client.post('/v1/disbursements', payout(20000), secret));
  expect(await svc.services.processorRequests.sendDue('payout')).toBe(1);
  await eventually(async () => {
    await svc.services.processorRequests.checkDue('payout');
    return expectOk(await m.client.get(`/v1/disbursements/${paid.gateway_reference}`, secret)).transaction_status === 'COMPLETED' ? true : undefined;
  }, 10_000, 'the payout COMPLETED');
  // a payout and a refund accepted and not yet sent: their holds are pending at the period's end
  waiting = expectOk(await m.client.post('/v1/disbursements', payout(10000), secret));
  pinned = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000);
  try {
    refund = expectOk(await m.client.post(`/v1/collections/${collection}/refunds`, { amount: 30000, merchant_reference: ref('RFD') }));
  } finally {
    pinned = null;
  }
  heldAt = (await svc.services.db.one<{ created_at: Date }>(
    "SELECT j.created_at FROM journals j JOIN refunds r ON r.id = j.refund_id WHERE r.gateway_reference = $1 AND j.kind = 'refund_hold'", [refund.gateway_reference])).created_at;
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

const url = (q: string) => `/v1/data/wallets/UGX/statement?${q}`;
/** a period's bound as the API takes it: whole seconds */
const iso = (d: Date) => d.toISOString().slice(0, 19) + 'Z';
const later = () => new Date(Date.now() + 60_000);

async function statement(start: Date, end: Date) {
  const res = await m.client.get(url(`from=${iso(start)}&to=${iso(end)}&per_page=100`));
  expect(res.status).toBe(200);
  return { opening: res.body.data.opening_balance as Buckets, closing: res.body.data.closing_balance as Buckets, lines: res.body.data.lines as any[], total: res.body.paging.total as number };
}

/** opening + every line = closing, in exact minor units, per kind and in total; each balance_after follows. */
function expectReconciles(st: { opening: Buckets; lines: { change: Buckets; balance_after: number }[]; closing: Buckets }) {
  for (const k of KINDS) {
    const sum = st.lines.reduce((acc, l) => acc + minor(l.change[k]), minor(st.opening[k]));
    expect(`${k} ${sum}`).toBe(`${k} ${minor(st.closing[k])}`);
  }
  let balance = minor(st.opening.total);
  for (const l of st.lines) {
    balance += minor(l.change.total);
    expect(minor(l.balance_after)).toBe(balance);
  }
}

it('shows a payout as disbursement lines, its hold and then its payout with the fee; holds pending at the end are in other and in the total', async () => {
  const st = await statement(from, later());
  // each line names the gateway's reference and, beside it, the merchant's own
  expect(st.lines.map((l) => [l.kind, l.reference_type, l.reference, l.merchant_reference])).toEqual([
    ['collection_credit', 'collection', collection, collectionMine],
    ['disbursement_hold', 'disbursement', paid.gateway_reference, paid.merchant_reference],
    ['disbursement_out', 'disbursement', paid.gateway_reference, paid.merchant_reference],
    ['disbursement_hold', 'disbursement', waiting.gateway_reference, waiting.merchant_reference],
    ['refund_hold', 'refund', refund.gateway_reference, refund.merchant_reference],
  ]);
  expect(new Set([collectionMine, paid.merchant_reference, waiting.merchant_reference, refund.merchant_reference]).size).toBe(4);
  expect(st.total).toBe(5);
  const [, hold, out, , refundHold] = st.lines;
  // amount + fee held: out of available into the hold, the balance unchanged
  expect(hold).toMatchObject({ collection_reference: null, change: { available: -20500, pending: 0, reserved: 0, other: 20500, total: 0 }, fee: 0 });
  // paid: the hold leaves the wallet, the fee shown as the fee the service took
  expect(out).toMatchObject({ collection_reference: null, change: { available: 0, pending: 0, reserved: 0, other: -20500, total: -20500 }, fee: 500 });
  expect(refundHold).toMatchObject({ collection_reference: collection, change: { available: -30000, pending: 0, reserved: 0, other: 30000, total: 0 }, fee: 0 });
  // at the end the payout's 10,500 and the refund's 30,000 are still held: other, and in the total, as the wallet's balance shows them
  expect(st.closing).toEqual({ available: 39000, pending: 0, reserved: 0, other: 40500, total: 79500 });
  const balance = expectOk(await m.client.get('/v1/data/wallets/UGX/balance'));
  expect(balance).toMatchObject({ balance: 79500, available_balance: 39000, disbursement_held_balance: 10500, refund_held_balance: 30000 });
  expectReconciles(st);
  // the CSV says the same
  const csv = await m.client.get(url(`from=${iso(from)}&to=${iso(later())}&format=csv`), { headers: { accept: 'text/csv' } });
  expect(csv.status).toBe(200);
  const records = parseCsv(csv.text);
  expect(records.map((r) => [r.kind, r.reference_type, r.reference, r.merchant_reference, r.fee])).toEqual([
    ['opening_balance', '', '', '', ''],
    ['collection_credit', 'collection', collection, collectionMine, '0'],
    ['disbursement_hold', 'disbursement', paid.gateway_reference, paid.merchant_reference, '0'],
    ['disbursement_out', 'disbursement', paid.gateway_reference, paid.merchant_reference, '500'],
    ['disbursement_hold', 'disbursement', waiting.gateway_reference, waiting.merchant_reference, '0'],
    ['refund_hold', 'refund', refund.gateway_reference, refund.merchant_reference, '0'],
    ['closing_balance', '', '', '', ''],
  ]);
  expect(records[records.length - 1]).toMatchObject({ other: '40500', balance_after: '79500' });
});

it('leaves out a posting exactly at to (the end is excluded) and shows it in the period that starts there', async () => {
  expect(heldAt.getTime() % 1000).toBe(0);
  expect(heldAt.getTime()).toBeGreaterThan(from.getTime());
  // ending at the hold's own time: the refund is not in it, its money still available at the end
  const before = await statement(from, heldAt);
  expect(before.lines.map((l) => l.kind)).toEqual(['collection_credit', 'disbursement_hold', 'disbursement_out', 'disbursement_hold']);
  expect(before.total).toBe(4);
  expect(before.closing).toEqual({ available: 69000, pending: 0, reserved: 0, other: 10500, total: 79500 });
  expectReconciles(before);
  // starting there: the hold is its one line
  const after = await statement(heldAt, new Date(heldAt.getTime() + 1000));
  expect(after.lines.map((l) => [l.kind, l.reference])).toEqual([['refund_hold', refund.gateway_reference]]);
  expect(after.opening).toEqual(before.closing);
  expect(after.closing).toEqual({ available: 39000, pending: 0, reserved: 0, other: 40500, total: 79500 });
  expectReconciles(after);
});
