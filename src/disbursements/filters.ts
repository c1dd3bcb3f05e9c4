// A disbursement list, shared by the merchant's list (GET /v1/disbursements) and the dashboard's
// (GET /v1/admin/disbursements): its filters as one WHERE clause over a disbursement `d`, and the page.
import type { Db } from '../db';
import { movementFilters, where } from '../db/filters';
import type { FilterTable, MovementFilters, Where } from '../db/filters';
import { listPage } from '../db/keyset';
import type { KeyColumn, ListPage, PageRequest } from '../db/keyset';
import type { DisbursementStatus } from '../domain/disbursement';
import type { DisbursementRow } from '../api-records/disbursement';

export interface DisbursementFilters extends MovementFilters {
  status?: DisbursementStatus;
}

/** The filters over `disbursements d` (src/db/filters.ts): only the conditions given; a money movement's, no others. */
const DISBURSEMENT_FILTERS: FilterTable<DisbursementFilters> = movementFilters('d.');

/** The conditions of `f` over `disbursements d`, numbered after `values`. */
export function disbursementWhere(f: DisbursementFilters, values: unknown[] = []): Where {
  return where(DISBURSEMENT_FILTERS, f, values);
}

const NEWEST_FIRST: KeyColumn[] = [
  { column: 'created_at', type: 'timestamptz' },
  { column: 'id', type: 'bigint' },
];

/** A page of the disbursements matching `f`, newest first. */
export function listDisbursements(db: Db, f: DisbursementFilters, page: PageRequest): Promise<ListPage<DisbursementRow>> {
  const w = disbursementWhere(f);
  return listPage<DisbursementRow>(db, { sql: `SELECT d.* FROM disbursements d WHERE ${w.text}`, values: w.values, key: NEWEST_FIRST, direction: 'DESC' }, page);
}
