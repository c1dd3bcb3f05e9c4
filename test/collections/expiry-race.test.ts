// Proves that a provider report stored before a collection's deadline wins over expiry however far behind the report worker is, and that expiry still expires what no timely report answers.
import { createRealDatabase, SHARED_PG_URL } from '../helpers/db';
import { openPostgres } from '../../src/db';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const TTL_SECONDS = 60;
const SUCCESS = '256777000001';
const FAILURE = '256777000003';
const SILENT = '256700000123';

/** A service whose workers never run on their own (a worker as far behind as can be) and whose clock the test moves. */
async function stalledService(database?: Awaited<ReturnType<typeof openPostgres>>) {
  let clock = Date.now();
  const svc = await startTestService({
    env: { PENDING_TTL_SECONDS: String(TTL_SECONDS), SANDBOX_MM_DELAY_MS: '1000' },
    now: () => new Date(clock),
    workers: false,
    database,
  });
  return { svc, advance: (ms: number) => (clock += ms) };
}

async function collect(m: MerchantSetup, accountNumber: string) {
  const res = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: accountNumber }));
  expect(res.status).toBe(200);
  return res.body.data as { id: string; gateway_reference: string };
}

function stateOf(svc: TestService, id: string) {
  return svc.services.db.one<{ status: string; journals: number; unprocessed: number; statuses: string[] }>(
    `SELECT c.status,
       (SELECT count(*)::int FROM journals j WHERE j.collection_id = c.id) AS journals,
       (SELECT count(*)::int FROM provider_events e WHERE e.collection_id = c.id AND e.processed_at IS NULL) AS unprocessed,
       ARRAY(SELECT n.transaction_status FROM notifications n WHERE n.collection_id = c.id ORDER BY n.sequence) AS statuses
     FROM collections c WHERE c.id = $1`,
    [id],
  );
}

describe('expiry with the report worker behind', () => {
  let svc: TestService;
  let advance: (ms: number) => number;
  let m: MerchantSetup;

  beforeAll(async () => {
    ({ svc, advance } = await stalledService());
    m = await setupMerchant(svc);
  }, 60_000);
  afterAll(() => svc.close());

  it('applies a stored success instead of expiring, credits once and notifies COMPLETED only', async () => {
    const many = [];
    for (let i = 0; i < 12; i++) many.push(await collect(m, SUCCESS));
    advance((TTL_SECONDS + 600) * 1000);
    let moved = 0;
    for (let n = await svc.services.collections.expireDue(); n > 0; n = await svc.services.collections.expireDue()) moved += n;
    expect(moved).toBeGreaterThanOrEqual(many.length);
    for (const c of many) {
      expect(await stateOf(svc, c.id)).toEqual({ status: 'COMPLETED', journals: 1, unprocessed: 0, statuses: ['COMPLETED'] });
    }
    // the worker catching up later changes nothing
    await svc.services.collections.processProviderEvents();
    for (const c of many) expect((await stateOf(svc, c.id)).journals).toBe(1);
  }, 120_000);

  it('applies a stored failure instead of expiring', async () => {
    const c = await collect(m, FAILURE);
    advance((TTL_SECONDS + 1) * 1000);
    await svc.services.collections.expireDue();
    expect(await stateOf(svc, c.id)).toEqual({ status: 'FAILED', journals: 0, unprocessed: 0, statuses: ['FAILED'] });
  });

  it('expires a collection that no report answered, and one whose report is due only after its deadline', async () => {
    const silent = await collect(m, SILENT);
    const late = await collect(m, SILENT);
    await svc.services.db.none(
      "INSERT INTO provider_events (collection_id, outcome, due_at) SELECT id, 'COMPLETED', expires_at + interval '1 second' FROM collections WHERE id = $1",
      [late.id],
    );
    advance((TTL_SECONDS + 1) * 1000);
    await svc.services.collections.expireDue();
    expect(await stateOf(svc, silent.id)).toEqual({ status: 'EXPIRED', journals: 0, unprocessed: 0, statuses: ['EXPIRED'] });
    expect(await stateOf(svc, late.id)).toEqual({ status: 'EXPIRED', journals: 0, unprocessed: 1, statuses: ['EXPIRED'] });
    // the late report, applied afterwards, does not credit an EXPIRED collection
    advance(2000);
    await svc.services.collections.processProviderEvents();
    expect(await stateOf(svc, late.id)).toEqual({ status: 'EXPIRED', journals: 0, unprocessed: 0, statuses: ['EXPIRED'] });
  });

  it('leaves a collection PENDING before its deadline even when its report is due', async () => {
    const c = await collect(m, SUCCESS);
    advance(2000);
    expect(await svc.services.collections.expireDue()).toBe(0);
    expect((await stateOf(svc, c.id)).status).toBe('PENDING');
    await svc.services.collections.processProviderEvents();
    expect(await stateOf(svc, c.id)).toEqual({ status: 'COMPLETED', journals: 1, unprocessed: 0, statuses: ['COMPLETED'] });
  });
});

// Two sessions at once need the real server (embedded PostgreSQL has one session).
const onRealServer = process.env.TEST_DATABASE_URL || process.env.CI === 'true' ? describe : describe.skip;

onRealServer('expiry while the report worker holds the report (real PostgreSQL; set TEST_DATABASE_URL to run)', () => {
  it('does not expire the collection: the worker applies the report once expiry lets go', async () => {
    const created = await createRealDatabase(SHARED_PG_URL);
    const database = await openPostgres(created.url);
    const { svc, advance } = await stalledService(database);
    try {
      const m = await setupMerchant(svc);
      const c = await collect(m, SUCCESS);
      advance((TTL_SECONDS + 1) * 1000);
      // another process's report worker, mid-batch: the report row locked, the collection not yet
      await database.db.tx(async (worker) => {
        await worker.one('SELECT id FROM provider_events WHERE collection_id = $1 FOR UPDATE', [c.id]);
        expect(await svc.services.collections.expireDue()).toBe(0);
      });
      expect((await stateOf(svc, c.id)).status).toBe('PENDING');
      await svc.services.collections.processProviderEvents();
      expect(await stateOf(svc, c.id)).toEqual({ status: 'COMPLETED', journals: 1, unprocessed: 0, statuses: ['COMPLETED'] });
    } finally {
      await svc.close();
      await database.close();
      await created.drop();
    }
  }, 60_000);
});
