// Paystack (card with 3-D Secure, online banking) as pure functions: our payment -> Paystack's request,
// Paystack's answers -> ours through explicit tables. No I/O here; client.ts does the HTTP.
// Sources (read, not copied): PaystackOSS/openapi at 9678dea (src/assets/openapi: paths/transaction_initialize,
// transaction_verify_{reference}, charge; schemas TransactionInitialize, TransactionInitializeBadRequestModel,
// VerifyResponse, ChargeCreate, Currency) and PaystackOSS/doc-code-snippets at 94af513 (src/api/transactions/
// {initialize,verify}/response.json, src/api/charges/create/response.json, src/doc/payments/webhooks/
// verifying-transaction, src/doc/payments/payment-methods/*-event).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CardDetails } from '../../domain/card';
import type { FieldError } from '../../errors';
import { jsonObject, record, text } from '../vendor-json';
import type { CallbackNote, Observed, PayoutObservedStatus, PayoutOrder, QueryResult, RefundOrder, SendResult } from '../types';

/** Currency.yaml: the currencies Paystack takes; each in its smallest unit (kobo, pesewas, cents). */
export const PAYSTACK_CURRENCIES: readonly string[] = ['GHS', 'KES', 'NGN', 'ZAR', 'USD'];

/** Every status word Paystack's transaction carries (issue 15; the transaction list filter in paths/transaction.yaml). */
export const PAYSTACK_STATUSES = ['success', 'failed', 'abandoned', 'ongoing', 'pending', 'processing', 'queued', 'reversed'] as const;
export type PaystackStatus = (typeof PAYSTACK_STATUSES)[number];

/** Our reading of a Paystack status (the shape of the framework's Observed status, without the amount). */
export interface Mapped {
  status: 'PENDING' | 'COMPLETED' | 'FAILED';
  message: string;
}

/**
 * Paystack status -> ours. `abandoned` is not final at Paystack: a transaction reads `abandoned` from its
 * initialisation until the customer pays (the verify sample before payment), and the customer may still
 * pay on the same checkout; so it stays PENDING and our own expiry ends it. `reversed` is money that went
 * back to the customer: nothing to credit.
 */
const STATUS_TABLE: Record<PaystackStatus, Mapped> = {
  success: { status: 'COMPLETED', message: 'Payment completed' },
  failed: { status: 'FAILED', message: 'The payment was declined' },
  reversed: { status: 'FAILED', message: 'The payment was reversed by the processor' },
  abandoned: { status: 'PENDING', message: 'The customer has not finished the payment' },
  ongoing: { status: 'PENDING', message: 'The customer is completing the payment' },
  pending: { status: 'PENDING', message: 'The payment is being processed' },
  processing: { status: 'PENDING', message: 'The payment is being processed' },
  queued: { status: 'PENDING', message: 'The payment is queued at the processor' },
};

export function isPaystackStatus(s: unknown): s is PaystackStatus {
  return typeof s === 'string' && (PAYSTACK_STATUSES as readonly string[]).includes(s);
}

/** Unknown words are PENDING and flagged `unmapped` (the caller logs them): never a guessed failure. */
export function mapStatus(vendorStatus: string): Mapped & { unmapped: boolean } {
  if (isPaystackStatus(vendorStatus)) return { ...STATUS_TABLE[vendorStatus], unmapped: false };
  return { status: 'PENDING', message: 'The processor reported a status we do not know', unmapped: true };
}

export interface PaystackPayment {
  /** our gateway_reference, or it with an attempt suffix (see paystackReference) */
  reference: string;
  amountMinor: bigint;
  currency: string;
  email: string;
  method: 'CARD' | 'BANK';
  /** where Paystack sends the customer back to us */
  returnUrl: string;
}

/**
 * Paystack refuses a reused reference ("Duplicate Transaction Reference"), so a first attempt whose answer
 * was lost cannot be initialised again under the same reference, and its checkout link is unknown.
 * Later attempts append `.N` (references take `-`, `.`, `=` and alphanumerics: TransactionInitialize.yaml).
 */
