// Proves LedgerService on a real database: the postings and holds of a completion, releases exactly once, balances as sums of postings, no second credit, nothing written by a failing completion.
import { AppError } from '../../src/errors';
import { ledgerDrift } from '../../src/ledger/ledger';
import { complete, createBusiness, fail, insertPending, ledgerCounts, moneyServices, setRate, sumsPerCurrency } from '../helpers/money-fixtures';
import type { ServicesFixture } from '../helpers/money-fixtures';

let clock = new Date('2025-01-31T10:00:00Z');
let fx: ServicesFixture;
beforeAll(async () => {
  fx = await moneyServices(() => clock);
  await setRate(fx.services.db, 'USD', 'UGX', '3700');
});
afterAll(() => fx.close());

const s = () => fx.services;

async function postingsOf(collectionId: bigint) {
  return s().db.any(
    `SELECT a.kind AS account, a.wallet_id, p.amount_minor, p.currency, p.kind, j.kind AS journal
     FROM postings p JOIN ledger_accounts a ON a.id = p.account_id JOIN journals j ON j.id = p.journal_id
     WHERE j.collection_id = $1 ORDER BY p.id`,
    [collectionId],
  );
}

it('credits a mobile-money completion: clearing gives the amount, fee to revenue, the rest available', async () => {
  const b = await createBusiness(s().db, { fees: [{ method: 'MOBILE_MONEY', percent: '3', fixedMinor: 0n }] });
  const c = await insertPending(s(), b.businessId, { amountMinor: 100000n });
  expect(await complete(s(), c.id)).toMatchObject({ status: 'COMPLETED' });
  expect(await postingsOf(c.id)).toEqual([
    { account: 'processor_clearing', wallet_id: null, amount_minor: -100000n, currency: 'UGX', kind: 'collection_credit', journal: 'collection_credit' },
    { account: 'fee_revenue', wallet_id: null, amount_minor: 3000n, currency: 'UGX', kind: 'fee', journal: 'collection_credit' },
    { account: 'available', wallet_id: b.walletIds.UGX, amount_minor: 97000n, currency: 'UGX', kind: 'collection_credit', journal: 'collection_credit' },
  ]);
  expect(await s().ledger.walletBalance(b.businessId, 'UGX')).toEqual({ currency: 'UGX', availableMinor: 97000n, pendingMinor: 0n, reservedMinor: 0n, refundHeldMinor: 0n, disbursementHeldMinor: 0n, disputeHeldMinor: 0n });
  expect(await s().db.any('SELECT * FROM ledger_holds h JOIN journals j ON j.id = h.journal_id WHERE j.collection_id = $1', [c.id])).toEqual([]);
});

it('takes amount + fee from clearing when the customer bears the fee, and credits the converted amount', async () => {
  const b = await createBusiness(s().db, { feeBearer: 'customer', fees: [{ method: 'BANK', percent: '1', fixedMinor: 100n }] });
  const c = await insertPending(s(), b.businessId, { method: 'BANK', currency: 'USD', amountMinor: 1000n });
  expect(c).toMatchObject({ account_amount_minor: 3700000n, fee_minor: 37100n, total_credit_minor: 3700000n, customer_charged: true, fx_rate: '3700.000000000000' });
  await complete(s(), c.id);
  const byAccount = Object.fromEntries((await postingsOf(c.id)).map((p) => [p.account, p.amount_minor]));
  expect(byAccount).toEqual({ processor_clearing: -3737100n, fee_revenue: 37100n, available: 3700000n });
});

