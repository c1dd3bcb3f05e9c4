// The filters of a business's refund list (GET /v1/refunds), shared by the list and the refunds export
// (docs/reports.md): one WHERE clause over a refund `r` joined to its collection `c`.
import { pgp } from '../db';
import type { RefundStatus } from '../domain/refund';

export interface RefundFilters {
  status?: RefundStatus;
  currency?: string;
  merchant_reference?: string;
  collection_gateway_reference?: string;
  /** created at, both included */
  from?: Date;
  to?: Date;
  /** one business's refunds (always set for a merchant; an operator may leave it out) */
  business_id?: number;
  /** only the refunds held for an operator's decision (refunds_held_newest); false or absent: every refund */
  held?: boolean;
}

/**
 * The filters as SQL over `refunds r JOIN collections c`, values formatted in; TRUE when there are none.
 * Formatted, as a collection list's filters are (src/collections/counts.ts says why): only the conditions
 * given, so the planner picks the index each combination needs.
 */
export function refundFilterWhere(f: RefundFilters): string {
  const where: string[] = [];
  const add = (clause: string, v: unknown) => v !== undefined && where.push(pgp.as.format(clause, [v]));
  add('r.business_id = $1', f.business_id);
  add('r.status = $1', f.status);
  add('r.currency = $1', f.currency);
  add('r.merchant_reference = $1', f.merchant_reference);
  add('c.gateway_reference = $1', f.collection_gateway_reference);
  add('r.created_at >= $1', f.from);
  add('r.created_at <= $1', f.to);
  // the condition of refunds_held_newest word for word, so the planner may read that partial index
  if (f.held) where.push("r.send_state = 'held'");
  return where.length ? where.join(' AND ') : 'TRUE';
}
