// M-Pesa refunds, pure: the Reversal API, settled by the Transaction Status query; and the reading of
// Daraja's asynchronous Result that payouts share (resultNote).
// Sources: the Daraja portal's "Reversals" and "Transaction Status" pages (developer.safaricom.co.ke/apis/
// Reversal and /TransactionStatus: request and result bodies, result codes, error codes) and the client
// libraries that follow them (jeffnyauke/mpesa-sdk-kotlin TransactionReversalRequest). Both APIs answer
// at once only that the request is accepted; the outcome comes later as a Result posted to ResultURL
// (or a notice to QueueTimeOutURL when the request waited too long in M-Pesa's queue).
import { amountText, parseVendorAmount } from '../amounts';
import type { VendorAnswer } from '../transport';
import type { CallbackNote, Credentials, Observed, ObservedStatus, QueryResult, RefundOrder, SendResult } from '../types';
import { errorText, sendResult } from './transformers';

/** The reversal initiator a MID needs to refund: the API operator and its encrypted password. */
export const REVERSAL_FIELDS = ['initiator_name', 'security_credential'] as const;

export function missingReversalCredentials(credentials: Credentials): string[] {
  return REVERSAL_FIELDS.filter((f) => !credentials[f]);
}

export interface ReversalRequest {
  Initiator: string;
  SecurityCredential: string;
  CommandID: 'TransactionReversal';
  TransactionID: string;
  Amount: number;
  ReceiverParty: string;
  /** "11" for an organisation short code; the misspelling is Daraja's */
  RecieverIdentifierType: '11';
  ResultURL: string;
  QueueTimeOutURL: string;
  Remarks: string;
  Occasion: string;
}

/**
 * Why a payment without a receipt cannot be refunded: its callback was lost (or never said it) and
 * STK Push Query, which confirmed the completion, gives no receipt. Daraja's Transaction Status query
 * finds a payment by its receipt or by the OriginatorConversationID the API returned when the request
 * was made, and STK push returns none (only MerchantRequestID and CheckoutRequestID), so nothing asks
 * M-Pesa for the receipt of an STK payment.
 */
export const RECEIPT_UNKNOWN =
  'M-Pesa receipt unknown: the payment was confirmed without its callback, which alone carries the receipt a reversal names; refund it from the M-Pesa org portal';

/** Remarks: 2 to 100 characters (the Reversals page's parameter table). */
export function remarks(text: string | null, fallback: string): string {
  const plain = (text ?? '').replace(/[^A-Za-z0-9 .,-]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 100);
  return plain.length >= 2 ? plain : fallback;
}

/**
 * Our refund -> the reversal request, or why M-Pesa cannot take it: a reversal names the M-Pesa receipt
 * of the payment (TransactionID) and reverses the amount transacted, whole (the Reversals page: "Amount:
 * the amount transacted"; the SDKs: "the amount transacted in the transaction to be reversed"), so a
 * partial refund is refused rather than sent to fail.
 */
export function toReversal(credentials: Credentials, order: RefundOrder): ReversalRequest | { refused: string } {
  if (!order.original.receipt) return { refused: RECEIPT_UNKNOWN };
  const amount = order.currency === 'KES' ? amountText(order.amountMinor, 0) : null;
  if (amount === null) return { refused: 'M-Pesa refunds whole Kenyan shillings only' };
  if (order.amountMinor !== order.original.amountMinor) return { refused: 'M-Pesa reverses a whole payment only: refund the full amount' };
  return {
    Initiator: credentials.initiator_name,
    SecurityCredential: credentials.security_credential,
    CommandID: 'TransactionReversal',
    TransactionID: order.original.receipt,
    Amount: Number(amount),
    ReceiverParty: credentials.short_code,
    RecieverIdentifierType: '11',
    ResultURL: order.callbackUrl,
    QueueTimeOutURL: order.callbackUrl,
    Remarks: remarks(order.reason, 'Refund'),
    Occasion: order.gatewayReference.slice(0, 100),
  };
}

export interface StatusQueryRequest {
  Initiator: string;
  SecurityCredential: string;
  CommandID: 'TransactionStatusQuery';
  /** the OriginatorConversationID of the reversal (the page's sample spells the field this way) */
  OriginalConversationID: string;
  PartyA: string;
  /** "4": an organisation short code */
  IdentifierType: '4';
  ResultURL: string;
  QueueTimeOutURL: string;
  Remarks: string;
  Occasion: string;
}

export function toStatusQuery(credentials: Credentials, originatorConversationId: string, callbackUrl: string, partyA = credentials.short_code, remark = 'Refund status'): StatusQueryRequest {
  return {
    Initiator: credentials.initiator_name,
    SecurityCredential: credentials.security_credential,
    CommandID: 'TransactionStatusQuery',
    OriginalConversationID: originatorConversationId,
    PartyA: partyA,
    IdentifierType: '4',
    ResultURL: callbackUrl,
    QueueTimeOutURL: callbackUrl,
    Remarks: remark,
    Occasion: remark,
  };
}

