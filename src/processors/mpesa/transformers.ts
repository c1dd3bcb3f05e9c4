// Safaricom M-Pesa Express (STK push), pure: our order -> the Daraja request, Daraja's answers and
// callbacks -> our results, through exhaustive tables. Sources: the Daraja portal's "M-Pesa Express"
// pages (developer.safaricom.co.ke: Simulate, Query, the callback and its result codes) and the
// public samples and libraries that follow them (safaricom/LNMOnlineAndroidSample and its issues,
// neshoj/safaricom-daraja-nodejs, martinmogusu/django-daraja).
// Refunds (reversals) are read in refund-transformers.ts, the receipt check before one in
// receipt-transformers.ts, payouts (B2C) in payout-transformers.ts.
import { amountText, parseVendorAmount } from '../amounts';
import { unanswered } from '../transport';
import type { VendorAnswer } from '../transport';
import type { CallbackNote, Credentials, Observed, ObservedStatus, PaymentOrder, QueryResult, SendResult } from '../types';

export const INSTITUTION = 'M-Pesa';

/** M-Pesa takes whole Kenyan shillings only ("Amount: ... only whole numbers are supported"). */
export function mpesaAmountDecimals(currency: string): number | null {
  return currency === 'KES' ? 0 : null;
}

/** Daraja's Timestamp: YYYYMMDDHHmmss in Kenyan time (UTC+3 all year). */
export function darajaTimestamp(at: Date): string {
  return new Date(at.getTime() + 3 * 3_600_000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Password = base64(BusinessShortCode + Passkey + Timestamp). */
export function darajaPassword(credentials: Credentials, timestamp: string): string {
  return Buffer.from(`${credentials.short_code}${credentials.pass_key}${timestamp}`).toString('base64');
}

export interface StkPushRequest {
  BusinessShortCode: string;
  Password: string;
  Timestamp: string;
  TransactionType: string;
  Amount: number;
  PartyA: string;
  PartyB: string;
  PhoneNumber: string;
  CallBackURL: string;
  AccountReference: string;
  TransactionDesc: string;
}

/** AccountReference at most 12 characters, TransactionDesc at most 13 (the Simulate page's parameter table). */
export function toStkPush(credentials: Credentials, order: PaymentOrder, at: Date): StkPushRequest {
  const amount = amountText(order.amountMinor, 0);
  if (amount === null || order.currency !== 'KES') throw new RangeError('M-Pesa takes whole KES (checked at request time)');
  const timestamp = darajaTimestamp(at);
  return {
    BusinessShortCode: credentials.short_code,
    Password: darajaPassword(credentials, timestamp),
    Timestamp: timestamp,
    TransactionType: credentials.transaction_type,
    Amount: Number(amount),
    PartyA: order.accountNumber,
    PartyB: credentials.party_b ?? credentials.short_code,
    PhoneNumber: order.accountNumber,
    CallBackURL: order.callbackUrl,
    AccountReference: order.gatewayReference.slice(0, 12),
    TransactionDesc: order.narration.replace(/[^A-Za-z0-9 ]/g, ' ').slice(0, 13).trim() || 'Payment',
  };
}

type Answered = Extract<VendorAnswer, { kind: 'answer' }>;

/** Daraja's error words of an answer, for a detail or a log line (every request's reader uses it). */
export function errorText(a: Answered): string {
  const b = a.json as { errorCode?: unknown; errorMessage?: unknown; ResponseDescription?: unknown } | undefined;
  const code = typeof b?.errorCode === 'string' ? ` ${b.errorCode}` : '';
  const message = typeof b?.errorMessage === 'string' ? b.errorMessage : typeof b?.ResponseDescription === 'string' ? b.ResponseDescription : '';
  return `HTTP ${a.status}${code}${message ? ': ' + message.slice(0, 200) : ''}`;
}

/** Daraja refuses a token with HTTP 404 and errorCode 404.001.03 "Invalid Access Token" (LNMOnlineAndroidSample issue #11). */
export function tokenRefused(a: Answered): boolean {
  return a.status === 401 || (a.json as { errorCode?: unknown } | undefined)?.errorCode === '404.001.03';
}

/**
 * The answer to processrequest. 200 with ResponseCode "0" and a CheckoutRequestID = the prompt is on
 * its way. STK push has no idempotency key, so an answer that may have reached Safaricom (no answer,
 * or a 200 we cannot read) is unknown, never resent blindly: a second push would be a second prompt;
 * its callback (to the collection's own URL) carries the CheckoutRequestID that settles it. A 400 is
 * a refused request; a 5xx or no connection at all is retried.
 */
export function sendResult(a: VendorAnswer): SendResult {
  if (a.kind === 'no_answer') return unanswered(a);
  const b = a.json as { ResponseCode?: unknown; CheckoutRequestID?: unknown } | undefined;
  if (a.status === 200 && String(b?.ResponseCode) === '0' && typeof b?.CheckoutRequestID === 'string') {
    return { kind: 'accepted', vendorReference: b.CheckoutRequestID };
  }
  if (a.status === 400) return { kind: 'refused', message: 'M-Pesa refused the payment request', detail: errorText(a) };
  if (a.status >= 500 || a.status === 401 || tokenRefused(a) || a.status === 403) return { kind: 'retry', detail: errorText(a) };
  return { kind: 'unknown', detail: errorText(a) };
}

/** ResultCode of the callback and of the query, each with the words a merchant may show. */
const RESULTS: Record<string, { status: ObservedStatus; message: string | null }> = {
  '0': { status: 'COMPLETED', message: null },
  '1': { status: 'FAILED', message: "The customer's M-Pesa balance is too low" },
  '1032': { status: 'CANCELLED', message: 'The customer cancelled the payment' },
  '1037': { status: 'FAILED', message: "The customer's phone could not be reached" },
  '1019': { status: 'FAILED', message: 'The payment prompt expired before the customer answered' },
  '2001': { status: 'FAILED', message: 'The customer entered a wrong M-Pesa PIN' },
  '1001': { status: 'FAILED', message: 'Another M-Pesa payment was in progress on the customer\'s phone' },
  '1025': { status: 'FAILED', message: 'M-Pesa could not send the payment prompt' },
  '9999': { status: 'FAILED', message: 'M-Pesa could not send the payment prompt' },
};

function observeResult(code: string, desc: string | null, amountMinor: bigint | null): Observed {
  const r = RESULTS[code];
  const vendorStatus = `ResultCode ${code}${desc ? ' ' + desc : ''}`;
  if (!r) return { status: 'PENDING', vendorStatus, message: null, amountMinor: null, currency: null, unmapped: true };
  return { status: r.status, vendorStatus, message: r.message, amountMinor, currency: amountMinor === null ? null : 'KES', unmapped: false };
}

/**
 * The answer to stkpushquery. 200 with a ResultCode once the customer answered (Daraja sends it as a
 * string, the callback as a number). While the prompt is still open Daraja answers HTTP 500 with
 * errorCode 500.001.1001 "The transaction is being processed" (LNMOnlineAndroidSample issue #13:
 * "That is the standard response"): that is PENDING, not an error. A CheckoutRequestID Daraja does
 * not know is a 400 "Invalid CheckoutRequestID": never received.
 */
export function queryResult(a: VendorAnswer): QueryResult {
  if (a.kind === 'no_answer') return { kind: 'unavailable', detail: a.detail };
  const b = a.json as { ResultCode?: unknown; ResultDesc?: unknown; errorCode?: unknown; errorMessage?: unknown } | undefined;
  const message = typeof b?.errorMessage === 'string' ? b.errorMessage : '';
  if (a.status === 500 && b?.errorCode === '500.001.1001' && /being processed/i.test(message)) {
    return { kind: 'observed', observed: { status: 'PENDING', vendorStatus: `${b.errorCode} ${message}`, message: null, amountMinor: null, currency: null, unmapped: false } };
  }
  if (a.status === 400 && /CheckoutRequestID/i.test(message)) return { kind: 'not_found' };
  if (a.status === 200 && b?.ResultCode !== undefined && b.ResultCode !== null) {
    return { kind: 'observed', observed: observeResult(String(b.ResultCode), typeof b.ResultDesc === 'string' ? b.ResultDesc : null, null) };
  }
  return { kind: 'unavailable', detail: errorText(a) };
}

interface StkCallback {
  CheckoutRequestID?: unknown;
  ResultCode?: unknown;
  CallbackMetadata?: { Item?: { Name?: unknown; Value?: unknown }[] };
}

/** An M-Pesa receipt (transaction id): ten capital letters and digits (NLJ7RT61SV in the portal's callback sample). */
export const RECEIPT = /^[A-Z0-9]{10}$/;

/**
 * Body.stkCallback, unsigned: a prompt only. It gives the CheckoutRequestID (to query a request whose
 * send outcome was unknown) and, on success only, CallbackMetadata with the Amount paid, compared with
 * ours before any credit since the query does not say the amount, and the MpesaReceiptNumber, which no
 * query of the STK push gives and a reversal needs (kept, and confirmed with Transaction Status before
 * a refund names it).
 */
export function callbackNote(body: unknown): CallbackNote {
  const cb = (body as { Body?: { stkCallback?: StkCallback } } | null)?.Body?.stkCallback;
  if (!cb || typeof cb !== 'object') return { vendorReference: null, reported: null, receipt: null };
  const vendorReference = typeof cb.CheckoutRequestID === 'string' && /^[\w-]{1,64}$/.test(cb.CheckoutRequestID) ? cb.CheckoutRequestID : null;
  const items = Array.isArray(cb.CallbackMetadata?.Item) ? cb.CallbackMetadata.Item : [];
  const paid = String(cb.ResultCode) === '0';
  const amount = paid ? parseVendorAmount(items.find((i) => i?.Name === 'Amount')?.Value) : null;
  const receipt = paid ? items.find((i) => i?.Name === 'MpesaReceiptNumber')?.Value : null;
  return {
    vendorReference,
    reported: amount === null ? null : { amountMinor: amount, currency: 'KES' },
    receipt: typeof receipt === 'string' && RECEIPT.test(receipt) ? receipt : null,
  };
}
