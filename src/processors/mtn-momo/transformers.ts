// MTN MoMo Collection, pure: our order -> the vendor's request, the vendor's answers and callbacks ->
// our results, through exhaustive tables. Sources: the MoMo developer portal's Collection API
// (momodeveloper.mtn.com, "API documentation" and "Common errors" pages) and the public client
// libraries that follow it (sparkplug/momoapi-node, mtvbrianking/laravel-mtn-momo).
import { isoDecimals } from '../../domain/currencies';
import { amountText, parseVendorAmount } from '../amounts';
import { unanswered } from '../transport';
import type { VendorAnswer } from '../transport';
import type { CallbackNote, Observed, ObservedStatus, PaymentOrder, PayoutObservedStatus, PayoutOrder, QueryResult, RefundOrder, SendResult } from '../types';

export const INSTITUTION = 'MTN Mobile Money';

/** POST /collection/v1_0/requesttopay body (fields as the portal's RequestToPay schema names them). */
export interface MtnRequestToPay {
  amount: string;
  currency: string;
  externalId: string;
  payer: { partyIdType: 'MSISDN'; partyId: string };
  payerMessage: string;
  payeeNote: string;
}

/**
 * payerMessage and payeeNote: at most 160 characters, and the portal's common-errors page lists
 * "unsupported special characters (for example an apostrophe)" as a cause of 400: keep plain text.
 */
const NOTE_MAX = 160;
function plainNote(text: string): string {
  return text.replace(/[^A-Za-z0-9 .,:_-]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, NOTE_MAX);
}

/** MTN takes a decimal string; zero-decimal currencies (UGX, RWF, XAF, ...) whole units only. */
export function mtnAmountDecimals(currency: string): number {
  return isoDecimals(currency);
}

export function toRequestToPay(order: PaymentOrder): MtnRequestToPay {
  const amount = amountText(order.amountMinor, mtnAmountDecimals(order.currency));
  if (amount === null) throw new RangeError('amount not exact at the currency precision (checked at request time)');
  return {
    amount,
    currency: order.currency,
    externalId: order.gatewayReference,
    payer: { partyIdType: 'MSISDN', partyId: order.accountNumber },
    payerMessage: plainNote(order.narration),
    payeeNote: plainNote(`PayCollect ${order.gatewayReference}`),
  };
}

/**
 * The answer to requesttopay. 202 with an empty body = accepted. 409 RESOURCE_ALREADY_EXIST = this
 * X-Reference-Id was taken before: the vendor already has our request (we resend only with the same
 * reference), so it is accepted too. 400 = the request itself is wrong and will stay wrong. A 401
 * left after a token refresh, 403, 404 and 5xx are not the payment's fault and the vendor did not keep
 * the request (or it will say 409 on the resend): retry. No answer after the request may have left is
 * an unknown outcome, asked about with a status query (the engine's rule for every processor), even
 * though a resend under the same X-Reference-Id could not make a second prompt; a connection that never
 * opened is retried. Any other answer cannot be read: unknown.
 */
export function sendResult(a: VendorAnswer): SendResult {
  if (a.kind === 'no_answer') return unanswered(a);
  if (a.status === 202 || a.status === 409) return { kind: 'accepted', vendorReference: null };
  if (a.status === 400) return { kind: 'refused', message: 'The mobile money processor refused the payment request', detail: errorText(a) };
  if (a.status === 401 || a.status === 403 || a.status === 404 || a.status >= 500) return { kind: 'retry', detail: errorText(a) };
  return { kind: 'unknown', detail: errorText(a) };
}

function errorText(a: Extract<VendorAnswer, { kind: 'answer' }>): string {
  const body = a.json as { code?: unknown; message?: unknown } | undefined;
  const code = typeof body?.code === 'string' ? body.code : null;
  const message = typeof body?.message === 'string' ? body.message : null;
  return `HTTP ${a.status}${code ? ' ' + code : ''}${message ? ': ' + message.slice(0, 200) : ''}`;
}

