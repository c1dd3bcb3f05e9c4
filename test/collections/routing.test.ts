// Proves round-robin routing over many requests, with the turn kept in the database so two service instances on one
// database take turns too; and that the decision is recorded and shown to the operator.
import { openPostgres } from '../../src/db';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import { createRealDatabase, SHARED_PG_URL } from '../helpers/db';
import { needsRealServer } from '../helpers/requires';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const threeMids = [
  { name: 'a', payment_method: 'MOBILE_MONEY', currency: 'UGX', processing_rank: 1 },
  { name: 'b', payment_method: 'MOBILE_MONEY', currency: 'UGX', processing_rank: 1 },
  { name: 'c', payment_method: 'MOBILE_MONEY', currency: 'UGX', processing_rank: 1 },
  { name: 'backup', payment_method: 'MOBILE_MONEY', currency: 'UGX', processing_rank: 2 },
  { name: 'off', payment_method: 'MOBILE_MONEY', currency: 'UGX', processing_rank: 1, active: false },
];

describe('routing on one service', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('takes turns among equal ranks, never the inactive or the lower rank, and records why', async () => {
    const m = await setupMerchant(svc, { mids: threeMids });
    const chosen: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '25670000' + String(1000 + i) }));
      const view = await svc.admin.get(`/v1/admin/collections/${res.body.data.gateway_reference}`);
      chosen.push(view.body.data.routing.mid_id);
    }
    const { a, b, c, backup, off } = m.midIds;
    expect(chosen).toEqual([a, b, c, a, b, c, a, b, c, a, b, c]);
    const view = await svc.admin.get('/v1/admin/collections?per_page=1');
    const candidates = view.body.data[0].routing.candidates;
    expect(candidates.find((x: { mid_id: number }) => x.mid_id === off).reason).toBe('inactive');
    expect(candidates.find((x: { mid_id: number }) => x.mid_id === backup).reason).toBe('lower_priority');
    expect(candidates.filter((x: { chosen: boolean }) => x.chosen)).toHaveLength(1);
  });

  it('falls back to the next rank when the first rank is switched off', async () => {
    const m = await setupMerchant(svc, { mids: threeMids });
    for (const name of ['a', 'b', 'c']) await svc.admin.patch(`/v1/admin/mids/${m.midIds[name]}`, { active: false });
    const res = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700009999' }));
    const view = await svc.admin.get(`/v1/admin/collections/${res.body.data.gateway_reference}`);
    expect(view.body.data.routing).toMatchObject({ mid_id: m.midIds.backup, processing_rank: 2 });
  });
});

needsRealServer().it('two service instances on one database take turns together (real PostgreSQL)', async () => {
  const created = await createRealDatabase(SHARED_PG_URL);
  const env = { SANDBOX_MM_DELAY_MS: '3600000', JWT_SECRET: 'shared-jwt-secret-for-two-instances-0123456789', MASTER_KEY: Buffer.alloc(32, 7).toString('base64') };
  const one = await startTestService({ env, database: await openPostgres(created.url) });
  const two = await startTestService({ env, database: await openPostgres(created.url) });
  try {
    const m = await setupMerchant(one, { mids: threeMids.slice(0, 3) });
    const clients = [m.client, two.merchant(m.client.auth()!)];
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => clients[i % 2].post('/v1/collections/request-to-pay', mobileMoney({ account_number: '25670001' + String(1000 + i) }))),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const counts = await one.database.db.any('SELECT mid_id, count(*)::int AS n FROM collections GROUP BY mid_id ORDER BY mid_id');
    expect(counts.map((r) => r.n)).toEqual([10, 10, 10]);
  } finally {
    await one.close();
    await two.close();
    await one.database.close();
    await two.database.close();
    await created.drop();
  }
});
