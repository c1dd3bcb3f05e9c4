// Proves that collection counts are exact without reading every collection: whole days come from collection_counts and the edge days from the rows, for every filter, after inserts, status changes, deletes and folding; and (EXPLAIN on a seeded table) that the first page, a status-filtered page, the operator's searches and the counts use indexes, never a scan of the table.
import path from 'node:path';
import { pgp } from '../../src/db';
import type { Db } from '../../src/db';
import { collectionCountSql, collectionWhere, countCollections, foldPastCounts, splitDays } from '../../src/collections/counts';
import type { CollectionFilters } from '../../src/collections';
import { createBusiness, moneyServices } from '../helpers/money-fixtures';
import type { ServicesFixture } from '../helpers/money-fixtures';
import { planNodes } from '../helpers/plans';
import type { PlanNode } from '../helpers/plans';
import type { Where } from '../../src/db/filters';

const seedSql = new pgp.QueryFile(path.resolve(__dirname, '..', '..', 'scripts', 'bench', 'seed-collections.sql'), { minify: true, noWarnings: true });
const d = (iso: string) => new Date(iso);

describe('splitDays', () => {
  it('reads whole UTC days from the counts and the partial days at both ends row by row', () => {
    expect(splitDays(d('2026-01-01T10:00:00Z'), d('2026-01-05T07:30:00Z'))).toEqual({
      fromDay: '2026-01-02',
      toDay: '2026-01-05',
      days: true,
      edges: [
        { gte: d('2026-01-01T10:00:00Z'), lt: d('2026-01-02T00:00:00Z') },
        { gte: d('2026-01-05T00:00:00Z'), lte: d('2026-01-05T07:30:00Z') },
      ],
    });
  });

  it('needs no row at the start when from is a midnight, and only the instant itself when to is one', () => {
    expect(splitDays(d('2026-01-01T00:00:00Z'), d('2026-01-03T00:00:00Z'))).toEqual({
      fromDay: '2026-01-01',
      toDay: '2026-01-03',
      days: true,
      edges: [{ gte: d('2026-01-03T00:00:00Z'), lte: d('2026-01-03T00:00:00Z') }],
    });
  });

  it('is unbounded on a side without a filter, and all counts with neither', () => {
    expect(splitDays(d('2026-01-01T12:00:00Z'), undefined)).toEqual({
      fromDay: '2026-01-02', toDay: null, days: true, edges: [{ gte: d('2026-01-01T12:00:00Z'), lt: d('2026-01-02T00:00:00Z') }],
    });
    expect(splitDays(undefined, d('2026-01-01T12:00:00Z'))).toEqual({
      fromDay: null, toDay: '2026-01-01', days: true, edges: [{ gte: d('2026-01-01T00:00:00Z'), lte: d('2026-01-01T12:00:00Z') }],
    });
    expect(splitDays()).toEqual({ fromDay: null, toDay: null, days: true, edges: [] });
  });

  it('counts row by row when no whole day lies inside, and nothing when from is after to', () => {
    expect(splitDays(d('2026-01-01T01:00:00Z'), d('2026-01-01T23:00:00Z'))).toEqual({
      fromDay: null, toDay: null, days: false, edges: [{ gte: d('2026-01-01T01:00:00Z'), lte: d('2026-01-01T23:00:00Z') }],
    });
    expect(splitDays(d('2026-01-03T00:00:00Z'), d('2026-01-02T00:00:00Z'))).toEqual({ fromDay: null, toDay: null, days: false, edges: [] });
  });
});

