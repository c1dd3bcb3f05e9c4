// Proves the disbursement indexes of migration 0183: it applies (both indexes there, the plain index on a
// notification's (disbursement_id, sequence) gone); a second notification of a disbursement with a sequence
// it already has is refused and leaves the first as it was; and (EXPLAIN on a seeded table, real server) the
// operator's list across every business and the disbursements export read through disbursements_newest,
// on the first page and after a cursor, never sorting the table.
import path from 'node:path';
import { pgp } from '../../src/db';
import type { Db } from '../../src/db';
import type { PageRequest } from '../../src/db/keyset';
import { AdminDisbursementService } from '../../src/disbursements/admin';
import { createBusiness, moneyServices, realMoneyServices } from '../helpers/money-fixtures';
import type { ServicesFixture } from '../helpers/money-fixtures';
import { SHARED_PG_URL } from '../helpers/db';
import { indexDefinitions, planNodes } from '../helpers/plans';
import type { PlanNode } from '../helpers/plans';
import { needsRealServer } from '../helpers/requires';

/** A statement of the service's own, as its wing loads it (loaded a second time here: no duplicate warning). */
const statement = (...parts: string[]) => new pgp.QueryFile(path.resolve(__dirname, '..', '..', 'src', ...parts), { minify: true, noWarnings: true });

/** `count` COMPLETED disbursements of a new business, one a minute back from 2026-03-01. */
async function seedDisbursements(db: Db, count: number): Promise<number> {
  const { businessId, walletIds } = await createBusiness(db);
  await db.none(
    `INSERT INTO disbursements (business_id, wallet_id, gateway_reference, merchant_reference, request_hash, amount_minor, fee_minor,
       currency, payment_method, account_number, account_name, status, message, service_type, reference, callback_token, send_state,
       created_at, updated_at)
     SELECT $1, $2, 'DBIX' || $1 || '-' || i, 'MR-' || i, 'h', 100000, 0, 'UGX', 'MOBILE_MONEY', '256700000001', 'Payee',
       'COMPLETED', 'Disbursement completed', 'sandbox', 'ref-' || $1 || '-' || i, 'cb-' || $1 || '-' || i, 'settled',
       timestamptz '2026-03-01T00:00:00Z' - i * interval '1 minute', timestamptz '2026-03-01T00:00:00Z' - i * interval '1 minute'
     FROM generate_series(1, $3) AS i`,
    [businessId, walletIds.UGX, count],
  );
  return businessId;
}

describe('on this run’s database', () => {
  let f: ServicesFixture;
  let db: Db;
  beforeAll(async () => {
    f = await moneyServices();
    db = f.database.db;
  }, 120_000);
  afterAll(async () => {
    await f?.close();
  });

  it('has the operator list’s index and one unique index on a disbursement notification’s sequence', async () => {
    expect(await indexDefinitions(db, ['disbursements', 'notifications'], ['(created_at DESC, id DESC)', '(disbursement_id, sequence)'])).toEqual([
      ['disbursements_newest', 'CREATE INDEX disbursements_newest ON disbursements USING btree (created_at DESC, id DESC)'],
      ['notifications_disbursement_sequence', 'CREATE UNIQUE INDEX notifications_disbursement_sequence ON notifications USING btree (disbursement_id, sequence) WHERE (disbursement_id IS NOT NULL)'],
    ]);
  });

  it('refuses a second notification of a disbursement with a sequence it has, and keeps the first', async () => {
    const businessId = await seedDisbursements(db, 1);
    const { id } = await db.one<{ id: bigint }>('SELECT id FROM disbursements WHERE business_id = $1', [businessId]);
    const notification = statement('notifications', 'sql', 'webhook.sql');
    const now = new Date('2026-03-01T00:00:00Z');
    const values = (eventId: string, sequence: number, body: string) => ({
      collectionId: null, refundId: null, disbursementId: id, disputeId: null, apiTokenId: null, eventId, sequence, status: 'COMPLETED', body, firstAttemptAt: now, now, traceParent: null,
    });
    await db.none(notification, values('evt_idx_1', 1, '{"first":true}'));
    await db.none(notification, values('evt_idx_2', 2, '{"second":true}'));
    const rows = () => db.any('SELECT event_id, sequence, body FROM notifications WHERE disbursement_id = $1 ORDER BY id', [id]);
    const before = await rows();
    await expect(db.none(notification, values('evt_idx_3', 1, '{"again":true}'))).rejects.toMatchObject({
      code: '23505', constraint: 'notifications_disbursement_sequence',
    });
    expect(await rows()).toEqual(before);
    expect(before.map((r) => r.sequence)).toEqual([1, 2]);
  });
});

needsRealServer().describe('EXPLAIN on a seeded table (real PostgreSQL)', () => {
  let f: ServicesFixture;
  let db: Db;
  beforeAll(async () => {
    f = await realMoneyServices(SHARED_PG_URL, 2);
    db = f.database.db;
    // enough rows, of several businesses, that sorting the table is a choice the planner weighs
    for (const count of [12000, 6000, 2000]) await seedDisbursements(db, count);
    await db.none('ANALYZE disbursements');
  }, 120_000);
  afterAll(async () => {
    await f?.close();
  });

  const nodes = (sql: string, values: unknown[] = []) => planNodes(db, sql, values);
  const onDisbursements = (ns: PlanNode[]) => ns.filter((n) => n['Relation Name'] === 'disbursements').map((n) => [n['Node Type'], n['Index Name']]);

  /** The page query the operator's list runs (as the service builds it), caught on its way to the database. */
  async function listQuery(page: PageRequest): Promise<{ sql: string; values: unknown[]; nextCursor: string | null }> {
    const seen: { sql: string; values: unknown[] }[] = [];
    const watched = new Proxy(db, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== 'any') return typeof value === 'function' ? value.bind(target) : value;
        return (sql: string, values: unknown[]) => {
          seen.push({ sql, values });
          return target.any(sql, values);
        };
      },
    });
    const service = new AdminDisbursementService({ db: () => watched, namesOf: async () => new Map() });
    const found = await service.list({}, page);
    const query = seen.find((q) => /\bpage_key\b/.test(q.sql));
    if (!query) throw new Error('the list ran no page query');
    return { ...query, nextCursor: found.nextCursor };
  }

  it('reads the operator’s first page and the page after a cursor through disbursements_newest', async () => {
    const first = await listQuery({ limit: 20, offset: 0, cursor: null });
    expect(first.sql).toMatch(/ORDER BY list\.created_at DESC, list\.id DESC/);
    expect(onDisbursements(await nodes(first.sql, first.values))).toEqual([['Index Scan', 'disbursements_newest']]);
    const next = await listQuery({ limit: 20, offset: 0, cursor: first.nextCursor });
    expect(next.values).toHaveLength(2);
    expect(onDisbursements(await nodes(next.sql, next.values))).toEqual([['Index Scan', 'disbursements_newest']]);
  });

  it('reads each batch of the operator’s export through disbursements_newest', async () => {
    const batch = statement('reports', 'sql', 'export-disbursements.sql');
    for (const before of [{ before: 'infinity', before_id: '0' }, { before: '2026-02-25T00:00:00Z', before_id: '5000' }]) {
      const text = pgp.as.format(batch, { where: 'TRUE', ...before, limit: 2000 });
      expect(onDisbursements(await nodes(text))).toEqual([['Index Scan', 'disbursements_newest']]);
    }
  });
});
