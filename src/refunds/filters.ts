// The filters of a business's refund list (GET /v1/refunds), shared by the list and the refunds export
// (docs/reports.md): one WHERE clause over a refund `r` joined to its collection `c`.
import { movementFilters, where } from '../db/filters';
import type { FilterTable, MovementFilters, Where } from '../db/filters';
import type { RefundStatus } from '../domain/refund';

export interface RefundFilters extends MovementFilters {
  status?: RefundStatus;
  collection_gateway_reference?: string;
  /** only the refunds held for an operator's decision (refunds_held_newest); false or absent: every refund */
  held?: boolean;
}

/**
 * The filters over `refunds r JOIN collections c` (src/db/filters.ts): only the conditions given, so the
 * planner picks the index each combination needs.
 */
const REFUND_FILTERS: FilterTable<RefundFilters> = [
  ...movementFilters('r.'),
  { field: 'collection_gateway_reference', column: 'c.gateway_reference', operator: '=' },
  // the condition of refunds_held_newest word for word, so the planner may read that partial index
  { field: 'held', column: "r.send_state = 'held'", operator: 'if' },
];

/** The conditions of `f` over `refunds r JOIN collections c`, numbered after `values`. */
export function refundWhere(f: RefundFilters, values: unknown[] = []): Where {
  return where(REFUND_FILTERS, f, values);
}
