// The filters of a disbursement list, shared by the merchant's list (GET /v1/disbursements) and the
// dashboard's (GET /v1/admin/disbursements): one WHERE clause over a disbursement `d`.
import { pgp } from '../db';
import type { DisbursementStatus } from '../domain/disbursement';

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

/**
 * The filters as SQL over `disbursements d`, values formatted in; TRUE when there are none. Formatted, as
 * the collections' and refunds' are (src/collections/counts.ts says why): only the conditions given.
 */
export function disbursementFilterWhere(f: DisbursementFilters): string {
  const where: string[] = [];
  const add = (clause: string, v: unknown) => v !== undefined && where.push(pgp.as.format(clause, [v]));
  add('d.business_id = $1', f.business_id);
  add('d.status = $1', f.status);
  add('d.currency = $1', f.currency);
  add('d.merchant_reference = $1', f.merchant_reference);
  add('d.created_at >= $1', f.from);
  add('d.created_at <= $1', f.to);
  return where.length ? where.join(' AND ') : 'TRUE';
}
