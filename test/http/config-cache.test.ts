// Proves what request-to-pay keeps in memory (API token state, pricing, MIDs) stays exact across processes: two services on one PostgreSQL database, a change made through one process's operator API is what the other's very next request uses, a regenerated API token is refused by the other process at once, and the other process keeps nothing stale afterwards.
import { REAL_PG_URL, SHARED_PG_URL } from '../helpers/db';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { TestService } from '../helpers/service';
import { startTwoServices } from '../helpers/two-services';
import type { TwoServices } from '../helpers/two-services';

// the real server: this run's, or in CI the machine's (CI always has one)
const serverUrl = REAL_PG_URL ?? (process.env.CI === 'true' ? SHARED_PG_URL : null);
const onServer = serverUrl ? describe : describe.skip;

onServer('two services on one database (needs a PostgreSQL server: TEST_DATABASE_URL)', () => {
  let two: TwoServices;
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    two = await startTwoServices(serverUrl!);
    ({ a, b } = two);
  }, 120_000);
  /** A client of process b with an access token of the merchant's API token. */
  async function onB(m: { apiKey: string; apiSecret: string }) {
    const res = await b.anon.post('/v1/auth/token', { api_key: m.apiKey, expires_in: 3600 }, { headers: { 'secret-key': m.apiSecret } });
    expect(res.status).toBe(200);
    return b.merchant(res.body.data.token);
  }
  afterAll(() => two?.close());

  it("prices the other process's next request with a fee changed through one process's operator API", async () => {
    const m = await setupMerchant(a, { fees: [{ payment_method: 'MOBILE_MONEY', percent: 2, fixed: 0 }] });
    const client = await onB(m);
    const fee = async () => {
      const res = await client.post('/v1/collections/request-to-pay', mobileMoney());
      expect(res.status).toBe(200);
      const row = await b.services.collections.get(res.body.data.gateway_reference, null);
      return row.fee_minor;
    };
    expect(await fee()).toBe(100000n);
    expect(await fee()).toBe(100000n); // now from b's memory
    expect((await a.admin.patch(`/v1/admin/businesses/${m.businessId}`, { fees: [{ payment_method: 'MOBILE_MONEY', percent: 3, fixed: 0 }] })).status).toBe(200);
    expect(await fee()).toBe(150000n);
    expect(await fee()).toBe(150000n);
  });

  it('refuses a regenerated API token in the other process at once', async () => {
    const m = await setupMerchant(a);
    const client = await onB(m);
    expect((await client.post('/v1/collections/request-to-pay', mobileMoney())).status).toBe(200);
    expect((await client.get('/v1/data/wallets/UGX/balance')).status).toBe(200);
    expect((await a.admin.post(`/v1/admin/api-tokens/${m.apiTokenId}/regenerate`)).status).toBe(200);
    const count = () => b.services.db.one<{ n: number }>('SELECT count(*)::int AS n FROM collections WHERE business_id = $1', [m.businessId]);
    const before = await count();
    expect((await client.post('/v1/collections/request-to-pay', mobileMoney())).status).toBe(401);
    expect((await client.get('/v1/data/wallets/UGX/balance')).status).toBe(401);
    expect(await count()).toEqual(before);
  });
});