/** Status words of GET requesttopay/{referenceId}. The portal documents PENDING, SUCCESSFUL and FAILED. */
const STATUS: Record<string, ObservedStatus | 'BY_REASON'> = {
  PENDING: 'PENDING',
  SUCCESSFUL: 'COMPLETED',
  FAILED: 'BY_REASON',
  // Not in the portal's schema but answered by the sandbox's test numbers and handled by client
  // libraries; read as what they mean rather than as unknown.
  ONGOING: 'PENDING',
  REJECTED: 'CANCELLED',
  TIMEOUT: 'FAILED',
};

/** Failure reasons (the portal's ErrorReason codes), each with the words a merchant may show. */
const REASONS: Record<string, { status: 'FAILED' | 'CANCELLED'; message: string }> = {
  APPROVAL_REJECTED: { status: 'CANCELLED', message: 'The customer declined the payment' },
  TRANSACTION_CANCELED: { status: 'CANCELLED', message: 'The payment was cancelled' },
  EXPIRED: { status: 'FAILED', message: 'The customer did not approve the payment in time' },
  // "predominantly occurs with a delay to approve a transaction within the given time frame (5 minutes)"
  COULD_NOT_PERFORM_TRANSACTION: { status: 'FAILED', message: 'The customer did not approve the payment in time' },
  NOT_ENOUGH_FUNDS: { status: 'FAILED', message: "The customer's mobile money balance is too low" },
  PAYER_LIMIT_REACHED: { status: 'FAILED', message: "The customer's mobile money limit is reached" },
  PAYER_NOT_FOUND: { status: 'FAILED', message: 'The phone number has no mobile money account' },
  PAYEE_NOT_FOUND: { status: 'FAILED', message: 'The merchant account at the processor is not found' },
  PAYEE_NOT_ALLOWED_TO_RECEIVE: { status: 'FAILED', message: 'The merchant account at the processor cannot receive payments' },
  NOT_ALLOWED: { status: 'FAILED', message: 'The processor does not allow this payment' },
  NOT_ALLOWED_TARGET_ENVIRONMENT: { status: 'FAILED', message: 'The processor does not allow this payment in this environment' },
  INVALID_CALLBACK_URL_HOST: { status: 'FAILED', message: 'The processor refused the callback address' },
  INVALID_CURRENCY: { status: 'FAILED', message: 'The processor does not take this currency' },
  // "predominantly occurs due to insufficient customer funds"; also a platform that cannot be reached
  INTERNAL_PROCESSING_ERROR: { status: 'FAILED', message: 'The processor could not complete the payment' },
  SERVICE_UNAVAILABLE: { status: 'FAILED', message: 'The processor could not complete the payment' },
};
const UNKNOWN_REASON = { status: 'FAILED' as const, message: 'The processor reported the payment as failed' };

/**
 * `reason` is an object `{ code, message }` in the portal's schema, but the sandbox answers a bare
 * string ("APPROVAL_REJECTED"); both are read.
 */
