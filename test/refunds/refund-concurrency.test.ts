// Proves on the real server that concurrent refunds never add up to more than a collection's payment and never take a wallet's available balance below zero: twenty at once against the payment, twenty at once against a short balance, twenty at once of twenty different payments of one wallet (only the wallet's lock orders them), and five identical requests making one refund; the ledger check finds nothing afterwards.
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
needsRealServer().describe('concurrent refunds (real PostgreSQL)', () => {
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

  async function completed(m: MerchantSetup, amount = 50000): Promise<string> {
    const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount, account_number: '256700000009' }));
    const reference = created.body.data.gateway_reference;
    expect((await m.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
    return reference;
  }

  const at = (n: number, f: (i: number) => Promise<{ status: number; body: { code: unknown } }>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));

  it('twenty refunds at once never exceed what the customer paid', async () => {
    const m = await setupMerchant(svc);
    const collection = await completed(m);
    const answers = await at(20, () => m.client.post(`/v1/collections/${collection}/refunds`, { amount: 3000, merchant_reference: ref('RFD') }));
    const accepted = answers.filter((a) => a.status === 200);
    expect(accepted).toHaveLength(16);
    expect(answers.filter((a) => a.status === 400).map((a) => a.body.code)).toEqual(Array(4).fill('VALIDATION_ERROR'));
    const c = await svc.database.db.one('SELECT refunded_minor FROM collections WHERE gateway_reference = $1', [collection]);
    expect(c.refunded_minor).toBe(4_800_000n);
    const sum = await svc.database.db.one('SELECT sum(amount_minor)::bigint AS s, count(*)::int AS n FROM refunds WHERE business_id = $1', [m.businessId]);
    expect(sum).toEqual({ s: 4_800_000n, n: 16 });
  });

  it('twenty refunds at once never take the available balance below zero', async () => {
    const m = await setupMerchant(svc, { fees: [{ payment_method: 'MOBILE_MONEY', percent: 3, fixed: 0 }] });
    const collection = await completed(m); // 48,500 available
    const answers = await at(20, () => m.client.post(`/v1/collections/${collection}/refunds`, { amount: 2600, merchant_reference: ref('RFD') }));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(18);
    expect(answers.filter((a) => a.status === 400).map((a) => a.body.code)).toEqual(['INSUFFICIENT_FUNDS', 'INSUFFICIENT_FUNDS']);
    const b = await m.client.get('/v1/data/wallets/UGX/balance');
    expect(b.body.data.available_balance).toBe(1700);
    const taken = await svc.database.db.one('SELECT sum(account_amount_minor)::bigint AS s FROM refunds WHERE business_id = $1', [m.businessId]);
    expect(taken.s).toBe(4_680_000n);
    expect(await ledgerDrift(svc.database.db)).toEqual([]);
  });

  it('twenty refunds of twenty different payments at once never take the wallet below zero: the wallet, not the payment, is locked', async () => {
    const m = await setupMerchant(svc, { fees: [{ payment_method: 'MOBILE_MONEY', percent: 3, fixed: 0 }] });
    // twenty payments of 50,000, each crediting 48,500: 970,000 available; twenty full refunds ask 1,000,000
    const collections: string[] = [];
    for (let i = 0; i < 20; i += 1) collections.push(await completed(m));
    const before = await m.client.get('/v1/data/wallets/UGX/balance');
    expect(before.body.data.available_balance).toBe(970000);
    const answers = await at(20, (i) => m.client.post(`/v1/collections/${collections[i]}/refunds`, { merchant_reference: ref('RFD') }));
    // each refund locks its own payment, so only the wallet's lock keeps them from reading one balance
    expect(answers.filter((a) => a.status === 200).length).toBe(19);
    expect(answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body.code])).toEqual([[400, 'INSUFFICIENT_FUNDS']]);
    const b = await m.client.get('/v1/data/wallets/UGX/balance');
    expect(b.body.data.available_balance).toBe(20000);
    // the holds taken add up to at most what was available, and are the accepted refunds' own
    const holds = await svc.database.db.one(
      `SELECT count(*)::int AS n, sum(p.amount_minor)::bigint AS s FROM postings p JOIN journals j ON j.id = p.journal_id
       JOIN ledger_accounts a ON a.id = p.account_id JOIN refunds r ON r.id = j.refund_id
       WHERE r.business_id = $1 AND j.kind = 'refund_hold' AND a.kind = 'refund_hold'`, [m.businessId]);
    expect(holds).toEqual({ n: 19, s: 95_000_000n });
    const taken = await svc.database.db.one('SELECT sum(account_amount_minor)::bigint AS s, count(*)::int AS n FROM refunds WHERE business_id = $1', [m.businessId]);
    expect(taken).toEqual({ s: 95_000_000n, n: 19 });
    // never below zero at any point: no running balance of the available account went negative
    const negative = await svc.database.db.one(
      `SELECT count(*)::int AS n FROM (SELECT p.id, sum(p.amount_minor) OVER (ORDER BY p.created_at, p.id) AS running
       FROM postings p JOIN ledger_accounts a ON a.id = p.account_id JOIN wallets w ON w.id = a.wallet_id
       WHERE w.business_id = $1 AND a.kind = 'available') x WHERE x.running < 0`, [m.businessId]);
    expect(negative.n).toBe(0);
    expect(await ledgerDrift(svc.database.db)).toEqual([]);
  }, 120_000);

  it('five identical requests at once make one refund', async () => {
    const m = await setupMerchant(svc);
    const collection = await completed(m);
    const body = { amount: 700, merchant_reference: ref('RFD') };
    const answers = await at(5, () => m.client.post(`/v1/collections/${collection}/refunds`, body));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => (a.body as unknown as { data: { gateway_reference: string } }).data.gateway_reference)).size).toBe(1);
    const { n } = await svc.database.db.one('SELECT count(*)::int AS n FROM refunds WHERE business_id = $1', [m.businessId]);
    expect(n).toBe(1);
    const c = await svc.database.db.one('SELECT refunded_minor FROM collections WHERE gateway_reference = $1', [collection]);
    expect(c.refunded_minor).toBe(70_000n);
  });
});