describe('on a database', () => {
  let fx: ServicesFixture;
  let db: Db;
  let a: number;
  let b: number;
  beforeAll(async () => {
    fx = await moneyServices();
    db = fx.services.db;
    a = (await createBusiness(db)).businessId;
    b = (await createBusiness(db)).businessId;
    // 600 collections of a, one every 2 hours over 50 days; 40 of b, one a day
    await db.none(seedSql, { business_id: a, tag: 'a', count: 600, step: '2 hours', until: '2026-03-01T05:00:00Z' });
    await db.none(seedSql, { business_id: b, tag: 'b', count: 40, step: '1 day', until: '2026-03-01T05:00:00Z' });
  }, 180_000);
  afterAll(() => fx?.close());

  /** The count read the slow way, straight from the rows. */
  async function counted(f: CollectionFilters): Promise<number> {
    const w = collectionWhere(f);
    return (await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM collections WHERE ${w.text}`, w.values)).n;
  }

  const filters = (): CollectionFilters[] => [
    {},
    { business_id: a },
    { business_id: b },
    { business_id: a, status: 'PENDING' },
    { business_id: a, status: 'FAILED', payment_method: 'CARD' },
    { business_id: a, payment_method: 'MOBILE_MONEY', currency: 'UGX' },
    { business_id: a, currency: 'USD' },
    { business_id: a, from: d('2026-02-03T13:17:00Z') },
    { business_id: a, to: d('2026-02-10T00:00:00Z') },
    { business_id: a, from: d('2026-02-01T00:00:00Z'), to: d('2026-02-20T09:59:59.999Z') },
    { business_id: a, status: 'COMPLETED', from: d('2026-02-11T03:00:00Z'), to: d('2026-02-11T21:00:00Z') },
    { business_id: a, from: d('2026-02-11T03:00:00Z'), to: d('2026-02-01T00:00:00Z') },
    { status: 'PENDING', from: d('2026-01-25T12:00:00Z') },
    { business_id: a, merchant_reference: 'a_17' },
    { business_id: b, merchant_reference: 'a_17' },
  ];

  async function expectExact() {
    for (const f of filters()) expect({ f, n: await countCollections(db, f) }).toEqual({ f, n: await counted(f) });
  }

  it('counts exactly what the rows say, for every filter', async () => {
    expect(await counted({ business_id: a })).toBe(600);
    await expectExact();
  });

  it('stays exact after status changes, deletes and new collections', async () => {
    await db.none("UPDATE collections SET status = 'EXPIRED' WHERE business_id = $1 AND status = 'PENDING' AND merchant_reference LIKE 'a_1%'", [a]);
    await db.none("UPDATE collections SET notification_seq = notification_seq + 1 WHERE business_id = $1", [a]);
    await db.none("DELETE FROM collections WHERE business_id = $1 AND merchant_reference LIKE 'b_3%'", [b]);
    await db.none(seedSql, { business_id: a, tag: 'late', count: 30, step: '7 hours', until: '2026-03-01T06:00:00Z' });
    await expectExact();
  });

  it('folds the slots of past days into one row each and stays exact', async () => {
    await db.none('UPDATE collection_counts SET slot = (slot + 1) % 16 WHERE day = $1::date', ['2026-02-15']);
    const rows = async () => (await db.one('SELECT count(*)::int AS n FROM collection_counts WHERE day < $1::date AND slot <> 0', ['2026-02-28'])).n;
    expect(await rows()).toBeGreaterThan(0);
    expect(await foldPastCounts(db, d('2026-02-28T10:00:00Z'))).toBeGreaterThan(0);
    expect(await rows()).toBe(0);
    expect(await foldPastCounts(db, d('2026-02-28T10:00:00Z'))).toBe(0);
    await expectExact();
  });

  describe('EXPLAIN on a seeded table', () => {
    beforeAll(async () => {
      // enough rows that a table scan would be a choice the planner weighs, most of them another business's
      const big = (await createBusiness(db)).businessId;
      await db.none(seedSql, { business_id: big, tag: 'bulk', count: 30000, step: '1 minute', until: '2026-03-01T07:00:00Z' });
      await db.none(seedSql, { business_id: a, tag: 'more', count: 3000, step: '10 minutes', until: '2026-03-01T07:00:00Z' });
      await db.none('ANALYZE collections');
      await db.none('ANALYZE collection_counts');
    }, 120_000);

    const nodes = (sql: Where) => planNodes(db, sql.text, sql.values);
    const onCollections = (ns: PlanNode[]) => ns.filter((n) => n['Relation Name'] === 'collections');
    const page = (f: CollectionFilters): Where => {
      const w = collectionWhere(f);
      return { text: `SELECT * FROM collections WHERE ${w.text} ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 0`, values: w.values };
    };

    it('reads the first page of a business through its newest-first index', async () => {
      const used = onCollections(await nodes(page({ business_id: a })));
      expect(used.map((n) => [n['Node Type'], n['Index Name']])).toEqual([['Index Scan', 'collections_business_newest']]);
    });

    it('reads a status-filtered page through the business-and-status index', async () => {
      const used = onCollections(await nodes(page({ business_id: a, status: 'FAILED' })));
      expect(used.map((n) => [n['Node Type'], n['Index Name']])).toEqual([['Index Scan', 'collections_business_status_newest']]);
    });

    it('counts a business, or a status of it, from collection_counts alone', async () => {
      for (const f of [{ business_id: a }, { business_id: a, status: 'FAILED' as const }]) {
        const ns = await nodes(collectionCountSql(f));
        expect(onCollections(ns)).toEqual([]);
        expect(ns.some((n) => n['Relation Name'] === 'collection_counts')).toBe(true);
      }
    });

    it("finds the operator's searches (customer number, gateway or merchant reference, any business) and counts them through an index", async () => {
      // customers' numbers on the seeded rows: 3000 numbers, about eleven collections each
      await db.none("UPDATE collections SET account_number = '2567' || lpad((id % 3000)::text, 8, '0') WHERE account_number IS NULL");
      await db.none('ANALYZE collections');
      const searches: [CollectionFilters, string][] = [
        [{ account_number: '256700000042' }, 'collections_account_newest'],
        [{ merchant_reference: 'bulk_77' }, 'collections_reference_newest'],
        [{ gateway_reference: 'gw_more_12' }, 'collections_gateway_reference_key'],
      ];
      for (const [f, index] of searches) {
        const ns = await nodes(page({ ...f, status: 'COMPLETED', from: d('2026-01-01T00:00:00Z') }));
        // an index scan, or a bitmap scan of the index (whose node names the index, its parent the table)
        expect({ f, indexes: ns.map((n) => n['Index Name']).filter(Boolean), scan: ns.some((n) => n['Node Type'] === 'Seq Scan') }).toEqual({ f, indexes: [index], scan: false });
        const counted = await nodes(collectionCountSql(f));
        expect({ f, scan: counted.some((n) => n['Node Type'] === 'Seq Scan') }).toEqual({ f, scan: false });
      }
    });

    it('counts the edge days of a date range through an index, never a table scan', async () => {
      const ns = await nodes(collectionCountSql({ business_id: a, status: 'COMPLETED', from: d('2026-02-20T10:30:00Z'), to: d('2026-02-27T16:00:00Z') }));
      const used = onCollections(ns);
      expect(used.length).toBe(2);
      for (const n of used) expect(n['Node Type']).toMatch(/^(Index Only Scan|Index Scan|Bitmap Heap Scan)$/);
      expect(ns.some((n) => n['Node Type'] === 'Seq Scan')).toBe(false);
    });
  });
});
