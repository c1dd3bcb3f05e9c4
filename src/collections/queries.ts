// Reading collections: one by its gateway_reference (a merchant sees only its own), one by its
// merchant_reference, a filtered page newest first with its exact count (counts.ts), and the ledger
// postings of a page of them.
import type { Base } from '../base';
import { sqlFile } from '../db';
import { listPage } from '../db/keyset';
import type { KeyColumn, ListPage, PageRequest } from '../db/keyset';
import type { CollectionRow } from '../domain/collection';
import { AppError } from '../errors';
import type { PostingRow } from '../api-records/collection';
import { collectionWhere, countCollections } from './counts';
import type { CollectionFilters } from './counts';

const POSTINGS_OF_SQL = sqlFile(__dirname, 'postings-of.sql');

const NEWEST_FIRST: KeyColumn[] = [
  { column: 'created_at', type: 'timestamptz' },
  { column: 'id', type: 'bigint' },
];

export class CollectionQueries {
  constructor(private readonly s: Base) {}

  async byMerchantReference(businessId: number, merchantReference: string): Promise<CollectionRow | null> {
    return this.s.db.oneOrNone<CollectionRow>('SELECT * FROM collections WHERE business_id = $1 AND merchant_reference = $2', [
      businessId,
      merchantReference,
    ]);
  }

  /** A merchant sees only its own business's collections: another's is NOT_FOUND. */
  async get(gatewayReference: string, businessId: number | null): Promise<CollectionRow> {
    const row = await this.s.db.oneOrNone<CollectionRow>(
      'SELECT * FROM collections WHERE gateway_reference = $1 AND ($2::int IS NULL OR business_id = $2)',
      [gatewayReference, businessId],
    );
    if (!row) throw new AppError('NOT_FOUND', 'No collection with this gateway_reference');
    return row;
  }

  /** Newest first (created_at, then id for equal times); the count is perf's exact counter (counts.ts). */
  async list(f: CollectionFilters, page: PageRequest): Promise<ListPage<CollectionRow>> {
    const w = collectionWhere(f);
    const q = { sql: `SELECT * FROM collections WHERE ${w.text}`, values: w.values, key: NEWEST_FIRST, direction: 'DESC' as const, count: () => countCollections(this.s.db, f) };
    return listPage<CollectionRow>(this.s.db, q, page);
  }

  /** Ledger postings of one collection, oldest first; the account is the ledger account's kind. */
  /** The postings of these collections, each one's in the order written (one read for a whole page). */
  async postingsOf(collectionIds: bigint[]): Promise<Map<bigint, PostingRow[]>> {
    const found = new Map<bigint, PostingRow[]>(collectionIds.map((id) => [id, []]));
    if (collectionIds.length === 0) return found;
    const rows = await this.s.db.any<PostingRow & { collection_id: bigint }>(POSTINGS_OF_SQL, { ids: collectionIds });
    for (const { collection_id, ...posting } of rows) found.get(collection_id)?.push(posting);
    return found;
  }
}
