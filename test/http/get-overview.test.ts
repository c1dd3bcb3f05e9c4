// Proves the overview (getOverview): today's and the last 30 days' collections by payment method with their success rate and completed volume, per business or over all; per MID and what waits on an operator for operators only; a merchant's people confined to their business; bad filters refused.
import { disbursingMerchant, eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { databaseState } from '../helpers/state';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser, signedIn } from '../helpers/users';
import type { SessionClient } from '../helpers/users';

let svc: TestService;
let books: MerchantSetup;
let tools: MerchantSetup;
let owner: SessionClient;
const DAY_MS = 86_400_000;

async function pay(m: MerchantSetup, amount: number, outcome: 'COMPLETED' | 'FAILED' | null, method = 'MOBILE_MONEY'): Promise<string> {
  const body = method === 'BANK'
    ? { currency: 'UGX', amount, payment_method: 'BANK', account_number: 'acct-123', redirect_url: 'https://shop.example/done', merchant_reference: ref(), narration: 'Order by bank transfer' }
    : mobileMoney({ amount, account_number: '256700000321' });
  const res = await m.client.post('/v1/collections/request-to-pay', body);
  if (res.status !== 200 && res.status !== 202) throw new Error(`request-to-pay: ${res.status} ${res.text}`);
  const reference = res.body.data.gateway_reference as string;
  if (outcome) expect((await m.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome })).status).toBe(200);
  return reference;
}

/** Moves a collection's creation back by `days` (the service has no way to create one in the past). */
async function createdDaysAgo(reference: string, days: number): Promise<void> {
  await svc.services.db.none('UPDATE collections SET created_at = created_at - make_interval(days => $2) WHERE gateway_reference = $1', [reference, days]);
}

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  books = await setupMerchant(svc, { name: 'Kampala Books', webhookUrl: 'http://127.0.0.1:9/books' });
  tools = await setupMerchant(svc, { name: 'Nairobi Tools' });
  await pay(books, 50000, 'COMPLETED');
  await pay(books, 30000, 'COMPLETED');
  await pay(books, 10000, 'FAILED');
  await pay(books, 5000, null);
  await pay(books, 1000, 'COMPLETED', 'BANK');
  await createdDaysAgo(await pay(books, 7000, 'COMPLETED'), 3); // in the 30 days, not today
  await createdDaysAgo(await pay(books, 9000, 'COMPLETED'), 40); // in neither
  await pay(tools, 20000, 'COMPLETED');
  owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: books.businessId }));
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

const overview = async (query = '') => {
  const res = await svc.admin.get(`/v1/admin/overview${query}`);
  expect(res.status).toBe(200);
  return res.body.data;
};
const method = (data: any, period: string, m: string) => data.periods.find((p: any) => p.period === period).methods.find((x: any) => x.payment_method === m);

