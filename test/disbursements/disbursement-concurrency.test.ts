// Proves on the real server that concurrent disbursements never take a wallet's available balance below zero nor pass its daily limit: twenty at once against a balance that covers ten accept exactly ten, twenty at once against a daily limit that allows five accept exactly five, and five identical requests make one disbursement; the ledger check finds nothing afterwards.
import { createRealDatabase, SHARED_PG_URL } from '../helpers/db';
import { openPostgres } from '../../src/db';
import { mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { needsRealServer } from '../helpers/requires';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { ledgerDrift } from '../../src/ledger/ledger';

// locking is proved on the real server, in every pass: the embedded database has one session
// (docs/embedded-database.md), so this suite makes its own database on the server (SHARED_PG_URL)
needsRealServer().describe('concurrent disbursements (real PostgreSQL)', () => {
  let svc: TestService;
  let drop: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const created = await createRealDatabase(SHARED_PG_URL);
    const database = await openPostgres(created.url);
    svc = await startTestService({ database, env: { SANDBOX_MM_DELAY_MS: '3600000', PROCESSOR_CHECK_SCHEDULE: '100ms,200ms' } });
    drop = async () => {
      await svc.close();
      await database.close();
      await created.drop();
    };
  }, 180_000); // a service start is over a minute on a loaded machine
  afterAll(() => drop());

  /** A merchant whose sandbox MIDs disburse, with `funds` UGX available and a disbursement fee of 100.00. */
  async function funded(funds: number): Promise<MerchantSetup> {
    const m = await setupMerchant(svc);
    await svc.database.db.none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [m.businessId]);
    await svc.database.db.none('UPDATE businesses SET disbursement_fee_fixed_minor = 10000 WHERE id = $1', [m.businessId]);
    const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: funds, account_number: '256700000009' }));
    expect((await m.client.post(`/v1/sandbox/collections/${created.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
    return m;
  }

  // an account ending in 503 stays PROCESSING on the simulator: every accepted one keeps its hold
  const payout = (over: Record<string, unknown> = {}) => ({
    amount: 4900, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123503', account_name: 'Driver', merchant_reference: ref('PAY'), ...over,
  });
  const at = (n: number, f: (i: number) => Promise<{ status: number; body: { code: unknown } }>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));
  const available = async (m: MerchantSetup) => (await m.client.get('/v1/data/wallets/UGX/balance')).body.data;

  it('twenty at once against a balance that covers ten: exactly ten accepted, available never below zero', async () => {
    const m = await funded(50000); // ten of 4,900 + 100 fee
    const answers = await at(20, () => m.client.post('/v1/disbursements', payout(), { headers: { 'secret-key': m.apiSecret } }));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.status !== 200).map((a) => a.body.code)).toEqual(Array(10).fill('INSUFFICIENT_FUNDS'));
    expect(await available(m)).toMatchObject({ balance: 50000, available_balance: 0, disbursement_held_balance: 50000 });
    const rows = await svc.database.db.one('SELECT count(*)::int AS n, sum(amount_minor + fee_minor)::bigint AS held FROM disbursements WHERE business_id = $1', [m.businessId]);
    expect(rows).toEqual({ n: 10, held: 5_000_000n });
    expect(await ledgerDrift(svc.database.db)).toEqual([]);
  });

  it('twenty at once against a daily limit that allows five: exactly five accepted', async () => {
    const m = await funded(500000);
    await svc.database.db.none("UPDATE wallets SET disbursement_daily_limit_minor = 2450000 WHERE business_id = $1", [m.businessId]);
    const answers = await at(20, () => m.client.post('/v1/disbursements', payout(), { headers: { 'secret-key': m.apiSecret } }));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status !== 200).map((a) => a.body.code)).toEqual(Array(15).fill('LIMIT_EXCEEDED'));
    expect((await available(m)).available_balance).toBe(475000);
  });

  it('five identical requests at once make one disbursement', async () => {
    const m = await funded(50000);
    const body = payout();
    const answers = await at(5, () => m.client.post('/v1/disbursements', body, { headers: { 'secret-key': m.apiSecret } }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => (a.body as unknown as { data: { gateway_reference: string } }).data.gateway_reference)).size).toBe(1);
    const { n } = await svc.database.db.one('SELECT count(*)::int AS n FROM disbursements WHERE business_id = $1', [m.businessId]);
    expect(n).toBe(1);
    expect((await available(m)).available_balance).toBe(45000);
  });
});
