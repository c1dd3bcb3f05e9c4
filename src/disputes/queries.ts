// Reading disputes as the APIs show them: a business's own (the merchant API) and every business's (the
// operator's list, with the business and the MID). One filter table for both (src/db/filters.ts).
import { sqlFile } from '../db';
import type { Db } from '../db';
import { where } from '../db/filters';
import type { FilterTable } from '../db/filters';
import { listPage } from '../db/keyset';
import type { KeyColumn, ListPage, PageRequest } from '../db/keyset';
import type { DisputeStatus } from '../domain/dispute';
import type { DisputeView } from '../api-records/dispute';
import { AppError } from '../errors';

/** The list's order: newest first (disputes_business_newest). */
const NEWEST_FIRST: KeyColumn[] = [
  { column: 'created_at', type: 'timestamptz' },
  { column: 'id', type: 'bigint' },
];

const DISPUTE_VIEW = sqlFile(__dirname, 'dispute-view.sql');

export interface DisputeFilters {
  /** one business's (always set for a merchant; an operator may leave it out) */
  business_id?: number;
  status?: DisputeStatus;
  mid_id?: number;
  /** deadline strictly before */
  deadline_before?: Date;
}

const DISPUTE_FILTERS: FilterTable<DisputeFilters> = [
  { field: 'business_id', column: 'd.business_id', operator: '=' },
  { field: 'status', column: 'd.status', operator: '=' },
  { field: 'mid_id', column: 'd.mid_id', operator: '=' },
  { field: 'deadline_before', column: 'd.deadline_at', operator: '<' },
];

/** A page of disputes, newest first, of the filters given. */
export function listDisputes(db: Db, f: DisputeFilters, page: PageRequest): Promise<ListPage<DisputeView>> {
  const w = where(DISPUTE_FILTERS, f);
  const sql = `SELECT d.id, d.created_at, d.gateway_reference, c.gateway_reference AS collection_gateway_reference, d.stage, d.status, d.reason,
      d.amount_minor, d.currency, d.held_minor, d.debited_minor, d.refunded_minor, w.currency AS account_currency, d.deadline_at, d.resolution, d.opened_at,
      d.closed_at, d.business_id, b.name AS business_name, d.mid_id
    FROM disputes d JOIN collections c ON c.id = d.collection_id JOIN wallets w ON w.id = d.wallet_id JOIN businesses b ON b.id = d.business_id
    WHERE ${w.text}`;
  return listPage<DisputeView>(db, { sql, values: w.values, key: NEWEST_FIRST, direction: 'DESC' }, page);
}

/** One dispute as the APIs show it, of `businessId` when given (null: any business's); NOT_FOUND for none. */
export async function getDispute(db: Db, businessId: number | null, gatewayReference: string): Promise<DisputeView> {
  const row = await db.oneOrNone<DisputeView>(DISPUTE_VIEW, { businessId, gatewayReference });
  if (!row) throw new AppError('NOT_FOUND', businessId === null ? 'No dispute has this gateway_reference' : 'No dispute of yours has this gateway_reference');
  return row;
}
