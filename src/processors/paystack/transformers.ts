// Paystack (card with 3-D Secure, online banking) as pure functions: our payment -> Paystack's request,
// Paystack's answers -> ours through explicit tables. No I/O here; client.ts does the HTTP.
// Sources (read, not copied): PaystackOSS/openapi at 9678dea (src/assets/openapi: paths/transaction_initialize,
// transaction_verify_{reference}, charge; schemas TransactionInitialize, TransactionInitializeBadRequestModel,
// VerifyResponse, ChargeCreate, Currency) and PaystackOSS/doc-code-snippets at 94af513 (src/api/transactions/
// {initialize,verify}/response.json, src/api/charges/create/response.json, src/doc/payments/webhooks/
// verifying-transaction, src/doc/payments/payment-methods/*-event).
// Refunds are read in refund-transformers.ts, payouts (Transfers) in payout-transformers.ts.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CardDetails } from '../../domain/card';
import type { FieldError } from '../../errors';
import { jsonObject, record, text } from '../vendor-json';

/** Currency.yaml: the currencies Paystack takes; each in its smallest unit (kobo, pesewas, cents). */
export const PAYSTACK_CURRENCIES: readonly string[] = ['GHS', 'KES', 'NGN', 'ZAR', 'USD'];

/** Every status word Paystack's transaction carries (the transaction list filter in paths/transaction.yaml). */
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
export function refusal(httpStatus: number, body: Record<string, unknown> | null): { kind: 'refused'; message: string } | null {
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

export function minor(v: unknown): bigint | null {
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
