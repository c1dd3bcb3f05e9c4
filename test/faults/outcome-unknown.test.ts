// Proves that an answer lost with the database connection is never reported as "nothing was changed":
// through a proxy that drops the connection at a chosen moment, a request-to-pay whose statement ran
// (its answer lost) is OUTCOME_UNKNOWN and its retry with the same merchant_reference answers the one
// collection; one whose statement was dropped on the way is OUTCOME_UNKNOWN as well (from the service's
// side the two look the same); one that could not connect at all is SERVICE_UNAVAILABLE and made nothing; an
// operator change whose COMMIT was sent is OUTCOME_UNKNOWN; a write on a read-only server (a demoted or
// not yet promoted node, SQLSTATE 25006) is an outage that changed nothing, not a 500, and the pooled
// connection that met it is thrown away.
import { isDatabaseUnavailable, openPostgres, pgp } from '../../src/db';
import type { Database, Db } from '../../src/db';
import { createRealDatabase, SHARED_PG_URL } from '../helpers/db';
import { eventually, mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startCuttingProxy } from '../helpers/cutting-proxy';
import type { CuttingProxy } from '../helpers/cutting-proxy';
import { needsRealServer } from '../helpers/requires';
import { startTestService } from '../helpers/service';
import type { ApiResponse, TestService } from '../helpers/service';

const SILENT = '256700000123';
// The request-to-pay write is a prepared statement: its text crosses the wire once per connection, its
// name (in the Parse and in every Bind) each time it runs.
const INSERT_COLLECTION = 'collections/create.sql';