export function paystackReference(gatewayReference: string, attempt: number): string {
  return attempt <= 1 ? gatewayReference : `${gatewayReference}.${attempt}`;
}

/** The gateway_reference a Paystack reference belongs to. */
export function gatewayReferenceOf(reference: string): string {
  return reference.split('.')[0];
}

/** Decimal places Paystack takes in a currency (all of its currencies have two), null when it takes none. */
export function amountDecimals(currency: string): number | null {
  return PAYSTACK_CURRENCIES.includes(currency) ? 2 : null;
}

/** What Paystack needs beyond an amount it takes: an email for every transaction (TransactionInitialize.yaml). */
export function problems(p: { email: string | null }): FieldError[] {
  return p.email ? [] : [{ field: 'account_email', message: 'is required by the processor of this payment method' }];
}

/** POST /transaction/initialize body: amount in the smallest unit, our reference, our return URL. */
export function initializeRequest(p: PaystackPayment) {
  return {
    email: p.email,
    amount: Number(p.amountMinor),
    currency: p.currency,
    reference: p.reference,
    callback_url: p.returnUrl,
    channels: p.method === 'CARD' ? ['card'] : ['bank'],
    // Paystack's checkout sends a customer who closes it to metadata.cancel_action.
    metadata: { cancel_action: p.returnUrl },
  };
}

/**
 * POST /charge body for a direct card payment. Raw card fields are accepted only from PCI-DSS certified
 * integrations; Paystack answers `open_url` with the 3-D Secure page to send the customer to.
 */
export function chargeRequest(p: PaystackPayment, card: CardDetails) {
  return {
    email: p.email,
    amount: Number(p.amountMinor),
    currency: p.currency,
    reference: p.reference,
    callback_url: p.returnUrl,
    card: { number: card.card_number, cvv: card.cvv, expiry_month: card.expiry_month, expiry_year: card.expiry_year },
  };
}

export type Unknown = { kind: 'unknown'; detail: string };

export type InitializeAnswer =
  | { kind: 'created'; authorizationUrl: string; accessCode: string }
  | { kind: 'duplicate' }
  | { kind: 'refused'; message: string }
  | Unknown;

/** An answer that will not change on a retry (4xx other than 429): what Paystack said. */
function refusal(httpStatus: number, body: Record<string, unknown> | null): { kind: 'refused'; message: string } | null {
  if (httpStatus < 400 || httpStatus >= 500 || httpStatus === 429) return null;
  return { kind: 'refused', message: text(body?.message) ?? `HTTP ${httpStatus}` };
}

/**
 * The answers initialize and charge share before their own: a reused reference (400 with code
 * duplicate_reference, TransactionInitializeBadRequestModel.yaml's example), or another definitive refusal.
 */
function rejected(httpStatus: number, body: Record<string, unknown> | null): { kind: 'duplicate' } | { kind: 'refused'; message: string } | null {
  if (httpStatus === 400 && (body?.code === 'duplicate_reference' || /duplicate transaction reference/i.test(String(body?.message ?? '')))) {
    return { kind: 'duplicate' };
  }
  return refusal(httpStatus, body);
}

export function readInitialize(httpStatus: number, raw: unknown): InitializeAnswer {
  const body = record(raw);
  const no = rejected(httpStatus, body);
  if (no) return no;
  const data = record(body?.data);
  const authorizationUrl = text(data?.authorization_url);
  const accessCode = text(data?.access_code);
  if (httpStatus === 200 && body?.status === true && authorizationUrl && accessCode && /^https?:\/\//.test(authorizationUrl)) {
    return { kind: 'created', authorizationUrl, accessCode };
  }
  return { kind: 'unknown', detail: `initialize answered HTTP ${httpStatus} without an authorization_url` };
}