describe('a card completion with rolling reserve and card settlement', () => {
  let b: Awaited<ReturnType<typeof createBusiness>>;
  let id: bigint;
  beforeAll(async () => {
    clock = new Date('2025-01-31T10:00:00Z');
    b = await createBusiness(s().db, { reservePercent: '10', reserveMonths: 1, cardSettlementDays: 3, fees: [{ method: 'CARD', percent: '2.5', fixedMinor: 0n }] });
    const c = await insertPending(s(), b.businessId, { method: 'CARD', amountMinor: 100001n });
    id = c.id;
    await complete(s(), id);
  });

  it('holds the reserve share and puts the rest in pending, with due dates from the completion time', async () => {
    // fee 2500.025 -> 2500; credit 97501; reserve 9750.1 -> 9750; pending 87751
    expect(await s().ledger.walletBalance(b.businessId, 'UGX')).toEqual({ currency: 'UGX', availableMinor: 0n, pendingMinor: 87751n, reservedMinor: 9750n, refundHeldMinor: 0n, disbursementHeldMinor: 0n, disputeHeldMinor: 0n });
    const holds = await s().db.any(
      'SELECT h.bucket, h.amount_minor, h.release_at, h.released_journal_id FROM ledger_holds h WHERE h.wallet_id = $1 ORDER BY h.id',
      [b.walletIds.UGX],
    );
    expect(holds).toEqual([
      { bucket: 'reserved', amount_minor: 9750n, release_at: new Date('2025-02-28T10:00:00Z'), released_journal_id: null },
      { bucket: 'pending', amount_minor: 87751n, release_at: new Date('2025-02-03T10:00:00Z'), released_journal_id: null },
    ]);
  });

  it('releases nothing before a hold is due', async () => {
    expect(await s().ledger.releaseDue(new Date('2025-02-03T09:59:59Z'))).toBe(0);
  });

  it('settles the card part after card_settlement_days, once', async () => {
    expect(await s().ledger.releaseDue(new Date('2025-02-03T10:00:00Z'))).toBe(1);
    expect(await s().ledger.releaseDue(new Date('2025-02-03T10:00:00Z'))).toBe(0);
    expect(await s().ledger.walletBalance(b.businessId, 'UGX')).toEqual({ currency: 'UGX', availableMinor: 87751n, pendingMinor: 0n, reservedMinor: 9750n, refundHeldMinor: 0n, disbursementHeldMinor: 0n, disputeHeldMinor: 0n });
  });

  it('releases the reserve after rolling_reserve_months, once, through the worker as well', async () => {
    clock = new Date('2025-03-01T00:00:00Z');
    const [worker] = s().ledger.workers();
    expect(worker).toMatchObject({ name: 'ledger-release', intervalMs: 1000 });
    expect(await worker.run()).toBe(1);
    expect(await worker.run()).toBe(0);
    expect(await s().ledger.walletBalance(b.businessId, 'UGX')).toEqual({ currency: 'UGX', availableMinor: 97501n, pendingMinor: 0n, reservedMinor: 0n, refundHeldMinor: 0n, disbursementHeldMinor: 0n, disputeHeldMinor: 0n });
    const journals = await s().db.any('SELECT kind FROM journals WHERE collection_id = $1 ORDER BY id', [id]);
    expect(journals.map((j) => j.kind)).toEqual(['collection_credit', 'settlement', 'reserve_release']);
    const released = await s().db.one('SELECT count(*)::int AS n FROM ledger_holds WHERE wallet_id = $1 AND released_journal_id IS NULL', [b.walletIds.UGX]);
    expect(released.n).toBe(0);
  });

  it('keeps both sides of every journal of the collection, oldest first', async () => {
    const rows = await postingsOf(id);
    expect(rows.map((r) => [r.journal, r.account, r.amount_minor, r.kind])).toEqual([
      ['collection_credit', 'processor_clearing', -100001n, 'collection_credit'],
      ['collection_credit', 'fee_revenue', 2500n, 'fee'],
      ['collection_credit', 'reserved', 9750n, 'reserve_hold'],
      ['collection_credit', 'pending', 87751n, 'collection_credit'],
      ['settlement', 'pending', -87751n, 'settlement'],
      ['settlement', 'available', 87751n, 'settlement'],
      ['reserve_release', 'reserved', -9750n, 'reserve_release'],
      ['reserve_release', 'available', 9750n, 'reserve_release'],
    ]);
  });
});

it('credits a collection once however often its completion is reported', async () => {
  const b = await createBusiness(s().db);
  const c = await insertPending(s(), b.businessId, { amountMinor: 5000n });
  const before = await ledgerCounts(s().db);
  expect(await complete(s(), c.id)).not.toBeNull();
  expect(await complete(s(), c.id)).toBeNull();
  expect(await fail(s(), c.id)).toBe(false);
  // even a collection set back to PENDING behind the service's back, then completed again, keeps its one credit
  await s().db.none("UPDATE collections SET status = 'PENDING' WHERE id = $1", [c.id]);
  expect(await complete(s(), c.id)).toMatchObject({ status: 'COMPLETED' });
  expect(await ledgerCounts(s().db)).toEqual({ journals: before.journals + 1, postings: before.postings + 2, holds: before.holds });
  expect((await s().ledger.walletBalance(b.businessId, 'UGX')).availableMinor).toBe(5000n);
});

