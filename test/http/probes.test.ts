// Proves /livez answers whatever the database does, /readyz is 200 only when the database answers, every migration
// is applied and the workers run (and the metric the database alert reads follows), and that on shutdown /readyz fails
// first while requests are still served.
import { openPostgres } from '../../src/db';
import type { Database } from '../../src/db';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import { clusterBinariesPresent, PG_BIN, startPrivateCluster } from '../helpers/private-cluster';
import type { PrivateCluster } from '../helpers/private-cluster';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

async function probe(svc: TestService, path: string): Promise<{ status: number; body: unknown; retryAfter: string | null }> {
  const res = await fetch(svc.url + path);
  return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
}

describe('probes of a running service', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc?.close());

  it('/livez and /readyz answer 200 with what they checked; /healthz keeps its answer', async () => {
    expect(await probe(svc, '/livez')).toEqual({ status: 200, body: { status: 'alive' }, retryAfter: null });
    expect(await probe(svc, '/readyz')).toEqual({ status: 200, body: { status: 'ready', database: 'ok', migrations: 'ok', workers: 'ok' }, retryAfter: null });
    expect(await probe(svc, '/healthz')).toEqual({ status: 200, body: { status: 'ok', database: 'ok' }, retryAfter: null });
  });

  it('/readyz is 503 while a migration of this build is not applied, /livez stays 200', async () => {
    const [row] = await svc.database.db.any<{ version: string; applied_at: Date }>('SELECT * FROM schema_migrations ORDER BY version DESC LIMIT 1');
    await svc.database.db.none('DELETE FROM schema_migrations WHERE version = $1', [row.version]);
    try {
      const ready = await probe(svc, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'unavailable', database: 'ok', migrations: 'missing', workers: 'ok' });
      expect(Number(ready.retryAfter)).toBeGreaterThan(0);
      expect((await probe(svc, '/livez')).status).toBe(200);
    } finally {
      await svc.database.db.none('INSERT INTO schema_migrations(version, applied_at) VALUES ($1, $2)', [row.version, row.applied_at]);
    }
    expect((await probe(svc, '/readyz')).status).toBe(200);
  });
});

describe('probes without background workers', () => {
  it('an api-only process reports its workers as not run here and is ready', async () => {
    const svc = await startTestService({ workers: false });
    try {
      expect(await probe(svc, '/readyz')).toEqual({ status: 200, body: { status: 'ready', database: 'ok', migrations: 'ok', workers: 'not run here' }, retryAfter: null });
    } finally {
      await svc.close();
    }
  });
});

describe('probes on shutdown', () => {
  it('fails /readyz first and keeps serving requests for SHUTDOWN_DRAIN_SECONDS, then stops', async () => {
    const svc = await startTestService({ env: { SHUTDOWN_DRAIN_SECONDS: '2' } });
    const m = await setupMerchant(svc);
    const closed = svc.close();
    try {
      const ready = await probe(svc, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'stopping' });
      expect((await probe(svc, '/livez')).status).toBe(200);
      // still serving while the balancer drains us: a payment request is accepted and stored
      const res = await m.client.post('/v1/collections/request-to-pay', mobileMoney());
      expect(res.status).toBe(200);
      const stored = await svc.database.db.oneOrNone('SELECT 1 FROM collections WHERE gateway_reference = $1', [res.body.data.gateway_reference]);
      expect(stored).not.toBeNull();
    } finally {
      await closed;
    }
    await expect(fetch(svc.url + '/livez')).rejects.toThrow();
  });
});

const ci = process.env.CI === 'true';
(clusterBinariesPresent || ci ? describe : describe.skip)(`probes with the database down (private cluster from ${PG_BIN})`, () => {
  let cluster: PrivateCluster;
  let database: Database;
  let svc: TestService;
  beforeAll(async () => {
    cluster = await startPrivateCluster();
    database = await openPostgres(cluster.url);
    svc = await startTestService({ database, env: { METRICS_PORT: '0' } });
  }, 120_000);
  afterAll(async () => {
    await svc?.close();
    await database?.close();
    cluster?.destroy();
  });

  it('/livez stays 200, /readyz and /healthz answer 503 until the database is back', async () => {
    cluster.stop();
    try {
      expect(await probe(svc, '/livez')).toEqual({ status: 200, body: { status: 'alive' }, retryAfter: null });
      const ready = await probe(svc, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'unavailable', database: 'unreachable', migrations: 'unknown', workers: 'ok' });
      expect(Number(ready.retryAfter)).toBeGreaterThan(0);
      expect((await probe(svc, '/healthz')).status).toBe(503);
      // what the PayCollectDatabaseUnavailable alert reads
      const scraped = await (await fetch(svc.metricsUrl!)).text();
      expect(scraped).toMatch(/^paycollect_database_up(\{[^}]*\})? 0$/m);
    } finally {
      cluster.start();
    }
    const deadline = Date.now() + 30_000;
    while ((await probe(svc, '/readyz')).status !== 200) {
      if (Date.now() > deadline) throw new Error('/readyz did not return to 200 after the database came back');
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await (await fetch(svc.metricsUrl!)).text()).toMatch(/^paycollect_database_up(\{[^}]*\})? 1$/m);
  }, 120_000);
});
