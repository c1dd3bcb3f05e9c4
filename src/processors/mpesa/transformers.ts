// Safaricom M-Pesa Express (STK push), pure: our order -> the Daraja request, Daraja's answers and
// callbacks -> our results, through exhaustive tables. Sources: the Daraja portal's "M-Pesa Express"
// pages (developer.safaricom.co.ke: Simulate, Query, the callback and its result codes) and the
// public samples and libraries that follow them (safaricom/LNMOnlineAndroidSample and its issues,
// neshoj/safaricom-daraja-nodejs, martinmogusu/django-daraja).
import { amountText, parseVendorAmount } from '../amounts';
import { unanswered } from '../transport';
import type { VendorAnswer } from '../transport';
import type { CallbackNote, ConfirmationSent, Credentials, Observed, ObservedStatus, OriginalVerdict, PaymentOrder, PayoutObservedStatus, PayoutOrder, QueryResult, RefundOrder, SendResult } from '../types';

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

function errorText(a: Answered): string {
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


// ---- refunds: the Reversal API, settled by the Transaction Status query ----------------------
// Sources: the Daraja portal's "Reversals" and "Transaction Status" pages (developer.safaricom.co.ke/apis/
// Reversal and /TransactionStatus: request and result bodies, result codes, error codes) and the client
// libraries that follow them (jeffnyauke/mpesa-sdk-kotlin TransactionReversalRequest). Both APIs answer
// at once only that the request is accepted; the outcome comes later as a Result posted to ResultURL
// (or a notice to QueueTimeOutURL when the request waited too long in M-Pesa's queue).

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
function remarks(text: string | null, fallback: string): string {
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

interface DarajaResult {
  ResultType?: unknown;
  ResultCode?: unknown;
  ResultDesc?: unknown;
  OriginatorConversationID?: unknown;
  ResultParameters?: { ResultParameter?: unknown };
}

/** ResultParameters.ResultParameter as a map (M-Pesa sends one object instead of a list when there is one). */
function parameters(r: DarajaResult): Map<string, unknown> {
  const list = r.ResultParameters?.ResultParameter;
  const items = Array.isArray(list) ? list : list && typeof list === 'object' ? [list] : [];
  const out = new Map<string, unknown>();
  for (const i of items as { Key?: unknown; Value?: unknown }[]) if (typeof i?.Key === 'string' && !out.has(i.Key)) out.set(i.Key, i.Value);
  return out;
}

const ID = /^[\w-]{1,64}$/;
const idOf = (v: unknown): string | null => (typeof v === 'string' && ID.test(v) ? v : null);

/** a vendor word's verdict; `held`: the answer settles nothing, an operator decides (message says why) */
type Verdicts<S extends string> = Record<string, { status: S; message: string | null; held?: true }>;

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
function resultNote<S extends string>(body: unknown, results: Verdicts<S>, statuses: Verdicts<S>, amountKey: string): CallbackNote<S | 'PENDING'> {
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

// ---- payouts: B2C (Business to Customer), settled by its Result or the Transaction Status query ----
// Sources: the Daraja portal's "Business To Customer (B2C)" page (developer.safaricom.co.ke/apis/
// BusinessToCustomer: POST /mpesa/b2c/v3/paymentrequest { OriginatorConversationID, InitiatorName,
// SecurityCredential, CommandID, Amount, PartyA, PartyB, Remarks, QueueTimeOutURL, ResultURL, Occasion },
// the acknowledgement { ConversationID, OriginatorConversationID, ResponseCode, ResponseDescription },
// the asynchronous Result with TransactionAmount, TransactionReceipt, ReceiverPartyPublicName, and its
// result codes) and the client libraries that follow it (truehostcloud/mpesa-python-client
// B2CPaymentRequest page: "Amount: whole numbers only", PartyB "the country code (254) without the
// plus sign", BusinessPayment "supports only M-PESA registered customers"; jeffnyauke/mpesa-sdk-kotlin
// B2cResponse).

/** The B2C initiator a MID needs to pay out (the same API operator fields as reversals; it needs the B2C role). */
export function missingPayoutCredentials(credentials: Credentials): string[] {
  return missingReversalCredentials(credentials);
}

/** PartyA of a payout: the B2C (bulk disbursement) short code when the MID names one, else its short code. */
export function b2cShortCode(credentials: Credentials): string {
  return credentials.b2c_short_code || credentials.short_code;
}

export interface B2cRequest {
  /** ours: the payout's reference, the same on every resend, and what the Result and the status query name */
  OriginatorConversationID: string;
  InitiatorName: string;
  SecurityCredential: string;
  CommandID: 'BusinessPayment';
  Amount: number;
  PartyA: string;
  PartyB: string;
  Remarks: string;
  QueueTimeOutURL: string;
  ResultURL: string;
  Occasion: string;
}

/** Our payout -> the B2C request, or why M-Pesa cannot take it (a bank account, not KES, not whole). */
export function toB2c(credentials: Credentials, order: PayoutOrder): B2cRequest | { refused: string } {
  if (order.paymentMethod !== 'MOBILE_MONEY') return { refused: 'M-Pesa pays out to M-Pesa phone numbers only, not to bank accounts' };
  const phone = order.accountNumber.replace(/^\+/, '');
  if (!/^254\d{9}$/.test(phone)) return { refused: 'M-Pesa pays out to a Kenyan phone number in international form (254...) only' };
  const amount = order.currency === 'KES' ? amountText(order.amountMinor, 0) : null;
  if (amount === null) return { refused: 'M-Pesa pays out whole Kenyan shillings only' };
  return {
    OriginatorConversationID: order.reference,
    InitiatorName: credentials.initiator_name,
    SecurityCredential: credentials.security_credential,
    CommandID: 'BusinessPayment',
    Amount: Number(amount),
    PartyA: b2cShortCode(credentials),
    PartyB: phone,
    Remarks: remarks(order.narration, 'Payout'),
    QueueTimeOutURL: order.callbackUrl,
    ResultURL: order.callbackUrl,
    Occasion: order.gatewayReference.slice(0, 100),
  };
}

/**
 * The answer to the B2C request. 200 ResponseCode "0" = accepted; its OriginatorConversationID is ours.
 * A reused OriginatorConversationID (only a resend of ours can reuse it) means M-Pesa has the payment:
 * accepted. A 400 otherwise is refused. An answer that may have reached M-Pesa and cannot be read is
 * unknown, never resent blind: the Transaction Status query by our OriginatorConversationID settles it.
 */
export function payoutSendResult(a: VendorAnswer, reference: string): SendResult {
  if (a.kind === 'answer') {
    const b = a.json as { ResponseCode?: unknown; OriginatorConversationID?: unknown; errorMessage?: unknown } | undefined;
    if (a.status === 200 && String(b?.ResponseCode) === '0') return { kind: 'accepted', vendorReference: idOf(b?.OriginatorConversationID) ?? reference };
    if (a.status === 400 && typeof b?.errorMessage === 'string' && /duplicate.*OriginatorConversationID/i.test(b.errorMessage)) return { kind: 'accepted', vendorReference: reference };
    if (a.status === 200) return { kind: 'unknown', detail: errorText(a) };
  }
  const r = sendResult(a);
  return r.kind === 'refused' ? { ...r, message: 'M-Pesa refused the payout request' } : r;
}

/** The answer to a payout's Transaction Status query: accepted means its Result follows on the callback URL. */
export function payoutStatusQuerySent(a: VendorAnswer): QueryResult<PayoutObservedStatus> {
  return statusQuerySent(a);
}

/** ResultCode of a B2C Result (the B2C page's result codes). */
const B2C_RESULTS: Verdicts<PayoutObservedStatus> = {
  '0': { status: 'COMPLETED', message: null },
  '1': { status: 'FAILED', message: "The merchant's M-Pesa B2C account has too little money" },
  '2': { status: 'FAILED', message: 'The amount is below the M-Pesa minimum' },
  '3': { status: 'FAILED', message: 'The amount is above the M-Pesa maximum' },
  '4': { status: 'FAILED', message: 'The payout would exceed the M-Pesa daily limit' },
  '8': { status: 'FAILED', message: 'The payout would exceed the M-Pesa account balance limit' },
  '11': { status: 'FAILED', message: "The merchant's M-Pesa short code is not active" },
  '21': { status: 'FAILED', message: 'The M-Pesa API operator is not allowed to pay out' },
  '2001': { status: 'FAILED', message: 'M-Pesa refused the initiator name or security credential' },
  '2006': { status: 'FAILED', message: "The merchant's M-Pesa short code is not active" },
  '2028': { status: 'FAILED', message: 'The M-Pesa short code is not permitted to pay out' },
  '2040': { status: 'FAILED', message: 'The phone number is not a registered M-Pesa customer' },
  '8006': { status: 'FAILED', message: "The M-Pesa API operator's password is locked" },
  SFC_IC0003: { status: 'FAILED', message: 'The phone number is not a registered M-Pesa customer' },
};

/** TransactionStatus of a Transaction Status Result, for the payment it names. */
const PAYOUT_TRANSACTION_STATUS: Verdicts<PayoutObservedStatus> = {
  Completed: { status: 'COMPLETED', message: null },
  Pending: { status: 'PENDING', message: null },
  Authorised: { status: 'PENDING', message: null },
  Failed: { status: 'FAILED', message: 'M-Pesa reports the payout as failed' },
  Declined: { status: 'FAILED', message: 'M-Pesa declined the payout' },
  Cancelled: { status: 'FAILED', message: 'M-Pesa cancelled the payout' },
  Expired: { status: 'FAILED', message: 'The payout expired at M-Pesa' },
  // a completed payment reversed afterwards (by Safaricom on the merchant's request)
  Reversed: { status: 'REVERSED', message: 'M-Pesa reversed the payout' },
};

/**
 * A Result posted to the payout's callback URL, read without trusting it (never throws), as a reversal's
 * (refundCallbackNote): the B2C Result names our OriginatorConversationID and on success the
 * TransactionAmount; a Transaction Status Result names it among its parameters; a queue-timeout notice
 * (ResultType 1) is PENDING. The caller takes `observed` only when vendorReference is the payout's own.
 */
export function payoutCallbackNote(body: unknown): CallbackNote<PayoutObservedStatus> {
  const note = resultNote(body, B2C_RESULTS, PAYOUT_TRANSACTION_STATUS, 'TransactionAmount');
  // a Result with no TransactionStatus and a code no B2C Result has (a Transaction Status query that found
  // nothing: R000002) is headed by that query's own OriginatorConversationID, not the payout's: it names no payout
  const r = (body as { Result?: DarajaResult } | null)?.Result;
  if (note.observed?.unmapped && r && typeof r === 'object' && typeof parameters(r).get('TransactionStatus') !== 'string') return { ...note, vendorReference: null };
  return note;
}

// ---- refunds: the receipt confirmed with Transaction Status before the reversal names it ---------
// Sources: the Daraja portal's "Transaction Status" page (developer.safaricom.co.ke/apis/TransactionStatus:
// "To check the status of a transaction, you are required to have either an M-Pesa Receipt number or an
// Originator Conversation ID of the transaction"; TransactionID = the receipt; asynchronous, the Result
// posted to ResultURL) and published Results of a Pay Bill Online payment queried this way, whose
// ResultParameters carry ReceiptNo, Amount (a number, 1.0), TransactionStatus "Completed", ReasonType
// "Pay Bill Online", DebitPartyName "0790422909 - <customer's name>" (the paying customer, phone in
// local form) and CreditPartyName "4149503 - <organisation>" (the short code paid); a client library's
// test reads a DebitPartyName written "<name> - 254711766223", so the phone is looked for on either side.

/** The Transaction Status query of a payment by its receipt (TransactionID), from the collecting short code. */
export function toReceiptStatusQuery(credentials: Credentials, receipt: string, callbackUrl: string): Record<string, string> {
  return {
    Initiator: credentials.initiator_name,
    SecurityCredential: credentials.security_credential,
    CommandID: 'TransactionStatusQuery',
    TransactionID: receipt,
    PartyA: credentials.short_code,
    IdentifierType: '4',
    ResultURL: callbackUrl,
    QueueTimeOutURL: callbackUrl,
    Remarks: 'Receipt check before refund',
    Occasion: 'Refund',
  };
}

/**
 * The answer to that query: accepted names the query's OriginatorConversationID, which its Result names
 * too. Asking is only reading, so anything but a definitive 400 is asked again later.
 */
export function confirmationSent(a: VendorAnswer): ConfirmationSent {
  if (a.kind === 'no_answer') return { kind: 'retry', detail: a.detail };
  const b = a.json as { ResponseCode?: unknown; OriginatorConversationID?: unknown } | undefined;
  const id = idOf(b?.OriginatorConversationID);
  if (a.status === 200 && String(b?.ResponseCode) === '0' && id) return { kind: 'asked', queryReference: id };
  if (a.status === 400 && !tokenRefused(a)) return { kind: 'refused', message: 'M-Pesa refused to look up the payment\'s receipt', detail: errorText(a) };
  return { kind: 'retry', detail: errorText(a) };
}

/** The query a Result answers: its own OriginatorConversationID (the parameter of that name is the payment's). */
export function confirmationAnswers(body: unknown): string | null {
  const r = (body as { Result?: DarajaResult } | null)?.Result;
  return r && typeof r === 'object' ? idOf(r.OriginatorConversationID) : null;
}

/** The last nine digits of a Kenyan phone (07..., 2547..., +2547...), masked digits as '*'; null when there is none. */
function phoneKey(text: string): string | null {
  const m = /(?:\+?254|0)?([17*][\d*]{8})$/.exec(text.replace(/\s/g, ''));
  return m ? m[1] : null;
}

/** Whether a customer named in DebitPartyName is the collection's phone (a digit M-Pesa masks matches any). */
function samePhone(debitParty: string, accountNumber: string | null): boolean {
  const ours = accountNumber ? phoneKey(accountNumber) : null;
  if (!ours || ours.includes('*')) return false;
  return debitParty.split(' - ').some((part) => {
    const theirs = phoneKey(part.trim());
    return theirs !== null && [...theirs].every((c, i) => c === '*' || c === ours[i]);
  });
}

/**
 * The Result of the receipt's query read against the collection and the MID: the refund may name the
 * receipt only when M-Pesa says it is a completed payment of the collection's amount, from the
 * collection's customer, to this MID's short code (or its till). A Result still waiting in M-Pesa's
 * queue (ResultType 1) is asked again; any other failure of the query refuses the refund.
 */
export function judgeOriginal(credentials: Credentials, original: RefundOrder['original'], body: unknown): OriginalVerdict {
  const r = (body as { Result?: DarajaResult } | null)?.Result;
  const receipt = original.receipt ?? '';
  if (!r || typeof r !== 'object') return { verdict: 'wait', detail: 'not a Daraja Result' };
  const code = r.ResultCode === undefined || r.ResultCode === null ? null : String(r.ResultCode);
  const desc = typeof r.ResultDesc === 'string' ? ' ' + r.ResultDesc.slice(0, 200) : '';
  if (String(r.ResultType) === '1') return { verdict: 'wait', detail: `ResultType 1 ResultCode ${code ?? ''}${desc}` };
  const refused = (why: string): OriginalVerdict => ({ verdict: 'refused', message: `M-Pesa does not confirm receipt ${receipt} as this payment: ${why}` });
  if (code !== '0') return refused(`the receipt query answered ResultCode ${code ?? 'none'}${desc}`);
  const params = parameters(r);
  const text = (k: string): string => (typeof params.get(k) === 'string' || typeof params.get(k) === 'number' ? String(params.get(k)) : '');
  if (text('ReceiptNo') && text('ReceiptNo') !== receipt) return refused(`it answered about receipt ${text('ReceiptNo')}`);
  if (text('TransactionStatus') !== 'Completed') return refused(`its status is ${text('TransactionStatus') || 'not given'}`);
  const amount = parseVendorAmount(params.get('Amount'));
  if (amount !== original.amountMinor) return refused(`it was for ${amount === null ? 'no readable amount' : `KES ${amountText(amount, 2)}`}, the collection for KES ${amountText(original.amountMinor, 2)}`);
  const codes = [credentials.short_code, credentials.party_b].filter(Boolean);
  const creditCode = text('CreditPartyName').split(' - ')[0].trim();
  if (!codes.includes(creditCode)) return refused(`it was paid to ${creditCode || 'no named short code'}, not this MID's short code`);
  if (!samePhone(text('DebitPartyName'), original.accountNumber)) return refused("it was paid from another phone than the collection's customer");
  return { verdict: 'confirmed' };
}
