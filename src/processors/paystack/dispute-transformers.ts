// Paystack disputes, pure: a dispute as the Disputes API answers it -> ours, and a charge.dispute.* event
// -> the dispute it is about. Sources: Paystack's API reference, Disputes (paystack.com/docs/api/dispute:
// GET /dispute answers a list, GET /dispute/:id one object; statuses awaiting-merchant-feedback,
// awaiting-bank-feedback, pending, resolved, archived; PUT /dispute/:id/resolve with resolution
// merchant-accepted or declined and a refund_amount), and its webhook guide (charge.dispute.create,
// charge.dispute.remind, charge.dispute.resolve).
//
// What is read, and why (docs/contract/disputes.md): an event is only a prompt, never read for money: its
// body names the dates differently from the API (created_at in an event, createdAt in an answer), and a
// declined dispute sends nothing more until the bank decides, so the service always asks GET /dispute/:id
// and reads that answer. `resolution` alone does not say who won: merchant-accepted (and auto-accepted,
// read the same way should a missed deadline be recorded so) is an acceptance of refund_amount (a partial
// one when less than the transaction); declined with status resolved is won when nothing was refunded (refund_amount 0 or
// null), lost for refund_amount when the bank ruled for the customer. `archived` is closed with nothing
// taken: won. The disputed amount is the transaction's: the dispute's own currency and refund_amount are
// null until it is resolved.
import { jsonObject, record, text } from '../vendor-json';
import type { DisputeStage, DisputeStatus, ObservedDispute } from '../../domain/dispute';
import { DISPUTE_STAGES } from '../../domain/dispute';
import { minor } from './transformers';

export const DISPUTE_EVENTS = ['charge.dispute.create', 'charge.dispute.remind', 'charge.dispute.resolve'] as const;

/** A Paystack dispute id: a number in answers and events alike. */
function disputeId(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  return typeof v === 'string' && /^\d{1,20}$/.test(v) ? v : null;
}

/** A charge.dispute.* event's dispute id; null for any other event or body. */
export function disputeEventId(rawBody: Buffer): string | null {
  const body = jsonObject(rawBody);
  if (!body || !DISPUTE_EVENTS.includes(body.event as (typeof DISPUTE_EVENTS)[number])) return null;
  return disputeId(record(body.data)?.id);
}

function stageOf(category: unknown): DisputeStage {
  return DISPUTE_STAGES.includes(category as DisputeStage) ? (category as DisputeStage) : 'chargeback';
}

function statusOf(status: string, resolution: string | null, refunded: bigint): DisputeStatus | null {
  switch (status) {
    case 'awaiting-merchant-feedback':
      return 'needs_response';
    case 'awaiting-bank-feedback':
    case 'pending':
      return 'under_review';
    case 'archived':
      return 'won';
    case 'resolved':
      if (resolution === 'merchant-accepted' || resolution === 'auto-accepted') return 'accepted';
      if (resolution === 'declined' || resolution === 'auto-declined') return refunded > 0n ? 'lost' : 'won';
      return null;
    default:
      return null;
  }
}

/** One dispute of an answer, in our words; null when it cannot be read (it is left for the next poll). */
export function readDispute(raw: unknown): ObservedDispute | null {
  const d = record(raw);
  const tx = record(d?.transaction);
  const id = disputeId(d?.id);
  const reference = text(tx?.reference) ?? text(d?.transaction_reference);
  const amount = minor(tx?.amount);
  const currency = text(d?.currency) ?? text(tx?.currency);
  const opened = new Date(String(d?.createdAt ?? d?.created_at ?? ''));
  const processorStatus = text(d?.status);
  if (!d || !id || !reference || amount === null || amount <= 0n || !currency || !processorStatus || Number.isNaN(opened.getTime())) return null;
  const resolution = text(d.resolution);
  const refundAmount = minor(typeof d.refund_amount === 'string' && /^\d{1,15}$/.test(d.refund_amount) ? Number(d.refund_amount) : d.refund_amount) ?? 0n;
  const status = statusOf(processorStatus, resolution, refundAmount);
  if (!status) return null;
  return {
    processorDisputeId: id, transactionReference: reference, stage: stageOf(d.category), status, processorStatus,
    reason: text(d.note) ?? text(d.reason), amountMinor: amount, currency: currency.toUpperCase(),
    debitMinor: status === 'won' ? 0n : refundAmount > 0n ? refundAmount : amount, resolution, openedAt: opened,
  };
}