export interface Reported {
  vendorStatus: string;
  amountMinor: bigint;
  currency: string;
  gatewayResponse: string | null;
}

export type VerifyAnswer = ({ kind: 'found' } & Reported) | { kind: 'not_found' } | { kind: 'refused'; message: string } | Unknown;

function minor(v: unknown): bigint | null {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : null;
}

/**
 * GET /transaction/verify/:reference. A reference Paystack does not know is 404 (NotFound.yaml) or a 400
 * saying so; a refused key is 401 (Unauthorized.yaml).
 */
export function readVerify(httpStatus: number, raw: unknown): VerifyAnswer {
  const body = record(raw);
  if (httpStatus === 404 || (httpStatus === 400 && /not found/i.test(String(body?.message ?? '')))) return { kind: 'not_found' };
  if (httpStatus === 401 || httpStatus === 403) return { kind: 'refused', message: text(body?.message) ?? `HTTP ${httpStatus}` };
  const data = record(body?.data);
  const status = text(data?.status);
  const amountMinor = minor(data?.amount);
  const currency = text(data?.currency);
  if (httpStatus !== 200 || body?.status !== true || !status || amountMinor === null || !currency) {
    return { kind: 'unknown', detail: `verify answered HTTP ${httpStatus} without a readable transaction` };
  }
  return { kind: 'found', vendorStatus: status, amountMinor, currency, gatewayResponse: text(data?.gateway_response) };
}

/**
 * What Paystack reported, read through the table, with the amount and currency it says were paid: the
 * caller compares those with ours before any credit (a mismatch is held, never credited).
 */
export function observe(r: Reported) {
  const mapped = mapStatus(r.vendorStatus);
  const message = mapped.status === 'FAILED' && r.gatewayResponse ? `${mapped.message}: ${r.gatewayResponse}` : mapped.message;
  return { status: mapped.status, vendorStatus: r.vendorStatus, message, amountMinor: r.amountMinor, currency: r.currency, unmapped: mapped.unmapped };
}

/** The further steps a charge can ask for that a 3-D Secure-only service does not collect (charges/create/response.json). */
const OTHER_STEPS = ['send_pin', 'send_otp', 'send_phone', 'send_birthday', 'send_address', 'pay_offline'] as const;

export type ChargeAnswer =
  | { kind: 'authenticate'; url: string }
  | ({ kind: 'reported' } & Reported)
  | { kind: 'other_step'; step: string }
  | { kind: 'duplicate' }
  | { kind: 'refused'; message: string }
  | Unknown;