describe('the overview', () => {
  it("counts one business's collections by method today and over 30 days, with success rate and volume", async () => {
    const data = await overview(`?business_id=${books.businessId}`);
    const today = Date.parse(data.as_of) - (Date.parse(data.as_of) % DAY_MS);
    expect(data.periods.map((p: any) => [p.period, Date.parse(p.from)])).toEqual([['today', today], ['last_30_days', today - 29 * DAY_MS]]);
    expect(method(data, 'today', 'MOBILE_MONEY')).toEqual({ payment_method: 'MOBILE_MONEY', collections: 4, completed: 2, final: 3, success_rate: 0.6667, volume: [{ currency: 'UGX', amount: 80000 }] });
    expect(method(data, 'today', 'BANK')).toEqual({ payment_method: 'BANK', collections: 1, completed: 1, final: 1, success_rate: 1, volume: [{ currency: 'UGX', amount: 1000 }] });
    expect(method(data, 'last_30_days', 'MOBILE_MONEY')).toEqual({ payment_method: 'MOBILE_MONEY', collections: 5, completed: 3, final: 4, success_rate: 0.75, volume: [{ currency: 'UGX', amount: 87000 }] });
    expect(method(data, 'today', 'CARD')).toBeUndefined();
    const mids = data.mids.filter((m: any) => m.business_id === books.businessId);
    expect(mids.map((m: any) => m.collections).sort()).toEqual([1, 5]);
    expect(data.mids.every((m: any) => m.service_type === 'sandbox' && m.business_id === books.businessId)).toBe(true);
    expect(data.attention).toMatchObject({ held_payments: 0, unknown_outcomes: 0 });
  });

  it('sums every business for an operator, and counts a failing webhook once its attempt failed', async () => {
    const all = await overview();
    expect(method(all, 'today', 'MOBILE_MONEY')).toMatchObject({ collections: 5, completed: 3, final: 4, success_rate: 0.75, volume: [{ currency: 'UGX', amount: 100000 }] });
    expect(new Set(all.mids.map((m: any) => m.business_id))).toEqual(new Set([books.businessId, tools.businessId]));
    await eventually(async () => ((await overview(`?business_id=${books.businessId}`)).attention.failing_webhooks === 1 ? true : undefined), 20_000, 'the failed webhook');
  });

  it("shows a merchant's owner its own business only, without the processors' side", async () => {
    const res = await owner.get('/v1/admin/overview');
    expect(res.status).toBe(200);
    expect(method(res.body.data, 'today', 'MOBILE_MONEY')).toMatchObject({ collections: 4, completed: 2 });
    expect(res.body.data.mids).toEqual([]);
    expect(res.body.data.attention).toBeNull();
    expect((await owner.get(`/v1/admin/overview?business_id=${tools.businessId}`)).status).toBe(404);
  });

  it("tells a merchant's person what waits for approval and how much for them (four eyes), the session too, and changes nothing", async () => {
    const shop = await disbursingMerchant(svc, 50000);
    await svc.services.db.none('UPDATE wallets SET disbursement_approval_threshold_minor = 100000 WHERE business_id = $1', [shop.businessId]);
    const [asker, holder, veteran] = [await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId }), await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId }), await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId })];
    const newcomer = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId, fresh: true });
    const developer = await createUser(svc, { role: 'merchant_developer', business_id: shop.businessId });
    for (const [reference, column, who] of [['PAY-OVER-1', 'requested_by_user_id', asker.id], ['PAY-OVER-2', 'token_holder_user_id', holder.id]] as const) {
      const res = await shop.client.post('/v1/disbursements', { amount: 5000, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123503', account_name: 'Okello Transport', merchant_reference: reference }, { headers: { 'secret-key': shop.apiSecret } });
      expect(res.status).toBe(200);
      await svc.services.db.none(`UPDATE disbursements SET ${column} = $2 WHERE gateway_reference = $1`, [res.body.data.gateway_reference, who]);
    }
    const disbursements = () => svc.services.db.any('SELECT * FROM disbursements WHERE business_id = $1 ORDER BY id', [shop.businessId]);
    const before = await disbursements();
    // the asker and the token's holder may each approve the other's; an owner for less than the waiting period none
    for (const [user, forYou] of [[veteran, 2], [asker, 1], [holder, 1], [newcomer, 0], [developer, 0]] as const) {
      const session = await signedIn(svc, user);
      const res = await session.get('/v1/admin/overview');
      expect(res.status).toBe(200);
      expect(res.body.data.waiting).toEqual({ approvals: 2, approvals_for_you: forYou });
      expect((await session.get('/v1/admin/session')).body.data.waiting_for_you).toBe(forYou);
    }
    expect((await owner.get('/v1/admin/overview')).body.data.waiting).toEqual({ approvals: 0, approvals_for_you: 0 });
    expect((await overview()).waiting).toBeNull();
    expect(await disbursements()).toEqual(before);
  });

  it('refuses bad filters with a clear error and changes nothing', async () => {
    const before = await databaseState(svc.services.db);
    for (const [query, status, code] of [['business_id=books', 400, 'VALIDATION_ERROR'], ['business_id=0', 400, 'VALIDATION_ERROR'], ['period=today', 400, 'VALIDATION_ERROR'], ['business_id=999999', 404, 'NOT_FOUND']] as const) {
      const res = await svc.admin.get(`/v1/admin/overview?${query}`);
      expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status, code });
    }
    expect((await svc.anon.get('/v1/admin/overview')).status).toBe(401);
    expect(await databaseState(svc.services.db)).toEqual(before);
  });
});