export type DisputeAnswer = { kind: 'found'; dispute: ObservedDispute } | { kind: 'not_found' } | { kind: 'unreadable'; detail: string };

/** GET /dispute/:id: one object under data. */
export function readDisputeFetch(httpStatus: number, raw: unknown): DisputeAnswer {
  if (httpStatus === 404) return { kind: 'not_found' };
  const body = record(raw);
  const dispute = httpStatus === 200 && body?.status === true ? readDispute(body.data) : null;
  return dispute ? { kind: 'found', dispute } : { kind: 'unreadable', detail: `dispute answered HTTP ${httpStatus}` };
}

/** GET /dispute: a list under data (the same objects); those that cannot be read are counted, not guessed. */
export function readDisputeList(httpStatus: number, raw: unknown): { kind: 'listed'; disputes: ObservedDispute[]; unreadable: number; more: boolean } | { kind: 'unreadable'; detail: string } {
  const body = record(raw);
  if (httpStatus !== 200 || body?.status !== true || !Array.isArray(body.data)) return { kind: 'unreadable', detail: `dispute list answered HTTP ${httpStatus}` };
  const read = body.data.map(readDispute);
  const meta = record(body.meta);
  const page = Number(meta?.page ?? 1);
  const pageCount = Number(meta?.pageCount ?? 1);
  return { kind: 'listed', disputes: read.filter((d): d is ObservedDispute => d !== null), unreadable: read.filter((d) => d === null).length, more: page < pageCount };
}

export type ResolveAnswer = { kind: 'done' } | { kind: 'refused'; message: string } | { kind: 'unreadable'; detail: string };

/** GET /dispute/:id/upload_url: where to PUT the file, and the name resolve then gives as uploaded_filename. */
export function readUploadUrl(httpStatus: number, raw: unknown): { kind: 'upload'; signedUrl: string; fileName: string } | ResolveAnswer {
  const body = record(raw);
  const data = record(body?.data);
  const signedUrl = text(data?.signedUrl);
  const fileName = text(data?.fileName);
  if (httpStatus === 200 && body?.status === true && signedUrl && fileName) return { kind: 'upload', signedUrl, fileName };
  if (httpStatus >= 400 && httpStatus < 500 && httpStatus !== 429) return { kind: 'refused', message: text(body?.message) ?? `HTTP ${httpStatus}` };
  return { kind: 'unreadable', detail: `upload_url answered HTTP ${httpStatus}` };
}

/** POST /dispute/:id/evidence: 200 or 201 with status true is done; another 4xx but 429 is Paystack's refusal, in its words. */
export function readEvidence(httpStatus: number, raw: unknown): ResolveAnswer {
  const body = record(raw);
  if ((httpStatus === 200 || httpStatus === 201) && body?.status === true) return { kind: 'done' };
  if (httpStatus >= 400 && httpStatus < 500 && httpStatus !== 429) return { kind: 'refused', message: text(body?.message) ?? `HTTP ${httpStatus}` };
  return { kind: 'unreadable', detail: `evidence answered HTTP ${httpStatus}` };
}

/** PUT /dispute/:id/resolve: 200 with status true is done; another 4xx but 429 is Paystack's refusal, in its words. */
export function readResolve(httpStatus: number, raw: unknown): ResolveAnswer {
  const body = record(raw);
  if (httpStatus === 200 && body?.status === true) return { kind: 'done' };
  if (httpStatus >= 400 && httpStatus < 500 && httpStatus !== 429) return { kind: 'refused', message: text(body?.message) ?? `HTTP ${httpStatus}` };
  return { kind: 'unreadable', detail: `resolve answered HTTP ${httpStatus}` };
}
