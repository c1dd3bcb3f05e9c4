// Proves on a private PostgreSQL cluster stopped and restarted under requests that every operation answers 503 SERVICE_UNAVAILABLE with Retry-After while the database is down (never 401, never 500), that a customer's hosted payment page and a payment link's page answer a page in words instead (503, Retry-After: do not pay again, try again in a minute), that /healthz tells the truth, and that nothing accepted is lost.
import { openPostgres } from '../../src/db';
import type { Database } from '../../src/db';
import { mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import { expectOk } from '../helpers/merchants';
import type { MerchantSetup } from '../helpers/fixtures';
import { eventually } from '../helpers/notify-fixtures';
import { clusterBinariesPresent, PG_BIN, startPrivateCluster } from '../helpers/private-cluster';
import type { PrivateCluster } from '../helpers/private-cluster';
import { startTestService } from '../helpers/service';
import type { ApiResponse, TestService } from '../helpers/service';

const ci = process.env.CI === 'true';
const suite = clusterBinariesPresent || ci ? describe : describe.skip;
const SUCCESS = '256777000001';
const SILENT = '256700000123';

function expectOutage(res: ApiResponse) {
  expect(res.status).toBe(503);
  expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

suite(`database outage (private cluster from ${PG_BIN})`, () => {
  let cluster: PrivateCluster;
  let database: Database;
  let svc: TestService;
  let m: MerchantSetup;

  beforeAll(async () => {
    cluster = await startPrivateCluster();
    database = await openPostgres(cluster.url);
    svc = await startTestService({ database, env: { SANDBOX_MM_DELAY_MS: '300' } });
    m = await setupMerchant(svc);
  }, 120_000);

  afterAll(async () => {
    await svc?.close();
    await database?.close();
    cluster?.destroy();
  });

  it('answers 503 with Retry-After while down, recovers by itself and loses nothing', async () => {
    const accepted = new Set<string>();
    const refused = new Set<string>();
    const statuses = new Map<number, number>();
    let loading = true;
    const load = async () => {
      while (loading) {
        const body = mobileMoney({ account_number: SILENT });
        const res = await m.client.post('/v1/collections/request-to-pay', body);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        (res.status === 200 ? accepted : refused).add(body.merchant_reference);
        // a caller that honours Retry-After would wait longer; this one only avoids spinning
        if (res.status !== 200) await new Promise((r) => setTimeout(r, 20));
      }
    };
    const callers = Array.from({ length: 4 }, load);
    await eventually(() => accepted.size >= 20, 30_000, 'requests accepted before the outage');
    const paid = (await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: SUCCESS }))).body.data;
    const bank = { currency: 'UGX', amount: 25000, payment_method: 'BANK', account_number: 'acct-0042', redirect_url: 'https://shop.example.org/return', merchant_reference: ref(), narration: 'Hosted page order' };
    const hosted = expectOk<{ gateway_reference: string; payment_url: string }>(await m.client.post('/v1/collections/request-to-pay', bank));
    expect((await fetch(hosted.payment_url)).status).toBe(200);
    const link = expectOk<{ url: string }>(await m.client.post('/v1/payment-links', { title: 'Tailoring deposit', amount: 25000, currency: 'UGX', payment_methods: ['MOBILE_MONEY'] }));
    expect((await fetch(link.url)).status).toBe(200);

    cluster.stop();
    const before = accepted.size;
    await eventually(() => (statuses.get(503) ?? 0) >= 8, 30_000, '503s under load');

    const health = await fetch(svc.url + '/healthz');
    expect(health.status).toBe(503);
    expect(Number(health.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await health.json()).toEqual({ status: 'unavailable', database: 'unreachable' });
    // every kind of caller: a merchant with a valid token, the token endpoint, the operator API
    expectOutage(await m.client.post('/v1/collections/request-to-pay', mobileMoney()));
    expectOutage(await m.client.get(`/v1/collections/${paid.gateway_reference}`));
    expectOutage(await m.client.get('/v1/data/wallets/balances'));
    expectOutage(await svc.anon.post('/v1/auth/token', { api_key: m.apiKey }, { headers: { 'secret-key': m.apiSecret } }));
    expectOutage(await svc.admin.get('/v1/admin/businesses'));
    // the customer on a hosted payment page gets a page that says what happened and what to do, not the API's JSON
    for (const res of [await fetch(hosted.payment_url), await fetch(hosted.payment_url, { method: 'POST', body: new URLSearchParams({ token: new URL(hosted.payment_url).searchParams.get('token')!, action: 'approve' }) })]) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('60');
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const words = (await res.text()).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
      expect(words).toContain('We could not reach our records');
      expect(words).toContain('Your payment may still go through: do not pay again');
      expect(words).toContain('Try this page again in a minute');
    }
    // and so does a payment link's page: opened (nothing charged), and its form sent (a payment may have begun)
    const linkPages = [await fetch(link.url), await fetch(link.url, { method: 'POST', body: new URLSearchParams({ method: 'MOBILE_MONEY', phone: SILENT }) })];
    for (const [i, res] of linkPages.entries()) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('60');
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const words = (await res.text()).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
      expect(words).toContain('We could not reach our records');
      expect(words).toContain(i === 0 ? 'Nothing was charged' : 'Your payment may still go through: do not pay again');
    }

    cluster.start();
    await eventually(async () => (await fetch(svc.url + '/healthz')).status === 200, 30_000, '/healthz 200 after the restart');
    await eventually(() => accepted.size >= before + 20, 30_000, 'requests accepted after the restart');
    loading = false;
    await Promise.all(callers);

    // nothing but success and our own outage was ever answered: no 401 for our outage, no 500
    expect([...statuses.keys()].sort()).toEqual([200, 503]);
    const stored = new Set(
      (await database.db.any<{ merchant_reference: string }>('SELECT merchant_reference FROM collections WHERE business_id = $1', [m.businessId])).map(
        (r) => r.merchant_reference,
      ),
    );
    for (const reference of accepted) expect(stored.has(reference)).toBe(true);
    // the collection paid just before the outage completes once the database is back
    await eventually(
      async () => (await m.client.get(`/v1/collections/${paid.gateway_reference}`)).body.data.transaction_status === 'COMPLETED',
      30_000,
      'the report stored before the outage to be applied',
    );
    // a request refused during the outage succeeds when sent again, once
    const [again] = [...refused];
    const retried = await m.client.post('/v1/collections/request-to-pay', { ...mobileMoney({ account_number: SILENT }), merchant_reference: again });
    expect(retried.status).toBe(200);
    // and the page tried again shows the payment, still payable
    const back = await fetch(hosted.payment_url);
    expect(back.status).toBe(200);
    expect(await back.text()).toContain('25,000 UGX');
  }, 180_000);
});