function reasonCode(reason: unknown): string | null {
  if (typeof reason === 'string') return reason;
  const code = (reason as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

/** A requesttopay resource (status query answer and callback body) -> what it says. */
export function observe(body: unknown): Observed | null {
  const b = body as { status?: unknown; reason?: unknown; amount?: unknown; currency?: unknown } | null;
  if (!b || typeof b !== 'object' || typeof b.status !== 'string') return null;
  const mapped = STATUS[b.status];
  const reason = reasonCode(b.reason);
  const base = {
    vendorStatus: reason ? `${b.status} ${reason}` : b.status,
    amountMinor: parseVendorAmount(b.amount),
    currency: typeof b.currency === 'string' ? b.currency : null,
  };
  if (mapped === undefined) return { ...base, status: 'PENDING', message: null, unmapped: true };
  if (mapped !== 'BY_REASON') {
    const message = mapped === 'CANCELLED' ? REASONS.APPROVAL_REJECTED.message : mapped === 'FAILED' ? REASONS.EXPIRED.message : null;
    return { ...base, status: mapped, message, unmapped: false };
  }
  const r = (reason && REASONS[reason]) || UNKNOWN_REASON;
  return { ...base, status: r.status, message: r.message, unmapped: false };
}

/** GET requesttopay/{referenceId}: 200 even for FAILED; 404 RESOURCE_NOT_FOUND = never received. */
export function queryResult(a: VendorAnswer): QueryResult {
  if (a.kind === 'no_answer') return { kind: 'unavailable', detail: a.detail };
  if (a.status === 404) return { kind: 'not_found' };
  if (a.status !== 200) return { kind: 'unavailable', detail: errorText(a) };
  const observed = observe(a.json);
  return observed ? { kind: 'observed', observed } : { kind: 'unavailable', detail: 'HTTP 200 without a readable status' };
}

/**
 * The callback body is the same resource as the status query's, unsigned: it only prompts that query,
 * whose answer carries the amount, so nothing is taken from it.
 */
export function callbackNote(_body: unknown): CallbackNote {
  return { vendorReference: null, reported: null };
}


// ---- refunds: the Disbursement product's Refund V1 ---------------------------------------------
// Sources: the MoMo developer portal's Disbursement API ("Refund V1": POST /disbursement/v1_0/refund,
// "Get Refund Status": GET /disbursement/v1_0/refund/{referenceId}) and MTN's own client library that
// follows it (MTN-Group/MoMoAPIs_Javascript_sdk, refund-V1 and refund status).

/** The Disbursement API user, key and subscription key a MID needs to refund (its own, not the Collection's). */
export const DISBURSEMENT_FIELDS = ['disbursement_api_user', 'disbursement_api_key', 'disbursement_subscription_key'] as const;

/** The names of the disbursement credentials a MID lacks (none: it can refund). */
export function missingDisbursementCredentials(credentials: Readonly<Record<string, string>>): string[] {
  return DISBURSEMENT_FIELDS.filter((f) => !credentials[f]);
}

/** POST /disbursement/v1_0/refund body (the portal's RefundV1 schema). */
export interface MtnRefund {
  amount: string;
  currency: string;
  externalId: string;
  payerMessage: string;
  payeeNote: string;
  /** the X-Reference-Id of the request to pay being refunded */
  referenceIdToRefund: string;
}

/** Our refund -> the vendor's body; null when the amount is not exact at the currency's precision. */
export function toRefund(order: RefundOrder): MtnRefund | null {
  const amount = amountText(order.amountMinor, mtnAmountDecimals(order.currency));
  if (amount === null) return null;
  return {
    amount,
    currency: order.currency,
    externalId: order.gatewayReference,
    payerMessage: plainNote(order.reason ?? `Refund ${order.gatewayReference}`),
    payeeNote: plainNote(`PayCollect refund ${order.gatewayReference}`),
    referenceIdToRefund: order.original.reference,
  };
}

/**
 * The answer to POST refund, read as requesttopay's is (202 accepted; 409 RESOURCE_ALREADY_EXIST = MTN
 * already has this X-Reference-Id: accepted; 400 refused; 401/403/404/5xx: retry, the same reference cannot
 * pay twice; no answer: unknown, a status query follows; anything else unknown), with a refund's words.
 */
export function refundSendResult(a: VendorAnswer): SendResult {
  const r = sendResult(a);
  return r.kind === 'refused' ? { ...r, message: 'The mobile money processor refused the refund' } : r;
}

/** Why a refund failed (the portal's ErrorReason codes as they apply to money going out to the customer). */
const REFUND_REASONS: Record<string, string> = {
  NOT_ENOUGH_FUNDS: "The merchant's disbursement account at the processor has too little money",
  PAYER_LIMIT_REACHED: "The merchant's disbursement account at the processor reached its limit",
  PAYEE_NOT_FOUND: 'The phone number has no mobile money account',
  PAYEE_NOT_ALLOWED_TO_RECEIVE: "The customer's mobile money account cannot receive money",
  NOT_ALLOWED: 'The processor does not allow this refund',
  NOT_ALLOWED_TARGET_ENVIRONMENT: 'The processor does not allow this refund in this environment',
  INVALID_CURRENCY: 'The processor does not take this currency',
  RESOURCE_NOT_FOUND: 'The processor has no record of the payment to refund',
  TRANSACTION_CANCELED: 'The refund was cancelled at the processor',
  INTERNAL_PROCESSING_ERROR: 'The processor could not complete the refund',
  SERVICE_UNAVAILABLE: 'The processor could not complete the refund',
};
const REFUND_FAILED = 'The processor reported the refund as failed';

/** Status words of GET refund/{referenceId}: PENDING, SUCCESSFUL, FAILED (the Transfer schema's). */
const REFUND_STATUS: Record<string, ObservedStatus> = {
  PENDING: 'PENDING',
  SUCCESSFUL: 'COMPLETED',
  FAILED: 'FAILED',
  // as for collections: answered by the sandbox, read as what they mean
  ONGOING: 'PENDING',
  TIMEOUT: 'FAILED',
  REJECTED: 'FAILED',
};

/** A refund resource (status query answer and callback body) -> what it says. */
export function observeRefund(body: unknown): Observed | null {
  const b = body as { status?: unknown; reason?: unknown; amount?: unknown; currency?: unknown } | null;
  if (!b || typeof b !== 'object' || typeof b.status !== 'string') return null;
  const mapped = REFUND_STATUS[b.status];
  const reason = reasonCode(b.reason);
  const base = {
    vendorStatus: reason ? `${b.status} ${reason}` : b.status,
    amountMinor: parseVendorAmount(b.amount),
    currency: typeof b.currency === 'string' ? b.currency : null,
  };
  if (mapped === undefined) return { ...base, status: 'PENDING', message: null, unmapped: true };
  const message = mapped === 'FAILED' ? ((reason && REFUND_REASONS[reason]) ?? REFUND_FAILED) : null;
  return { ...base, status: mapped, message, unmapped: false };
}

/** GET refund/{referenceId}: 200 even for FAILED; 404 RESOURCE_NOT_FOUND = never received. */
export function refundQueryResult(a: VendorAnswer): QueryResult {
  if (a.kind === 'no_answer') return { kind: 'unavailable', detail: a.detail };
  if (a.status === 404) return { kind: 'not_found' };
  if (a.status !== 200) return { kind: 'unavailable', detail: errorText(a) };
  const observed = observeRefund(a.json);
  return observed ? { kind: 'observed', observed } : { kind: 'unavailable', detail: 'HTTP 200 without a readable status' };
}

// ---- payouts: the Disbursement product's Transfer -------------------------------------------------
// Sources: the MoMo developer portal's Disbursement API ("Transfer": POST /disbursement/v1_0/transfer
// with X-Reference-Id, X-Callback-Url and the Transfer body { amount, currency, externalId, payee
// { partyIdType, partyId }, payerMessage, payeeNote }, 202 empty; "GetTransferStatus": GET
// /disbursement/v1_0/transfer/{referenceId}, the same Transfer resource with status and reason, 404
// RESOURCE_NOT_FOUND when never received) and MTN-Group/MoMoAPIs_Javascript_sdk (transfer and its status).

/** POST /disbursement/v1_0/transfer body (the portal's Transfer schema). */
export interface MtnTransfer {
  amount: string;
  currency: string;
  externalId: string;
  payee: { partyIdType: 'MSISDN'; partyId: string };
  payerMessage: string;
  payeeNote: string;
}

/** Our payout -> the vendor's body, or why MTN cannot take it (a bank account, an amount not exact). */
export function toTransfer(order: PayoutOrder): MtnTransfer | { refused: string } {
  if (order.paymentMethod !== 'MOBILE_MONEY') return { refused: 'MTN MoMo pays out to mobile money wallets only, not to bank accounts' };
  // MSISDN: the number in international form without the plus sign (the portal's Party schema)
  const msisdn = order.accountNumber.replace(/^\+/, '');
  if (!/^\d{8,15}$/.test(msisdn)) return { refused: 'MTN MoMo pays out to a phone number in international form only' };
  const amount = amountText(order.amountMinor, mtnAmountDecimals(order.currency));
  if (amount === null) return { refused: `MTN MoMo takes ${order.currency} in whole units only` };
  return {
    amount,
    currency: order.currency,
    externalId: order.gatewayReference,
    payee: { partyIdType: 'MSISDN', partyId: msisdn },
    // payerMessage is shown on the merchant's statement, payeeNote to the payee
    payerMessage: plainNote(`PayCollect payout ${order.gatewayReference}`),
    payeeNote: plainNote(order.narration) || plainNote(`Payout ${order.gatewayReference}`),
  };
}

/**
 * The answer to POST transfer, read as requesttopay's (202 accepted; 409 RESOURCE_ALREADY_EXIST = MTN
 * already has this X-Reference-Id: accepted, never a second payment; 400 refused; 401/403/404/5xx: retry
 * under the same reference; no answer: unknown, a status query follows; anything else unknown), with a
 * payout's words.
 */
export function payoutSendResult(a: VendorAnswer): SendResult {
  const r = sendResult(a);
  return r.kind === 'refused' ? { ...r, message: 'The mobile money processor refused the payout' } : r;
}

/** Why a transfer failed (the portal's ErrorReason codes as they apply to money going out). */
const PAYOUT_REASONS: Record<string, string> = {
  NOT_ENOUGH_FUNDS: "The merchant's disbursement account at the processor has too little money",
  PAYER_LIMIT_REACHED: "The merchant's disbursement account at the processor reached its limit",
  PAYEE_NOT_FOUND: 'The phone number has no mobile money account',
  PAYEE_NOT_ALLOWED_TO_RECEIVE: 'The mobile money account cannot receive money',
  NOT_ALLOWED: 'The processor does not allow this payout',
  NOT_ALLOWED_TARGET_ENVIRONMENT: 'The processor does not allow this payout in this environment',
  INVALID_CURRENCY: 'The processor does not take this currency',
  TRANSACTION_CANCELED: 'The payout was cancelled at the processor',
  INTERNAL_PROCESSING_ERROR: 'The processor could not complete the payout',
  SERVICE_UNAVAILABLE: 'The processor could not complete the payout',
};
const PAYOUT_FAILED = 'The processor reported the payout as failed';

/** A Transfer resource (status query answer and callback body) -> what it says; MTN never reverses a transfer by API. */
export function observePayout(body: unknown): Observed<PayoutObservedStatus> | null {
  const o = observeRefund(body);
  if (!o || o.status !== 'FAILED') return o;
  const reason = reasonCode((body as { reason?: unknown }).reason);
  return { ...o, message: (reason && PAYOUT_REASONS[reason]) ?? PAYOUT_FAILED };
}

/** GET transfer/{referenceId}: 200 even for FAILED; 404 RESOURCE_NOT_FOUND = never received. */
export function payoutQueryResult(a: VendorAnswer): QueryResult<PayoutObservedStatus> {
  if (a.kind === 'no_answer') return { kind: 'unavailable', detail: a.detail };
  if (a.status === 404) return { kind: 'not_found' };
  if (a.status !== 200) return { kind: 'unavailable', detail: errorText(a) };
  const observed = observePayout(a.json);
  return observed ? { kind: 'observed', observed } : { kind: 'unavailable', detail: 'HTTP 200 without a readable status' };
}