it('posts nothing for a failed collection', async () => {
  const b = await createBusiness(s().db);
  const c = await insertPending(s(), b.businessId, { amountMinor: 5000n });
  const before = await ledgerCounts(s().db);
  expect(await fail(s(), c.id)).toBe(true);
  expect(await complete(s(), c.id)).toBeNull();
  expect(await ledgerCounts(s().db)).toEqual(before);
});

it('refuses to credit a collection that is not COMPLETED', async () => {
  const b = await createBusiness(s().db);
  const c = await insertPending(s(), b.businessId, { amountMinor: 5000n });
  await expect(s().ledger.creditValues(s().db, c, null)).rejects.toThrow(/PENDING/);
});

it('stops an unbalanced completion with an error and writes nothing, the state change included', async () => {
  const b = await createBusiness(s().db);
  const c = await insertPending(s(), b.businessId, { amountMinor: 5000n });
  await s().db.none('UPDATE collections SET total_credit_minor = 5001 WHERE id = $1', [c.id]);
  const before = await ledgerCounts(s().db);
  await expect(complete(s(), c.id)).rejects.toThrow(/do not balance/);
  expect(await ledgerCounts(s().db)).toEqual(before);
  expect((await s().db.one('SELECT status FROM collections WHERE id = $1', [c.id])).status).toBe('PENDING');
});

it('lists every wallet, empty ones at zero, default first; one wallet or NOT_FOUND', async () => {
  const b = await createBusiness(s().db, { defaultCurrency: 'USD', wallets: ['UGX', 'EUR'] });
  const c = await insertPending(s(), b.businessId, { currency: 'UGX', amountMinor: 777n });
  await complete(s(), c.id);
  expect(await s().ledger.walletBalances(b.businessId)).toEqual([
    { currency: 'USD', availableMinor: 0n, pendingMinor: 0n, reservedMinor: 0n, refundHeldMinor: 0n, disbursementHeldMinor: 0n, disputeHeldMinor: 0n },
    { currency: 'EUR', availableMinor: 0n, pendingMinor: 0n, reservedMinor: 0n, refundHeldMinor: 0n, disbursementHeldMinor: 0n, disputeHeldMinor: 0n },
    { currency: 'UGX', availableMinor: 777n, pendingMinor: 0n, reservedMinor: 0n, refundHeldMinor: 0n, disbursementHeldMinor: 0n, disputeHeldMinor: 0n },
  ]);
  const err = await s().ledger.walletBalance(b.businessId, 'KES').catch((e) => e);
  expect(err).toBeInstanceOf(AppError);
  expect(err.code).toBe('NOT_FOUND');
});

it('pages a wallet postings newest first; NOT_FOUND for an unknown business or wallet', async () => {
  const b = await createBusiness(s().db);
  for (const amount of [100n, 200n, 300n]) await complete(s(), (await insertPending(s(), b.businessId, { amountMinor: amount })).id);
  const first = await s().ledger.walletPostings(b.businessId, 'UGX', { limit: 2, offset: 0, cursor: null });
  expect(first.total).toBe(3);
  expect(first.rows.map((p) => p.amount)).toEqual([3, 2]);
  const second = await s().ledger.walletPostings(b.businessId, 'UGX', { limit: 2, offset: 2, cursor: null });
  expect(second.rows.map((p) => p.amount)).toEqual([1]);
  const after = await s().ledger.walletPostings(b.businessId, 'UGX', { limit: 2, offset: 0, cursor: first.nextCursor });
  expect(after.rows).toEqual(second.rows);
  expect(after.nextCursor).toBeNull();
  await expect(s().ledger.walletPostings(b.businessId, 'EUR', { limit: 2, offset: 0, cursor: null })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(s().ledger.walletPostings(999999, 'UGX', { limit: 2, offset: 0, cursor: null })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(s().ledger.walletPostings(2 ** 40, 'UGX', { limit: 2, offset: 0, cursor: null })).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

it('keeps the whole ledger balanced per currency, and every running balance equal to the sum of its postings', async () => {
  const sums = await sumsPerCurrency(s().db);
  expect(Object.keys(sums).length).toBeGreaterThan(0);
  for (const sum of Object.values(sums)) expect(sum).toBe(0n);
  expect(await ledgerDrift(s().db)).toEqual([]);
});
