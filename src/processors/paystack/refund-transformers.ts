// Paystack refunds, pure: our refund -> the Refund API's request, its answers and refund.* events -> ours.
// Sources: PaystackOSS/openapi at 9678dea (paths/refund.yaml, refund_{id}.yaml; schemas RefundCreate,
// RefundCreateResponse, RefundFetchResponse, RefundListResponseArray), PaystackOSS/doc-code-snippets at
// 94af513 (api/refunds/{create,fetch,list}/response.json, doc/payments/refunds/events/refund-*.json) and
// Paystack's "Refunds" guide (paystack.com/docs/payments/refunds: full or partial, never more than the
// transaction; the refund states and their refund.* events).
import { jsonObject, record, text } from '../vendor-json';
import type { CallbackNote, Observed, QueryResult, RefundOrder, SendResult } from '../types';
import { minor, refusal } from './transformers';

/** Paystack takes no reference of ours for a refund: the merchant note carries it, to find a refund whose answer was lost. */
export function refundNote(reference: string): string {
  return `PayCollect refund ${reference}`;
}

/** POST /refund body: the transaction by its reference, the amount in the smallest unit (partial allowed). */
export function refundRequest(order: RefundOrder) {
  return {
    transaction: order.original.vendorReference ?? order.original.reference,
    amount: Number(order.amountMinor),
    currency: order.currency,
    customer_note: (order.reason ?? `Refund ${order.gatewayReference}`).slice(0, 200),
    merchant_note: refundNote(order.reference),
  };
}

/**
 * The answer to POST /refund: 200 with the refund's id is accepted (Paystack's id is the vendor reference);
 * a 4xx other than 429 will not change on a resend (a refund above what is left, a transaction not paid):
 * refused with Paystack's words; 429 and 5xx were not taken: retry. Any other answer is unknown (a
 * resend could refund twice: a status query settles it).
 */
export function readRefundCreate(httpStatus: number, raw: unknown): SendResult {
  const body = record(raw);
  const no = refusal(httpStatus, body);
  if (no) return { kind: 'refused', message: `Paystack refused the refund: ${no.message}`.slice(0, 300), detail: `HTTP ${httpStatus}` };
  if (httpStatus === 429 || httpStatus >= 500) return { kind: 'retry', detail: `HTTP ${httpStatus}${text(body?.message) ? ': ' + text(body?.message) : ''}` };
  const id = refundId(record(body?.data)?.id);
  if (httpStatus === 200 && body?.status === true && id) return { kind: 'accepted', vendorReference: id };
  return { kind: 'unknown', detail: `refund answered HTTP ${httpStatus} without a refund id` };
}

function refundId(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  return typeof v === 'string' && /^\d{1,20}$/.test(v) ? v : null;
}

/** Paystack's refund states (the Refunds guide; one refund.<state> event each). */
const REFUND_STATUS: Record<string, { status: 'PENDING' | 'COMPLETED' | 'FAILED'; message: string | null }> = {
  pending: { status: 'PENDING', message: null },
  processing: { status: 'PENDING', message: null },
  // Paystack needs the customer's bank details (refund/retry_with_customer_details): not final
  'needs-attention': { status: 'PENDING', message: "Paystack needs the customer's account details to finish the refund" },
  processed: { status: 'COMPLETED', message: null },
  failed: { status: 'FAILED', message: 'Paystack could not refund the customer' },
};

/** A refund object (fetch, list item, or an event's data) -> what it says; null without a status. */
export function observeRefund(raw: unknown): Observed | null {
  const data = record(raw);
  const status = text(data?.status);
  if (!status) return null;
  const amountMinor = minor(data?.amount) ?? (typeof data?.amount === 'string' && /^\d{1,15}$/.test(data.amount) ? BigInt(data.amount) : null);
  const currency = text(data?.currency);
  const mapped = REFUND_STATUS[status];
  if (!mapped) return { status: 'PENDING', vendorStatus: status, message: null, amountMinor, currency, unmapped: true };
  const reason = text(data?.reason);
  const message = mapped.status === 'FAILED' && reason ? `${mapped.message}: ${reason.slice(0, 200)}` : mapped.message;
  return { status: mapped.status, vendorStatus: status, message, amountMinor, currency, unmapped: false };
}

/** GET /refund/:id: the refund; 404 (NotFound.yaml) never received; anything else no answer this time. */
export function readRefundFetch(httpStatus: number, raw: unknown): QueryResult {
  const body = record(raw);
  if (httpStatus === 404) return { kind: 'not_found' };
  const observed = httpStatus === 200 && body?.status === true ? observeRefund(body.data) : null;
  return observed ? { kind: 'observed', observed } : { kind: 'unavailable', detail: `refund fetch answered HTTP ${httpStatus} without a readable refund` };
}

/**
 * GET /refund?transaction=<reference>: the transaction's refunds; ours is the one whose merchant note
 * names our reference. When every item is that transaction's and none is ours, Paystack never took it
 * (not_found: it may be sent again); an item of another transaction means the filter was not applied,
 * so absence proves nothing (unavailable).
 */
export function readRefundList(httpStatus: number, raw: unknown, transactionReference: string, reference: string): QueryResult {
  const body = record(raw);
  if (httpStatus !== 200 || body?.status !== true || !Array.isArray(body.data)) return { kind: 'unavailable', detail: `refund list answered HTTP ${httpStatus} without a list` };
  const items = body.data.map(record);
  const ours = items.find((i) => text(i?.merchant_note) === refundNote(reference));
  const observed = ours ? observeRefund(ours) : null;
  if (observed) return { kind: 'observed', observed };
  if (items.some((i) => text(i?.transaction_reference) !== transactionReference)) return { kind: 'unavailable', detail: 'the refund list was not limited to the transaction' };
  return { kind: 'not_found' };
}

/**
 * A refund.* event's body (raw bytes or parsed), read without trusting it (never throws): the refund's id
 * when the event carries it (refund.needs-attention does; the refund.processed and refund.failed samples
 * do not) and the transaction_reference it belongs to. Its signature is checked with signatureValid on
 * the raw body before this (the MID's webhook route); it remains a prompt to query.
 */
export function refundCallbackNote(body: unknown): CallbackNote {
  const parsed = Buffer.isBuffer(body) ? jsonObject(body) : record(body);
  const event = text(parsed?.event);
  const data = record(parsed?.data);
  if (!event?.startsWith('refund.') || !data) return { vendorReference: null, reported: null };
  return { vendorReference: refundId(data.id), reported: null, originalReference: text(data.transaction_reference) };
}
