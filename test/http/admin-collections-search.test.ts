// Proves what the operator's collection page and search read: the business's name, the
// narration and the customer's account on each record; a merchant's own people see their wallets'
// postings only, never the service's own ledger accounts nor the processor side; the operator's search
// across several businesses by business, gateway reference, merchant reference and customer number, with
// exact totals; and clear errors for bad filter values.
import { mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
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
/** one merchant_reference used by both businesses */
const shared = ref('SHARED');
const refs: Record<string, string> = {};

async function pay(m: MerchantSetup, o: Record<string, unknown>, outcome?: 'COMPLETED'): Promise<string> {
  const res = await m.client.post('/v1/collections/request-to-pay', mobileMoney(o));
  if (res.status !== 202 && res.status !== 200) throw new Error(`request-to-pay: ${res.status} ${res.text}`);
  const reference = res.body.data.gateway_reference as string;
  if (outcome) {
    const done = await m.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome });
    if (done.status !== 200) throw new Error(`simulate: ${done.text}`);
  }
  return reference;
}

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  books = await setupMerchant(svc, { name: 'Kampala Books', fees: [{ payment_method: 'MOBILE_MONEY', percent: 3, fixed: 0 }] });
  tools = await setupMerchant(svc, { name: 'Nairobi Tools' });
  refs.booksShared = await pay(books, { merchant_reference: shared, account_number: '256777000101', narration: 'Order 0001 of books' }, 'COMPLETED');
  refs.toolsShared = await pay(tools, { merchant_reference: shared, account_number: '256777000101', narration: 'Order 0001 of tools' });
  refs.booksOther = await pay(books, { account_number: '256777000102', narration: 'Order 0002 of books' });
  refs.toolsOther = await pay(tools, { account_number: '256777000103', narration: 'Order 0002 of tools' });
  owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: books.businessId }));
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

const list = async (query: string) => {
  const res = await svc.admin.get(`/v1/admin/collections?${query}`);
  expect(res.status).toBe(200);
  return { refs: (res.body.data as { gateway_reference: string }[]).map((c) => c.gateway_reference).sort(), total: res.body.paging.total as number, rows: res.body.data };
};

describe('a collection record for the operator and for the merchant', () => {
  it("names the business and shows the narration, the customer's number and every posting to the operator", async () => {
    const res = await svc.admin.get(`/v1/admin/collections/${refs.booksShared}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      business_id: books.businessId,
      business_name: 'Kampala Books',
      narration: 'Order 0001 of books',
      account_number: '256777000101',
      checkout: null,
      processor_request: null, // the built-in simulator has no processor request
    });
    const accounts = (res.body.data.postings as { account: string }[]).map((p) => p.account).sort();
    expect(accounts).toEqual(expect.arrayContaining(['available', 'fee_revenue', 'processor_clearing']));
  });

  it("shows a merchant's owner its wallets' postings only, not the service's own ledger accounts", async () => {
    const res = await owner.get(`/v1/admin/collections/${refs.booksShared}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ business_name: 'Kampala Books', narration: 'Order 0001 of books', account_number: '256777000101', processor_request: null, checkout: null });
    const accounts = (res.body.data.postings as { account: string }[]).map((p) => p.account);
    expect(accounts).toContain('available');
    expect(accounts).not.toContain('processor_clearing');
    expect(accounts).not.toContain('fee_revenue');
    const listed = await owner.get(`/v1/admin/collections?merchant_reference=${shared}`);
    expect(listed.body.data.map((c: { gateway_reference: string }) => c.gateway_reference)).toEqual([refs.booksShared]);
    expect(listed.body.data[0].postings.map((p: { account: string }) => p.account)).not.toContain('fee_revenue');
  });
});

describe("the operator's search over several businesses", () => {
  it('names each business in the list and filters by business', async () => {
    const all = await list('per_page=100');
    expect(all.refs).toEqual(Object.values(refs).sort());
    const names = Object.fromEntries(all.rows.map((c: { gateway_reference: string; business_name: string }) => [c.gateway_reference, c.business_name]));
    expect(names[refs.toolsOther]).toBe('Nairobi Tools');
    expect(names[refs.booksOther]).toBe('Kampala Books');
    expect(await list(`business_id=${tools.businessId}`)).toMatchObject({ refs: [refs.toolsShared, refs.toolsOther].sort(), total: 2 });
  });

  it('finds one collection by gateway reference, and by merchant reference across businesses', async () => {
    expect(await list(`gateway_reference=${refs.toolsOther}`)).toMatchObject({ refs: [refs.toolsOther], total: 1 });
    expect(await list(`merchant_reference=${shared}`)).toMatchObject({ refs: [refs.booksShared, refs.toolsShared].sort(), total: 2 });
    expect(await list(`merchant_reference=${shared}&business_id=${books.businessId}`)).toMatchObject({ refs: [refs.booksShared], total: 1 });
    expect(await list(`gateway_reference=${refs.toolsOther}&business_id=${books.businessId}`)).toMatchObject({ refs: [], total: 0 });
    expect(await list('gateway_reference=PCNOSUCHREFERENCE0000')).toMatchObject({ refs: [], total: 0 });
  });

  it("finds a customer's collections by number, in every business or one, with the other filters", async () => {
    expect(await list('account_number=256777000101')).toMatchObject({ refs: [refs.booksShared, refs.toolsShared].sort(), total: 2 });
    expect(await list(`account_number=256777000101&business_id=${tools.businessId}`)).toMatchObject({ refs: [refs.toolsShared], total: 1 });
    expect(await list('account_number=256777000101&status=COMPLETED')).toMatchObject({ refs: [refs.booksShared], total: 1 });
    expect(await list('account_number=256777000199')).toMatchObject({ refs: [], total: 0 });
  });

  it('gives bad filter values a clear error and changes nothing', async () => {
    // a merchant's people cannot widen their search to another business
    const other = await owner.get(`/v1/admin/collections?business_id=${tools.businessId}`);
    expect(other.status).toBe(404);
    const before = await databaseState(svc.services.db);
    const bad = async (query: string, status: number, code: string, words: RegExp) => {
      const res = await svc.admin.get(`/v1/admin/collections?${query}`);
      expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status, code });
      expect(JSON.stringify(res.body)).toMatch(words);
    };
    await bad('business_id=books', 400, 'VALIDATION_ERROR', /business_id/);
    await bad('business_id=0', 400, 'VALIDATION_ERROR', /business_id/);
    await bad('gateway_reference=', 400, 'VALIDATION_ERROR', /gateway_reference/);
    await bad(`account_number=${'7'.repeat(65)}`, 400, 'VALIDATION_ERROR', /account_number/);
    await bad('account_number=%00', 400, 'VALIDATION_ERROR', /account_number/);
    await bad('customer=256777000101', 400, 'VALIDATION_ERROR', /customer/);
    await bad('business_id=999999', 404, 'NOT_FOUND', /business/);
    expect(await databaseState(svc.services.db)).toEqual(before);
  });
});
