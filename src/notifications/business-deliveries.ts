// The merchant's delivery log (listBusinessDeliveries): every notification of a business's
// collections, refunds, disbursements and payment links, newest first, each named by its subject's kind and reference,
// with where its delivery stands and its latest attempt.
import type { Db } from '../db';
import { where } from '../db/filters';
import type { FilterTable } from '../db/filters';
import { BY_ID, listPage } from '../db/keyset';
import type { PageRequest } from '../db/keyset';
import type { Status } from '../domain/collection';
import type { DisbursementStatus } from '../domain/disbursement';
import type { RefundStatus } from '../domain/refund';
import { apiTime, apiTimeOrNull } from '../domain/time';

type LinkEndEvent = 'payment_link.exhausted' | 'payment_link.expired';

export const DELIVERY_STATES = ['delivered', 'retrying', 'gave_up'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];
/** what a notification is about: a refund's notification names its collection too, so the refund is read first */
export type DeliverySubject = 'collection' | 'refund' | 'disbursement' | 'payment_link';

const SUBJECT_SQL = `CASE WHEN n.disbursement_id IS NOT NULL THEN 'disbursement' WHEN n.payment_link_id IS NOT NULL THEN 'payment_link' WHEN n.refund_id IS NOT NULL THEN 'refund' ELSE 'collection' END`;
const STATE_SQL = `CASE WHEN n.delivered_at IS NOT NULL THEN 'delivered' WHEN n.gave_up_at IS NOT NULL THEN 'gave_up' ELSE 'retrying' END`;

interface DeliveryRow {
  id: string;
  event_id: string;
  subject: DeliverySubject;
  gateway_reference: string;
  sequence: number;
  /** a payment link's notification announces its end event (`payment_link.exhausted`, `payment_link.expired`) */
  transaction_status: Status | RefundStatus | DisbursementStatus | LinkEndEvent;
  created_at: Date;
  state: DeliveryState;
  attempts: number;
  last_attempt_at: Date | null;
  last_http_status: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  next_attempt_at: Date | null;
}

function deliveryOf(r: DeliveryRow) {
  return {
    id: Number(r.id),
    event_id: r.event_id,
    subject: r.subject,
    gateway_reference: r.gateway_reference,
    sequence: r.sequence,
    transaction_status: r.transaction_status,
    created_at: apiTime(r.created_at),
    state: r.state,
    attempts: r.attempts,
    last_attempt_at: apiTimeOrNull(r.last_attempt_at),
    last_http_status: r.last_http_status,
    last_error: r.last_error,
    delivered_at: apiTimeOrNull(r.delivered_at),
    next_attempt_at: r.state === 'retrying' ? apiTimeOrNull(r.next_attempt_at) : null,
  };
}

export type Delivery = ReturnType<typeof deliveryOf>;

// a notification is a collection's (a refund's names its collection), a disbursement's or a payment link's: one of them
const FROM =
  'FROM notifications n LEFT JOIN collections c ON c.id = n.collection_id LEFT JOIN disbursements d ON d.id = n.disbursement_id LEFT JOIN payment_links pl ON pl.id = n.payment_link_id';
/** The list's filter (src/db/filters.ts): one delivery state only, when given. */
const DELIVERY_FILTERS: FilterTable<{ state: DeliveryState | null }> = [{ field: 'state', column: STATE_SQL, operator: '=' }];

/** A page of the business's notifications, newest first; the latest attempt is read for listed rows, not to count. */
export async function businessDeliveries(db: Db, businessId: number, state: DeliveryState | null, page: PageRequest) {
  const w = where(DELIVERY_FILTERS, { state }, [businessId]);
  // the business's notifications ($1), by their collection's, their disbursement's or their payment link's
  // business; a dispute's names its collection but is not yet one of this list's subjects
  const condition = `WHERE (c.business_id = $1 OR d.business_id = $1 OR pl.business_id = $1) AND n.dispute_id IS NULL AND ${w.text}`;
  const values = w.values;
  const sql = `SELECT n.id, n.event_id, ${SUBJECT_SQL} AS subject, COALESCE(r.gateway_reference, d.gateway_reference, pl.link_id, c.gateway_reference) AS gateway_reference, n.sequence, n.transaction_status, n.created_at, ${STATE_SQL} AS state,
      n.attempts, l.at AS last_attempt_at, l.http_status AS last_http_status, l.error AS last_error, n.delivered_at, n.next_attempt_at
    ${FROM}
    LEFT JOIN refunds r ON r.id = n.refund_id
    LEFT JOIN LATERAL (
      SELECT a.at, a.http_status, a.error FROM notification_attempts a
      WHERE a.notification_id = n.id ORDER BY a.attempt DESC, a.id DESC LIMIT 1
    ) l ON true
    ${condition}`;
  const count = async () => (await db.one<{ n: number }>(`SELECT count(*)::int AS n ${FROM} ${condition}`, values)).n;
  const listed = await listPage<DeliveryRow>(db, { sql, values, key: BY_ID, direction: 'DESC', count }, page);
  return { ...listed, rows: listed.rows.map(deliveryOf) };
}