function expect503(res: ApiResponse, code: 'OUTCOME_UNKNOWN' | 'SERVICE_UNAVAILABLE') {
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

needsRealServer().describe('an answer lost with the database connection (real PostgreSQL through a cutting proxy)', () => {
  let created: { url: string; drop(): Promise<void> };
  let proxy: CuttingProxy;
  let database: Database;
  let direct: Db;
  let svc: TestService;
  let m: MerchantSetup;

  const rowsOf = async (reference: string) =>
    direct.any<{ gateway_reference: string }>('SELECT gateway_reference FROM collections WHERE business_id = $1 AND merchant_reference = $2', [
      m.businessId,
      reference,
    ]);
  /**
   * Every session of the test database but the checker's own ends (as a failover ends them), and the
   * service's pool has noticed: a request handed a pooled connection whose server is already gone would
   * send its write into it, and could not know that it never ran.
   */
  const endSessions = async () => {
    const ended = await direct.map(
      'SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      [],
      (r: { pid: number }) => r.pid,
    );
    const pooled = () => ((database.db.$pool as unknown as { _clients: { processID: number | null }[] })._clients ?? []).map((c) => c.processID);
    await eventually(async () => (pooled().some((pid) => pid !== null && ended.includes(pid)) ? undefined : true), 10_000, 'the pool to drop the ended sessions');
  };

  beforeAll(async () => {
    created = await createRealDatabase(SHARED_PG_URL);
    const target = new URL(created.url);
    proxy = await startCuttingProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(created.url);
    viaProxy.port = String(proxy.port);
    database = await openPostgres(viaProxy.toString());
    direct = pgp({ connectionString: created.url, max: 1 });
    // no workers: the only statements through the proxy are the requests' own
    svc = await startTestService({ database, workers: false, env: { SANDBOX_MM_DELAY_MS: '600000' } });
    m = await setupMerchant(svc);
  }, 60_000);

  afterAll(async () => {
    await svc?.close();
    await database?.close();
    await proxy?.close();
    await direct?.$pool.end();
    await created?.drop();
  });

  it('a request-to-pay whose answer was lost is OUTCOME_UNKNOWN, and its retry answers the one collection', async () => {
    const body = mobileMoney({ account_number: SILENT });
    const cut = proxy.cut(INSERT_COLLECTION, 'after-answer');
    const lost = await m.client.post('/v1/collections/request-to-pay', body);
    await cut;
    expect503(lost, 'OUTCOME_UNKNOWN');
    expect(lost.body.message).toMatch(/same merchant_reference/);
    const stored = await rowsOf(body.merchant_reference);
    expect(stored).toHaveLength(1);

    const retried = await m.client.post('/v1/collections/request-to-pay', body);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body.data.gateway_reference).toBe(stored[0].gateway_reference);
    expect(await rowsOf(body.merchant_reference)).toHaveLength(1);
  });

  it('a request-to-pay whose statement was lost on the way is OUTCOME_UNKNOWN too (the service cannot tell), and its retry makes it once', async () => {
    const body = mobileMoney({ account_number: SILENT });
    const cut = proxy.cut(INSERT_COLLECTION, 'before-sending');
    const lost = await m.client.post('/v1/collections/request-to-pay', body);
    await cut;
    expect503(lost, 'OUTCOME_UNKNOWN');
    expect(await rowsOf(body.merchant_reference)).toHaveLength(0);

    const retried = await m.client.post('/v1/collections/request-to-pay', body);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await rowsOf(body.merchant_reference)).toHaveLength(1);
  });

  it('a request-to-pay that could not reach the database at all is SERVICE_UNAVAILABLE and made nothing', async () => {
    const body = mobileMoney({ account_number: SILENT });
    proxy.refuse(true);
    try {
      await endSessions();
      const refused = await m.client.post('/v1/collections/request-to-pay', body);
      expect503(refused, 'SERVICE_UNAVAILABLE');
      expect(await rowsOf(body.merchant_reference)).toHaveLength(0);
    } finally {
      proxy.refuse(false);
    }
    const retried = await m.client.post('/v1/collections/request-to-pay', body);
    expect(retried.status).toBe(200);
    expect(await rowsOf(body.merchant_reference)).toHaveLength(1);
  });

  it('an operator change whose COMMIT was sent and whose answer was lost is OUTCOME_UNKNOWN; it did commit', async () => {
    const name = `Lost answer ${process.pid}`;
    const cut = proxy.cut('COMMIT', 'after-answer');
    const lost = await svc.admin.post('/v1/admin/businesses', { name, default_currency: 'UGX', fee_bearer: 'merchant', fees: [] });
    await cut;
    expect503(lost, 'OUTCOME_UNKNOWN');
    expect(await direct.any('SELECT id FROM businesses WHERE name = $1', [name])).toHaveLength(1);
  });

  it('a read whose connection is lost is SERVICE_UNAVAILABLE: reading changes nothing', async () => {
    const cut = proxy.cut('FROM collections', 'after-answer');
    const lost = await m.client.get('/v1/collections?per_page=1');
    await cut;
    expect503(lost, 'SERVICE_UNAVAILABLE');
  });

  it('a write on a read-only server is SERVICE_UNAVAILABLE (never a 500) and changes nothing; writes resume once it is primary', async () => {
    const { db } = await direct.one<{ db: string }>('SELECT current_database() AS db');
    const body = mobileMoney({ account_number: SILENT });
    try {
      await direct.none('ALTER DATABASE $1:name SET default_transaction_read_only = on', [db]);
      await endSessions();
      const refused = await m.client.post('/v1/collections/request-to-pay', body);
      expect503(refused, 'SERVICE_UNAVAILABLE');
      expect(await rowsOf(body.merchant_reference)).toHaveLength(0);
    } finally {
      await direct.none('ALTER DATABASE $1:name RESET default_transaction_read_only', [db]);
      await endSessions();
    }
    const accepted = await m.client.post('/v1/collections/request-to-pay', body);
    expect(accepted.status).toBe(200);
    expect(await rowsOf(body.merchant_reference)).toHaveLength(1);
  });

  it('a pooled connection that met a read-only server (25006) is discarded, not handed out again', async () => {
    const pool = pgp({ connectionString: created.url, max: 1 });
    try {
      const first = await pool.one<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await pool.none('SET default_transaction_read_only = on');
      const err = await pool.none('CREATE TEMP TABLE refused (x int)').then(
        () => null,
        (e: unknown) => e,
      );
      expect((err as { code?: string }).code).toBe('25006');
      expect(isDatabaseUnavailable(err)).toBe(true);
      const next = await pool.one<{ pid: number; ro: string }>('SELECT pg_backend_pid() AS pid, current_setting($1) AS ro', ['default_transaction_read_only']);
      expect(next.pid).not.toBe(first.pid);
      expect(next.ro).toBe('off');
    } finally {
      await pool.$pool.end();
    }
  });
});
