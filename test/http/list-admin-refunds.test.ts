// Proves listAdminRefunds (GET /v1/admin/refunds, the dashboard's refunds list): operators list every business's
// refunds or one business's, newest first, with the refund list's filters and cursor paging; a merchant's people
// get their own business's only (another business_id is NOT_FOUND); bad filters are refused naming the field and
// change nothing.
import { mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { databaseState } from '../helpers/state';
import { createUser, signedIn } from '../helpers/users';

let svc: TestService;
let shop: MerchantSetup;
let other: MerchantSetup;
/** gateway references of the refunds, oldest first */
const made: { shopFirst: string; shopSecond: string; theirs: string } = {} as never;
let shopSecondReference: string;

async function refundOf(m: MerchantSetup, amount: number, merchantReference = ref('RFD')): Promise<string> {
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 50000 }));
  expect(created.status).toBe(200);
  const collection = created.body.data.gateway_reference as string;
  expect((await m.client.post(`/v1/sandbox/collections/${collection}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  const r = await m.client.post(`/v1/collections/${collection}/refunds`, { amount, merchant_reference: merchantReference });
  expect(r.status).toBe(200);
  return r.body.data.gateway_reference as string;
}

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  shop = await setupMerchant(svc);
  other = await setupMerchant(svc);
  made.shopFirst = await refundOf(shop, 1000);
  shopSecondReference = ref('RFD');
  made.shopSecond = await refundOf(shop, 2000, shopSecondReference);
  made.theirs = await refundOf(other, 3000);
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

const refsOf = (res: { body: { data: { gateway_reference: string }[] } }) => res.body.data.map((r) => r.gateway_reference);

describe('listAdminRefunds', () => {
  it("lists every business's refunds newest first for an operator, or one business's, with the filters", async () => {
    const all = await svc.admin.get('/v1/admin/refunds');
    expect(all.status).toBe(200);
    expect(all.body.message).toBe('Refunds retrieved');
    expect(refsOf(all)).toEqual([made.theirs, made.shopSecond, made.shopFirst]);
    expect(all.body.data[0]).toMatchObject({ gateway_reference: made.theirs, amount: 3000, currency: 'UGX' });
    expect(all.body.paging.total).toBe(3);

    expect(refsOf(await svc.admin.get(`/v1/admin/refunds?business_id=${shop.businessId}`))).toEqual([made.shopSecond, made.shopFirst]);
    expect(refsOf(await svc.admin.get(`/v1/admin/refunds?merchant_reference=${shopSecondReference}`))).toEqual([made.shopSecond]);
    expect(refsOf(await svc.admin.get('/v1/admin/refunds?from=2001-01-01T00:00:00Z&to=2001-01-02T00:00:00Z'))).toEqual([]);
    // a business that does not exist is said, as on the collections list, not answered with an empty page
    const nobody = await svc.admin.get('/v1/admin/refunds?business_id=999999');
    expect(nobody.status).toBe(404);
    expect(nobody.body.code).toBe('NOT_FOUND');
  });

  it('pages by cursor without a refund twice or lost', async () => {
    const first = await svc.admin.get('/v1/admin/refunds?per_page=2');
    expect(refsOf(first)).toEqual([made.theirs, made.shopSecond]);
    const cursor = first.body.paging.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const second = await svc.admin.get(`/v1/admin/refunds?per_page=2&cursor=${encodeURIComponent(cursor)}`);
    expect(refsOf(second)).toEqual([made.shopFirst]);
    expect(second.body.paging.next_cursor).toBeNull();
  });

  it("gives a merchant's people their own business's refunds only", async () => {
    const session = await signedIn(svc, await createUser(svc, { role: 'merchant_viewer', business_id: other.businessId }));
    const own = await session.get('/v1/admin/refunds');
    expect(own.status).toBe(200);
    expect(refsOf(own)).toEqual([made.theirs]);
    const denied = await session.get(`/v1/admin/refunds?business_id=${shop.businessId}`);
    expect(denied.status).toBe(404);
    expect(denied.body.code).toBe('NOT_FOUND');
    expect((await svc.anon.get('/v1/admin/refunds')).status).toBe(401);
  });

  it('refuses bad filters with a clear error naming the field and changes nothing', async () => {
    const before = await databaseState(svc.services.db);
    for (const [query, field] of [
      ['status=DONE', 'status'],
      ['business_id=books', 'business_id'],
      ['currency=ugx', 'currency'],
      ['from=2026-02-30T00:00:00Z', 'from'],
      ['per_page=1000', 'per_page'],
      ['customer=256777000101', 'customer'],
    ]) {
      const res = await svc.admin.get(`/v1/admin/refunds?${query}`);
      expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status: 400, code: 'VALIDATION_ERROR' });
      expect(JSON.stringify(res.body)).toContain(field);
    }
    expect(await databaseState(svc.services.db)).toEqual(before);
  });
});
