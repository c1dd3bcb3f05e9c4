// Paystack settlements, pure: its answers about the money it paid out to the merchant's bank account, in our
// words, for reconciliation (docs/reconciliation.md, "Paystack's settlements"). Sources: Paystack's API
// reference, Settlements (paystack.com/docs/api/settlement): GET /settlement lists settlements (perPage,
// page, from, to; meta with total, perPage, page and pageCount), each with id, status (success once paid
// out; processing or pending before), currency, settlement_date, total_amount and total_fees; GET
// /settlement/:id/transactions lists the transactions one settlement paid out, each a transaction object
// (reference, amount, currency, status, paid_at, fees).
//
// What is read, and why:
// - only a settlement whose status is `success`: one still processing may take more transactions in, so
//   its list is not final;
// - a transaction's `amount` is what the customer paid, in the currency's smallest unit (kobo, pesewas,
//   cents), before Paystack's fee: the amount we asked Paystack to take, so it is set against that; the
//   fee is Paystack's and is not a line;
// - its time is `paid_at`, `paidAt` on some answers (both spellings appear in Paystack's samples), else
//   `createdAt` / `created_at`;
// - a transaction that is not `success` in a settlement's list paid nothing and is passed over.
import { record, text } from '../vendor-json';
import type { ObservedSettlement, SettledPayment } from '../types';
import { minor } from './transformers';

/** A settlement's or a transaction's id: a number, or its digits as text. */
function id(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  return typeof v === 'string' && /^\d{1,20}$/.test(v) ? v : null;
}

function time(v: unknown): Date | null {
  const t = text(v);
  if (!t) return null;
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? null : d;
}

function pages(body: Record<string, unknown>): boolean {
  const meta = record(body.meta);
  const page = Number(meta?.page ?? 1);
  const pageCount = Number(meta?.pageCount ?? 1);
  return Number.isFinite(page) && Number.isFinite(pageCount) && page < pageCount;
}

export function readSettlement(raw: unknown): ObservedSettlement | null {
  const s = record(raw);
  const sid = id(s?.id);
  const currency = text(s?.currency);
  if (!s || !sid || !currency || !/^[A-Z]{3}$/.test(currency)) return null;
  return { id: sid, settled: s.status === 'success', currency, settledAt: time(s.settlement_date) ?? time(s.updatedAt) ?? time(s.updated_at) };
}

/** GET /settlement: one page of settlements; those that cannot be read are counted. */
export function readSettlementList(httpStatus: number, raw: unknown): { kind: 'listed'; settlements: ObservedSettlement[]; unreadable: number; more: boolean } | { kind: 'unreadable'; detail: string } {
  const body = record(raw);
  if (httpStatus !== 200 || body?.status !== true || !Array.isArray(body.data)) return { kind: 'unreadable', detail: `settlement list answered HTTP ${httpStatus}` };
  const read = body.data.map(readSettlement);
  return { kind: 'listed', settlements: read.filter((s): s is ObservedSettlement => s !== null), unreadable: read.filter((s) => s === null).length, more: pages(body) };
}

/** One transaction of a settlement's list; null when it paid nothing (not success); throws nothing. */
function readSettledPayment(raw: unknown): SettledPayment | 'unreadable' | null {
  const t = record(raw);
  if (!t) return 'unreadable';
  if (t.status !== 'success') return null;
  const reference = text(t.reference);
  const amount = minor(t.amount);
  const currency = text(t.currency);
  const at = time(t.paid_at) ?? time(t.paidAt) ?? time(t.createdAt) ?? time(t.created_at);
  if (!reference || amount === null || amount <= 0n || !currency || !/^[A-Z]{3}$/.test(currency) || !at) return 'unreadable';
  return { reference, amountMinor: amount, currency, occurredAt: at };
}

/**
 * GET /settlement/:id/transactions: one page of the payments a settlement paid out. A page with a
 * transaction that cannot be read is unreadable as a whole: a settlement is taken in whole or not at all.
 */
export function readSettlementTransactions(httpStatus: number, raw: unknown): { kind: 'listed'; payments: SettledPayment[]; more: boolean } | { kind: 'unreadable'; detail: string } {
  const body = record(raw);
  if (httpStatus !== 200 || body?.status !== true || !Array.isArray(body.data)) return { kind: 'unreadable', detail: `settlement transactions answered HTTP ${httpStatus}` };
  const read = body.data.map(readSettledPayment);
  const bad = read.findIndex((p) => p === 'unreadable');
  if (bad >= 0) return { kind: 'unreadable', detail: `settlement transaction ${bad + 1} of the page cannot be read` };
  return { kind: 'listed', payments: read.filter((p): p is SettledPayment => p !== null && p !== 'unreadable'), more: pages(body) };
}
