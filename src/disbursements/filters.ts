// A disbursement list, shared by the merchant's list (GET /v1/disbursements) and the dashboard's
// (GET /v1/admin/disbursements): its filters as one WHERE clause over a disbursement `d`, and the page.
import type { Db } from '../db';
import { where } from '../db/filters';
import type { FilterTable, Where } from '../db/filters';
import { listPage } from '../db/keyset';
import type { KeyColumn, ListPage, PageRequest } from '../db/keyset';
import type { DisbursementStatus } from '../domain/disbursement';
import type { DisbursementRow } from './record';

export interface DisbursementFilters {
  status?: DisbursementStatus;
  currency?: string;
  merchant_reference?: string;
  /** created at, both included */
  from?: Date;
  to?: Date;
  /** one business's disbursements (always set for a merchant; an operator may leave it out) */
  business_id?: number;
}

/** The filters over `disbursements d` (src/db/filters.ts): only the conditions given. */
const DISBURSEMENT_FILTERS: FilterTable<DisbursementFilters> = [
  { field: 'business_id', column: 'd.business_id', operator: '=' },
  { field: 'status', column: 'd.status', operator: '=' },
  { field: 'currency', column: 'd.currency', operator: '=' },
  { field: 'merchant_reference', column: 'd.merchant_reference', operator: '=' },
  { field: 'from', column: 'd.created_at', operator: '>=' },
  { field: 'to', column: 'd.created_at', operator: '<=' },
];

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