/**
 * The answer to the reversal request, read as the STK push's (no idempotency key: a reversal that may
 * have reached M-Pesa is unknown, never resent, since a second reversal of the receipt fails "already
 * reversed"): 200 ResponseCode "0" is accepted, with the OriginatorConversationID the result will name.
 */
export function reversalSendResult(a: VendorAnswer): SendResult {
  if (a.kind === 'answer' && a.status === 200) {
    const b = a.json as { ResponseCode?: unknown; OriginatorConversationID?: unknown } | undefined;
    if (String(b?.ResponseCode) === '0' && typeof b?.OriginatorConversationID === 'string' && b.OriginatorConversationID) {
      return { kind: 'accepted', vendorReference: b.OriginatorConversationID };
    }
    return { kind: 'unknown', detail: errorText(a) };
  }
  const r = sendResult(a);
  return r.kind === 'refused' ? { ...r, message: 'M-Pesa refused the reversal request' } : r;
}

/**
 * The answer to the Transaction Status query: accepted means a Result will follow on the callback URL,
 * so the refund is still PENDING as far as this call knows; anything else is no answer this time.
 */
export function statusQuerySent(a: VendorAnswer): QueryResult {
  if (a.kind === 'no_answer') return { kind: 'unavailable', detail: a.detail };
  const b = a.json as { ResponseCode?: unknown; ConversationID?: unknown } | undefined;
  if (a.status === 200 && String(b?.ResponseCode) === '0') {
    const vendorStatus = `TransactionStatusQuery accepted${typeof b?.ConversationID === 'string' ? ' ' + b.ConversationID : ''}: the result follows on the callback URL`;
    return { kind: 'observed', observed: { status: 'PENDING', vendorStatus, message: null, amountMinor: null, currency: null, unmapped: false } };
  }
  return { kind: 'unavailable', detail: errorText(a) };
}

/**
 * ResultCode of a reversal's Result (the Reversals page's result code table). R000001 "already reversed"
 * is held for an operator, neither failed nor completed: the customer may have the money back already
 * (another reversal, M-Pesa support, the merchant's own org portal), so returning the refund's hold would
 * credit the merchant twice, and completing it would book a reversal that this request did not make.
 */
const REVERSAL_RESULTS: Verdicts<ObservedStatus> = {
  '0': { status: 'COMPLETED', message: null },
  R000001: {
    status: 'PENDING',
    message: 'M-Pesa says this payment was already reversed (by another request, by M-Pesa support or from the merchant\'s M-Pesa portal): held for an operator to check whether the customer has the money back',
    held: true,
  },
  R000002: { status: 'FAILED', message: 'M-Pesa has no payment with this receipt number to reverse' },
  '1': { status: 'FAILED', message: "The merchant's M-Pesa account has too little money for the reversal" },
  '11': { status: 'FAILED', message: "The merchant's M-Pesa short code is not active" },
  '21': { status: 'FAILED', message: 'The M-Pesa API operator is not allowed to reverse payments' },
  '2001': { status: 'FAILED', message: 'M-Pesa refused the reversal initiator name or security credential' },
  '2006': { status: 'FAILED', message: "The merchant's M-Pesa short code is not active" },
  '2028': { status: 'FAILED', message: 'The M-Pesa short code is not permitted to reverse payments' },
  '8006': { status: 'FAILED', message: "The M-Pesa API operator's password is locked" },
};

/**
 * TransactionStatus of a Transaction Status Result, for the reversal it names. "Failed" does not say why,
 * and a reversal M-Pesa refused as already reversed (R000001) reads "Failed" here too: when the status
 * query answers before the reversal's own Result (lost, or slower), failing the refund would return its
 * hold to a merchant whose customer may have the money back. So "Failed" is held for an operator, as
 * R000001 is; the reversal's own Result, if it comes later, settles nothing either: a held refund waits
 * for the operator's decision (docs/contract/refunds.md).
 */
const TRANSACTION_STATUS: Verdicts<ObservedStatus> = {
  Completed: { status: 'COMPLETED', message: null },
  Pending: { status: 'PENDING', message: null },
  Authorised: { status: 'PENDING', message: null },
  Failed: {
    status: 'PENDING',
    message: 'M-Pesa reports the reversal as failed without saying why (it may have been reversed already, by another request, by M-Pesa support or from the merchant\'s M-Pesa portal): held for an operator to check whether the customer has the money back',
    held: true,
  },
  Declined: { status: 'FAILED', message: 'M-Pesa declined the reversal' },
  Cancelled: { status: 'FAILED', message: 'M-Pesa cancelled the reversal' },
  Expired: { status: 'FAILED', message: 'The reversal expired at M-Pesa' },
};

