// Proves GET /v1/data/wallets/{currency}/balance (getWalletBalance): one wallet's balance; 404 for a wallet the business lacks, 400 for a malformed currency, 401 without a token.
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';
import { complete, createBusiness, insertPending, merchantClient } from '../helpers/money-fixtures';

let svc: TestService;
let client: Client;
beforeAll(async () => {
  svc = await startTestService();
  const s = svc.services;
  const biz = await createBusiness(s.db, { defaultCurrency: 'UGX', wallets: ['USD'], feeBearer: 'customer', fees: [{ method: 'MOBILE_MONEY', percent: '2', fixedMinor: 0n }] });
  for (const amountMinor of [12345n, 55n]) await complete(s, (await insertPending(s, biz.businessId, { currency: 'USD', amountMinor })).id);
  const other = await createBusiness(s.db, { defaultCurrency: 'KES' });
  await complete(s, (await insertPending(s, other.businessId, { currency: 'KES', amountMinor: 999n })).id);
  client = await merchantClient(svc, biz.businessId);
});
afterAll(async () => {
  await svc?.close();
});

it('returns the wallet balance (customer bore the fee: the whole amount is credited)', async () => {
  const res = await client.get('/v1/data/wallets/USD/balance');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    code: 200,
    status: 'success',
    message: 'Wallet balance retrieved',
    data: { currency: 'USD', balance: 124, available_balance: 124, pending_balance: 0, reserved_balance: 0, refund_held_balance: 0, disbursement_held_balance: 0, dispute_held_balance: 0 },
  });
});

it('returns an empty wallet at zero', async () => {
  const res = await client.get('/v1/data/wallets/UGX/balance');
  expect(res.body.data).toEqual({ currency: 'UGX', balance: 0, available_balance: 0, pending_balance: 0, reserved_balance: 0, refund_held_balance: 0, disbursement_held_balance: 0, dispute_held_balance: 0 });
});

it('answers 404 for a wallet the business does not have, including another business\'s', async () => {
  for (const currency of ['KES', 'EUR']) {
    const res = await client.get(`/v1/data/wallets/${currency}/balance`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'NOT_FOUND', status: 'error', message: expect.stringContaining(currency), data: null });
  }
});

it('refuses a malformed currency with 400 VALIDATION_ERROR naming the field', async () => {
  for (const currency of ['usd', 'US', 'USDX']) {
    const res = await client.get(`/v1/data/wallets/${currency}/balance`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.data).toContainEqual({ field: 'currency', message: expect.any(String) });
  }
});

it('refuses a caller without a valid access token with 401', async () => {
  const res = await svc.anon.get('/v1/data/wallets/USD/balance');
  expect(res.status).toBe(401);
  expect(res.body.code).toBe('UNAUTHORIZED');
});
