// Proves GET /v1/data/wallets/balances (listWalletBalances): every wallet of the caller's business, balances as sums of postings, nothing of other businesses.
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';
import { complete, createBusiness, insertPending, merchantClient, setRate } from '../helpers/money-fixtures';
import type { BusinessFixture } from '../helpers/money-fixtures';

let svc: TestService;
let biz: BusinessFixture;
let client: Client;
beforeAll(async () => {
  svc = await startTestService();
  const s = svc.services;
  await setRate(s.db, 'USD', 'UGX', '3700');
  biz = await createBusiness(s.db, {
    defaultCurrency: 'UGX',
    wallets: ['USD', 'EUR'],
    reservePercent: '10',
    reserveMonths: 6,
    cardSettlementDays: 3,
    fees: [{ method: 'CARD', percent: '3', fixedMinor: 0n }],
  });
  // UGX: a mobile-money credit (10 % reserved) and a converted USD request; USD: a card credit (pending)
  for (const o of [
    { amountMinor: 5000000n },
    { currency: 'USD', amountMinor: 1000n, method: 'BANK' as const },
  ]) {
    const row = await insertPending(s, biz.businessId, { ...o, currency: o.currency === 'USD' ? 'EUR' : 'UGX' });
    await complete(s, row.id);
  }
  const card = await insertPending(s, biz.businessId, { method: 'CARD', currency: 'USD', amountMinor: 25000n });
  await complete(s, card.id);
  const other = await createBusiness(s.db, { defaultCurrency: 'KES' });
  await complete(s, (await insertPending(s, other.businessId, { currency: 'KES', amountMinor: 999n })).id);
  client = await merchantClient(svc, biz.businessId);
});
afterAll(async () => {
  await svc?.close();
});

it('lists every wallet of the business with balance = available + pending + reserved', async () => {
  const res = await client.get('/v1/data/wallets/balances');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    code: 200,
    status: 'success',
    message: 'Wallet balances retrieved',
    data: [
      // 50000.00 UGX: 5000 reserved, 45000 available
      { currency: 'UGX', balance: 50000, available_balance: 45000, pending_balance: 0, reserved_balance: 5000, refund_held_balance: 0, disbursement_held_balance: 0, dispute_held_balance: 0 },
      // 10.00 EUR -> the EUR wallet itself (the business has one): 1 reserved, 9 available
      { currency: 'EUR', balance: 10, available_balance: 9, pending_balance: 0, reserved_balance: 1, refund_held_balance: 0, disbursement_held_balance: 0, dispute_held_balance: 0 },
      // 250.00 USD card, fee 7.50: credit 242.50, reserve 24.25, pending 218.25
      { currency: 'USD', balance: 242.5, available_balance: 0, pending_balance: 218.25, reserved_balance: 24.25, refund_held_balance: 0, disbursement_held_balance: 0, dispute_held_balance: 0 },
    ],
  });
});

it('shows a new wallet at zero', async () => {
  await svc.services.db.none("INSERT INTO wallets (business_id, currency) VALUES ($1, 'TZS')", [biz.businessId]);
  const res = await client.get('/v1/data/wallets/balances');
  expect(res.body.data).toContainEqual({ currency: 'TZS', balance: 0, available_balance: 0, pending_balance: 0, reserved_balance: 0, refund_held_balance: 0, disbursement_held_balance: 0, dispute_held_balance: 0 });
  expect(res.body.data.map((w: { currency: string }) => w.currency)).not.toContain('KES');
});

it('moves settled and released amounts to available without changing the balance', async () => {
  await svc.services.ledger.releaseDue(new Date(Date.now() + 200 * 86_400_000));
  const res = await client.get('/v1/data/wallets/balances');
  expect(res.body.data.find((w: { currency: string }) => w.currency === 'USD')).toEqual({
    currency: 'USD',
    balance: 242.5,
    available_balance: 242.5,
    pending_balance: 0,
    reserved_balance: 0,
    refund_held_balance: 0,
    disbursement_held_balance: 0,
    dispute_held_balance: 0,
  });
});

it('refuses a caller without a valid access token with 401', async () => {
  for (const c of [svc.anon, svc.merchant('JWT not.a.token')]) {
    const res = await c.get('/v1/data/wallets/balances');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  }
});