export interface DarajaResult {
  ResultType?: unknown;
  ResultCode?: unknown;
  ResultDesc?: unknown;
  OriginatorConversationID?: unknown;
  ResultParameters?: { ResultParameter?: unknown };
}

/** ResultParameters.ResultParameter as a map (M-Pesa sends one object instead of a list when there is one). */
export function parameters(r: DarajaResult): Map<string, unknown> {
  const list = r.ResultParameters?.ResultParameter;
  const items = Array.isArray(list) ? list : list && typeof list === 'object' ? [list] : [];
  const out = new Map<string, unknown>();
  for (const i of items as { Key?: unknown; Value?: unknown }[]) if (typeof i?.Key === 'string' && !out.has(i.Key)) out.set(i.Key, i.Value);
  return out;
}

const ID = /^[\w-]{1,64}$/;
export const idOf = (v: unknown): string | null => (typeof v === 'string' && ID.test(v) ? v : null);

/** a vendor word's verdict; `held`: the answer settles nothing, an operator decides (message says why) */
export type Verdicts<S extends string> = Record<string, { status: S; message: string | null; held?: true }>;

function verdict<S extends string>(table: Verdicts<S>, word: string, vendorStatus: string, amountMinor: bigint | null): Observed<S | 'PENDING'> {
  const r = table[word];
  if (!r) return { status: 'PENDING', vendorStatus, message: null, amountMinor: null, currency: null, unmapped: true };
  const amount = r.status === 'COMPLETED' ? amountMinor : null;
  return { status: r.status, vendorStatus, message: r.message, amountMinor: amount, currency: amount === null ? null : 'KES', unmapped: false, ...(r.held ? { held: true } : {}) };
}

/**
 * A Result posted to the refund's callback URL, read without trusting it (never throws):
 * - a Transaction Status Result (its parameters carry TransactionStatus): names the reversal by the
 *   OriginatorConversationID parameter;
 * - a Transaction Status query that itself failed has no parameters and looks exactly like a failed
 *   reversal's Result, but names the query's own OriginatorConversationID, never the reversal's: the
 *   caller takes a note's `observed` only when vendorReference is the one the reversal's send returned;
 * - a queue-timeout notice or a Result still waiting for further messages (ResultType 1, the status
 *   page's "1: waiting for further messages"): PENDING;
 * - a reversal's Result: its ResultCode through the table above; the Amount reversed on success.
 */
export function refundCallbackNote(body: unknown): CallbackNote {
  return resultNote(body, REVERSAL_RESULTS, TRANSACTION_STATUS, 'Amount');
}

/**
 * A Daraja Result (of a reversal or a B2C payment, or of the Transaction Status query about one), read
 * through the request's own tables: `amountKey` names the parameter of the amount in the request's own
 * Result (Amount for a reversal, TransactionAmount for B2C); a status Result always says Amount.
 */
export function resultNote<S extends string>(body: unknown, results: Verdicts<S>, statuses: Verdicts<S>, amountKey: string): CallbackNote<S | 'PENDING'> {
  const r = (body as { Result?: DarajaResult } | null)?.Result;
  if (!r || typeof r !== 'object') return { vendorReference: null, reported: null, observed: null };
  const params = parameters(r);
  const code = r.ResultCode === undefined || r.ResultCode === null ? null : String(r.ResultCode);
  const desc = typeof r.ResultDesc === 'string' ? ' ' + r.ResultDesc.slice(0, 200) : '';
  const status = params.get('TransactionStatus');
  if (typeof status === 'string') {
    const amount = parseVendorAmount(params.get('Amount'));
    const vendorReference = idOf(params.get('OriginatorConversationID')) ?? idOf(r.OriginatorConversationID);
    const observed = code === '0' ? verdict(statuses, status, `TransactionStatus ${status}`, amount) : null;
    return { vendorReference, reported: observed?.status === 'COMPLETED' && amount !== null ? { amountMinor: amount, currency: 'KES' } : null, observed };
  }
  const vendorReference = idOf(r.OriginatorConversationID);
  if (code === null) return { vendorReference, reported: null, observed: null };
  if (String(r.ResultType) === '1') {
    return { vendorReference, reported: null, observed: { status: 'PENDING', vendorStatus: `ResultType 1 ResultCode ${code}${desc}`, message: null, amountMinor: null, currency: null, unmapped: false } };
  }
  const observed = verdict(results, code, `ResultCode ${code}${desc}`, parseVendorAmount(params.get(amountKey)));
  return { vendorReference, reported: observed.amountMinor === null ? null : { amountMinor: observed.amountMinor, currency: 'KES' }, observed };
}