/** POST /charge: `open_url` + url is the 3-D Secure step; success/failed come with the transaction. */
export function readCharge(httpStatus: number, raw: unknown): ChargeAnswer {
  const body = record(raw);
  const no = rejected(httpStatus, body);
  if (no) return no;
  const data = record(body?.data);
  const status = text(data?.status);
  if (httpStatus !== 200 || body?.status !== true || !status) return { kind: 'unknown', detail: `charge answered HTTP ${httpStatus} without a status` };
  const url = text(data?.url);
  if (status === 'open_url' && url && /^https?:\/\//.test(url)) return { kind: 'authenticate', url };
  if ((OTHER_STEPS as readonly string[]).includes(status)) return { kind: 'other_step', step: status };
  const amountMinor = minor(data?.amount);
  const currency = text(data?.currency);
  if (isPaystackStatus(status) && amountMinor !== null && currency) {
    return { kind: 'reported', vendorStatus: status, amountMinor, currency, gatewayResponse: text(data?.gateway_response) };
  }
  return { kind: 'unknown', detail: `charge answered status ${status} without a readable transaction` };
}

/** x-paystack-signature: hex HMAC-SHA512 of the raw body keyed with the secret key (webhooks/verifying-transaction). */
export function signature(rawBody: Buffer, secretKey: string): string {
  return createHmac('sha512', secretKey).update(rawBody).digest('hex');
}

export function signatureValid(rawBody: Buffer, header: string | undefined, secretKey: string): boolean {
  if (!header || !/^[0-9a-f]{128}$/i.test(header)) return false;
  const expected = Buffer.from(signature(rawBody, secretKey), 'hex');
  return timingSafeEqual(expected, Buffer.from(header, 'hex'));
}

/** A webhook's event name and transaction reference (`{ event, data: { reference, ... } }`); null when unreadable. */
export function readWebhook(rawBody: Buffer): { event: string; reference: string } | null {
  const body = jsonObject(rawBody);
  const event = text(body?.event);
  const reference = text(record(body?.data)?.reference);
  return event && reference ? { event, reference } : null;
}

// ---- refunds ---------------------------------------------------------------------------------
// Sources: PaystackOSS/openapi at 9678dea (paths/refund.yaml, refund_{id}.yaml; schemas RefundCreate,
// RefundCreateResponse, RefundFetchResponse, RefundListResponseArray), PaystackOSS/doc-code-snippets at
// 94af513 (api/refunds/{create,fetch,list}/response.json, doc/payments/refunds/events/refund-*.json) and
// Paystack's "Refunds" guide (paystack.com/docs/payments/refunds: full or partial, never more than the
// transaction; the refund states and their refund.* events).

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

// ---- payouts: Transfers ------------------------------------------------------------------------------
// Sources: PaystackOSS/openapi at 1ae7fef (schemas TransferRecipientCreate: type nuban | ghipss |
// mobile_money | basa, name, account_number, bank_code required; TransferInitiate: source "balance",
// amount, recipient, reference, reason, currency NGN | ZAR | KES | GHS; paths transfer, transferrecipient,
// transfer_verify_{reference}) and Paystack's "Transfers" guide (paystack.com/docs/transfers: a
// recipient first, then the transfer; the reference "should be a unique identifier (in lowercase)" of
// `-`, `_` and alphanumerics; the states pending, success, failed, reversed, otp, abandoned, blocked,
// rejected, received; the transfer.success, transfer.failed and transfer.reversed events; OTP for
// transfers is an integration setting the merchant turns off on the dashboard to send by API).

/** The currencies Paystack pays out in (TransferInitiate.yaml), each in its smallest unit. */
export const PAYSTACK_PAYOUT_CURRENCIES: readonly string[] = ['NGN', 'GHS', 'KES', 'ZAR'];

/** What a merchant reads when Paystack holds a transfer for a one-time password. */
export const OTP_MESSAGE =
  'Paystack asks for an OTP to finalize transfers: the merchant must turn off "Confirm transfers before sending" (OTP) in the Paystack dashboard (Settings, Preferences) for API payouts';

/** Paystack's transfer reference: lowercase letters, digits, `-` and `_` (a lowercase UUID fits). */
const TRANSFER_REFERENCE = /^[a-z0-9_-]{1,100}$/;

export interface RecipientRequest {
  type: 'nuban' | 'ghipss' | 'basa' | 'mobile_money';
  name: string;
  account_number: string;
  bank_code: string;
  currency: string;
}

/** A phone in international form -> the local number Paystack's mobile money recipients take (0XXXXXXXXX). */
function localPhone(phone: string, country: string): string | null {
  const m = new RegExp(`^\\+?${country}(\\d{9})$`).exec(phone);
  return m ? `0${m[1]}` : null;
}

/**
 * Our payout -> the transfer recipient, or why Paystack cannot take it. A bank account goes by its bank
 * code (nuban in Nigeria, ghipss in Ghana, basa in South Africa); mobile money is offered in Ghana and
 * Kenya, its bank_code the provider's (MTN, VOD, ATL in Ghana; in Kenya M-Pesa, MPESA, when none is given).
 */
export function recipientRequest(order: PayoutOrder): RecipientRequest | { refused: string } {
  if (!PAYSTACK_PAYOUT_CURRENCIES.includes(order.currency)) return { refused: `Paystack does not pay out in ${order.currency}` };
  if (!TRANSFER_REFERENCE.test(order.reference)) return { refused: 'The payout reference is not one Paystack takes (lowercase letters, digits, - and _)' };
  const name = order.accountName.trim().slice(0, 100);
  if (!name) return { refused: 'Paystack needs the account name of the recipient' };
  if (order.paymentMethod === 'BANK') {
    const type = ({ NGN: 'nuban', GHS: 'ghipss', ZAR: 'basa' } as const)[order.currency as 'NGN' | 'GHS' | 'ZAR'];
    if (!type) return { refused: `Paystack pays ${order.currency} out to mobile money only` };
    if (!order.bankCode) return { refused: 'A bank payout needs the bank code' };
    return { type, name, account_number: order.accountNumber, bank_code: order.bankCode, currency: order.currency };
  }
  const country = order.currency === 'GHS' ? '233' : order.currency === 'KES' ? '254' : null;
  if (!country) return { refused: 'Paystack pays out to mobile money in Ghana and Kenya only' };
  const phone = localPhone(order.accountNumber, country);
  if (!phone) return { refused: `The phone number must be in international form (+${country}...)` };
  const bankCode = order.bankCode ?? (order.currency === 'KES' ? 'MPESA' : null);
  if (!bankCode) return { refused: 'A Ghana mobile money payout needs the provider code (MTN, VOD or ATL) as its bank code' };
  return { type: 'mobile_money', name, account_number: phone, bank_code: bankCode, currency: order.currency };
}

/** POST /transferrecipient: 200/201 with the recipient_code; a 4xx (an account Paystack cannot resolve) is refused. */
export function readRecipient(httpStatus: number, raw: unknown): { kind: 'recipient'; code: string } | SendResult {
  const body = record(raw);
  const no = refusal(httpStatus, body);
  if (no) return { kind: 'refused', message: `Paystack refused the recipient: ${no.message}`.slice(0, 300), detail: `HTTP ${httpStatus}` };
  const code = text(record(body?.data)?.recipient_code);
  if ((httpStatus === 200 || httpStatus === 201) && body?.status === true && code && /^RCP_\w+$/.test(code)) return { kind: 'recipient', code };
  // no transfer was made: creating the recipient again is harmless
  return { kind: 'retry', detail: `transferrecipient answered HTTP ${httpStatus} without a recipient_code` };
}

/** POST /transfer body: from the balance, in the smallest unit, under our reference. */
export function transferRequest(order: PayoutOrder, recipient: string) {
  return { source: 'balance', amount: Number(order.amountMinor), currency: order.currency, recipient, reference: order.reference, reason: order.narration.slice(0, 100) };
}

/**
 * The answer to POST /transfer. 200 with the transfer = accepted (its transfer_code is Paystack's id),
 * unless it waits for an OTP: refused with what the merchant must change. A reused reference (only our
 * resend can reuse it) means Paystack has it: accepted, verify settles it. Another 4xx (balance too low,
 * a recipient it will not pay) is refused; 429 and 5xx were not taken: retry. Anything else is unknown:
 * verify by our reference settles it, and a resend under the same reference cannot pay twice.
 */
export function readTransfer(httpStatus: number, raw: unknown): SendResult {
  const body = record(raw);
  const message = text(body?.message) ?? '';
  if (httpStatus === 400 && /duplicate|already exists/i.test(message) && /reference/i.test(message)) return { kind: 'accepted', vendorReference: null };
  const no = refusal(httpStatus, body);
  if (no) return { kind: 'refused', message: `Paystack refused the transfer: ${no.message}`.slice(0, 300), detail: `HTTP ${httpStatus}` };
  if (httpStatus === 429 || httpStatus >= 500) return { kind: 'retry', detail: `HTTP ${httpStatus}${message ? ': ' + message.slice(0, 200) : ''}` };
  const data = record(body?.data);
  const status = text(data?.status);
  if (httpStatus === 200 && body?.status === true && status) {
    if (status === 'otp') return { kind: 'refused', message: OTP_MESSAGE, detail: 'transfer status otp' };
    const code = text(data?.transfer_code);
    return { kind: 'accepted', vendorReference: code && /^TRF_\w+$/.test(code) ? code : null };
  }
  return { kind: 'unknown', detail: `transfer answered HTTP ${httpStatus} without a transfer` };
}

/** Every transfer state (Paystack's Transfers guide), each read as ours. */
export const PAYSTACK_TRANSFER_STATUSES = ['pending', 'received', 'success', 'failed', 'reversed', 'otp', 'abandoned', 'blocked', 'rejected'] as const;
type TransferStatus = (typeof PAYSTACK_TRANSFER_STATUSES)[number];

const TRANSFER_TABLE: Record<TransferStatus, { status: PayoutObservedStatus; message: string | null }> = {
  pending: { status: 'PENDING', message: null },
  received: { status: 'PENDING', message: null },
  success: { status: 'COMPLETED', message: null },
  failed: { status: 'FAILED', message: 'Paystack could not pay the recipient' },
  reversed: { status: 'REVERSED', message: 'Paystack reversed the payout: the money came back to the balance' },
  // never sent: it waits for a code nobody will give, and Paystack abandons it
  otp: { status: 'FAILED', message: OTP_MESSAGE },
  abandoned: { status: 'FAILED', message: 'The transfer was abandoned at Paystack before it was sent' },
  blocked: { status: 'FAILED', message: 'Paystack blocked the transfer' },
  rejected: { status: 'FAILED', message: 'The transfer was rejected at Paystack' },
};

/** A transfer object (verify, or an event's data) -> what it says; null without a status. */
export function observeTransfer(raw: unknown): Observed<PayoutObservedStatus> | null {
  const data = record(raw);
  const status = text(data?.status);
  if (!status) return null;
  const amountMinor = minor(data?.amount);
  const currency = text(data?.currency);
  const mapped = (TRANSFER_TABLE as Record<string, { status: PayoutObservedStatus; message: string | null } | undefined>)[status];
  if (!mapped) return { status: 'PENDING', vendorStatus: status, message: null, amountMinor, currency, unmapped: true };
  const reason = text(data?.gateway_response) ?? text(data?.failures);
  const message = mapped.status === 'FAILED' && status === 'failed' && reason ? `${mapped.message}: ${reason.slice(0, 200)}` : mapped.message;
  return { status: mapped.status, vendorStatus: status, message, amountMinor, currency, unmapped: false };
}

/** GET /transfer/verify/:reference: the transfer; 404 (or a 400 saying not found) = never received. */
export function readTransferVerify(httpStatus: number, raw: unknown): QueryResult<PayoutObservedStatus> {
  const body = record(raw);
  if (httpStatus === 404 || (httpStatus === 400 && /not found/i.test(String(body?.message ?? '')))) return { kind: 'not_found' };
  const observed = httpStatus === 200 && body?.status === true ? observeTransfer(body.data) : null;
  return observed ? { kind: 'observed', observed } : { kind: 'unavailable', detail: `transfer verify answered HTTP ${httpStatus} without a readable transfer` };
}

/**
 * A transfer.* event's body (raw bytes or parsed), read without trusting it (never throws): our reference
 * (the transfer's) as vendorReference, so the caller queries that payout. Its signature is checked with
 * signatureValid on the raw body before this, on the MID's webhook route.
 */
export function transferCallbackNote(body: unknown): CallbackNote<PayoutObservedStatus> {
  const parsed = Buffer.isBuffer(body) ? jsonObject(body) : record(body);
  const event = text(parsed?.event);
  const data = record(parsed?.data);
  if (!event?.startsWith('transfer.') || !data) return { vendorReference: null, reported: null };
  return { vendorReference: text(data.reference), reported: null };
}
