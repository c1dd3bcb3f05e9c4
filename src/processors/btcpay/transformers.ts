// BTCPay Server (crypto) through its Greenfield API, as pure functions: our payment -> an invoice request,
// BTCPay's invoices and webhooks -> ours through an explicit table. No I/O here; client.ts does the HTTP.
// Sources (read, not copied): btcpayserver/btcpayserver at 03345c2, BTCPayServer/wwwroot/swagger/v1/
// swagger.template.invoices.json (CreateInvoiceRequest, InvoiceData, InvoiceStatus, InvoiceAdditionalStatus,
// CheckoutOptions, the orderId filter of GET invoices), swagger.template.webhooks.json (WebhookInvoice*Event,
// the BTCPay-Sig header), swagger.template.json (API_Key: `Authorization: token {token}`), and the state
// changes of BTCPayServer/HostedServices/InvoiceWatcher.cs.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { formatMinor } from '../../domain/money';
import { jsonObject, record, text } from '../vendor-json';
import type { CallbackNote, Observed, RefundSendResult, SettledPayment } from '../types';

export const INVOICE_STATUSES = ['New', 'Processing', 'Settled', 'Expired', 'Invalid'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];
export const ADDITIONAL_STATUSES = ['None', 'PaidLate', 'PaidPartial', 'Marked', 'Invalid', 'PaidOver'] as const;
export type AdditionalStatus = (typeof ADDITIONAL_STATUSES)[number];

export interface Mapped {
  status: 'PENDING' | 'COMPLETED' | 'FAILED';
  message: string;
}

const PENDING_PAYMENT: Mapped = { status: 'PENDING', message: 'Awaiting the customer\'s crypto payment' };
const CONFIRMING: Mapped = { status: 'PENDING', message: 'Paid; awaiting confirmations on the network' };
const SETTLED: Mapped = { status: 'COMPLETED', message: 'Payment completed' };
const UNCONFIRMED: Mapped = { status: 'FAILED', message: 'The payment did not confirm in time' };

/**
 * When a crypto payment counts, by (status, additionalStatus). InvoiceWatcher.cs: an invoice paid in full
 * goes New -> Processing (PaidOver when more was sent), then Settled once the store's confirmations are in,
 * or Invalid when they are not in by the end of monitoring; an unpaid one goes New -> Expired (PaidPartial
 * when part was paid); a full payment after expiry leaves it Expired with PaidLate, and only a merchant's
 * manual marking settles it (Settled + Marked).
 * - COMPLETED only on Settled: confirmed on the network. An overpaid invoice completes for the invoiced
 *   amount; the excess stays in the BTCPay store for the merchant to refund and is never credited.
 * - Underpaid (Expired + PaidPartial): FAILED, nothing credited; the part paid is refunded from BTCPay.
 * - Expired with nothing paid, or paid late: PENDING here. EXPIRED is our own clock (the invoice is given
 *   the collection's remaining lifetime), and a later Settled + Marked is then a late completion.
 */
const TABLE: Record<InvoiceStatus, Mapped | Partial<Record<AdditionalStatus, Mapped>> & { default: Mapped }> = {
  New: { default: PENDING_PAYMENT, PaidPartial: { status: 'PENDING', message: 'Partly paid; awaiting the rest of the payment' } },
  Processing: CONFIRMING,
  Settled: { default: SETTLED, PaidOver: { status: 'COMPLETED', message: 'Payment completed; the amount paid over is not credited' } },
  Expired: {
    default: { status: 'PENDING', message: 'The invoice expired unpaid' },
    PaidPartial: { status: 'FAILED', message: 'Underpaid: the invoice expired with only part of the amount paid; nothing is credited' },
    PaidLate: { status: 'PENDING', message: 'Paid after the invoice expired: held until the merchant marks it settled' },
  },
  Invalid: { default: UNCONFIRMED, Marked: { status: 'FAILED', message: 'The invoice was marked invalid' } },
};

function isOneOf<T extends string>(list: readonly T[], v: unknown): v is T {
  return typeof v === 'string' && (list as readonly string[]).includes(v);
}

/** Unknown words are PENDING and flagged `unmapped` (the caller logs them): never a guessed failure. */
export function mapStatus(status: string, additional: string): Mapped & { unmapped: boolean } {
  if (!isOneOf(INVOICE_STATUSES, status) || !isOneOf(ADDITIONAL_STATUSES, additional)) {
    return { status: 'PENDING', message: 'The processor reported a status we do not know', unmapped: true };
  }
  const row = TABLE[status];
  const mapped = 'default' in row ? (row[additional] ?? row.default) : row;
  return { ...mapped, unmapped: false };
}

export interface InvoiceOrder {
  gatewayReference: string;
  amountMinor: bigint;
  currency: string;
  /** where the checkout sends the customer back to us */
  returnUrl: string;
  /** the collection's remaining lifetime, so that the invoice and the collection expire together */
  expirationMinutes: number;
}

/** POST /api/v1/stores/{storeId}/invoices body: a priced invoice (not top-up) in our currency. */
export function createInvoiceRequest(o: InvoiceOrder) {
  return {
    amount: formatMinor(o.amountMinor),
    currency: o.currency,
    metadata: { orderId: o.gatewayReference },
    checkout: { redirectURL: o.returnUrl, redirectAutomatically: true, expirationMinutes: Math.max(1, o.expirationMinutes), paymentTolerance: 0 },
  };
}

export interface Invoice {
  id: string;
  checkoutLink: string;
  status: string;
  additionalStatus: string;
  amountMinor: bigint;
  currency: string;
  orderId: string | null;
}

export type Unknown = { kind: 'unknown'; detail: string };
export type InvoiceAnswer = ({ kind: 'invoice' } & Invoice) | { kind: 'not_found' } | { kind: 'refused'; message: string } | Unknown;

/** "12.5", "12.50", "12.500000" -> 1250n; null for anything finer than a cent or not a plain decimal. */
export function decimalToMinor(v: unknown): bigint | null {
  const m = typeof v === 'string' ? /^(\d{1,15})(?:\.(\d{0,2})0*)?$/.exec(v) : null;
  return m ? BigInt(m[1]) * 100n + BigInt((m[2] ?? '').padEnd(2, '0')) : null;
}

function invoiceOf(v: unknown): Invoice | null {
  const b = record(v);
  const id = text(b?.id);
  const checkoutLink = text(b?.checkoutLink);
  const status = text(b?.status);
  const amountMinor = decimalToMinor(b?.amount);
  const currency = text(b?.currency);
  if (!id || !checkoutLink || !/^https?:\/\//.test(checkoutLink) || !status || amountMinor === null || !currency) return null;
  return { id, checkoutLink, status, additionalStatus: text(b?.additionalStatus) ?? 'None', amountMinor, currency, orderId: text(record(b?.metadata)?.orderId) };
}

/** ProblemDetails `{code, message}` or ValidationProblemDetails `[{path, message}]`, in a few words. */
function problem(raw: unknown): string {
  if (Array.isArray(raw)) return raw.map((p) => `${record(p)?.path ?? ''}: ${record(p)?.message ?? ''}`).join('; ');
  return text(record(raw)?.message) ?? 'refused';
}

/** Create or get one invoice: 200 InvoiceData; 404 unknown; 400/401/403 will not change on a retry. */
export function readInvoice(httpStatus: number, raw: unknown): InvoiceAnswer {
  if (httpStatus === 404) return { kind: 'not_found' };
  if ([400, 401, 403, 422].includes(httpStatus)) return { kind: 'refused', message: problem(raw) };
  const invoice = httpStatus === 200 ? invoiceOf(raw) : null;
  return invoice ? { kind: 'invoice', ...invoice } : { kind: 'unknown', detail: `invoice answer HTTP ${httpStatus} not readable` };
}

/**
 * GET invoices?status=Settled&startDate=&endDate=&skip=&take= (swagger.template.invoices.json, Invoices_GetInvoices:
 * the dates are Unix seconds of the invoice's creation; an array, no paging meta): the settled invoices of a
 * period as payments of a statement, each by its id at its creation time, for the invoice's `amount` (its price,
 * what we asked for; an overpayment is the customer's). An invoice that cannot be read makes the page unreadable.
 */
export function readSettledInvoices(httpStatus: number, raw: unknown): { kind: 'listed'; payments: SettledPayment[]; count: number } | { kind: 'unreadable'; detail: string } {
  if (httpStatus !== 200 || !Array.isArray(raw)) return { kind: 'unreadable', detail: `invoice list answer HTTP ${httpStatus} not readable` };
  const payments: SettledPayment[] = [];
  for (const v of raw) {
    const b = record(v);
    const id = text(b?.id);
    const amountMinor = decimalToMinor(b?.amount);
    const currency = text(b?.currency);
    const created = typeof b?.createdTime === 'number' && Number.isSafeInteger(b.createdTime) ? new Date(b.createdTime * 1000) : null;
    if (!id || amountMinor === null || amountMinor <= 0n || !currency || !/^[A-Z]{3}$/.test(currency) || !created) return { kind: 'unreadable', detail: 'invoice list holds an unreadable invoice' };
    if (b?.status === 'Settled') payments.push({ reference: id, amountMinor, currency, occurredAt: created });
  }
  return { kind: 'listed', payments, count: raw.length };
}

/** GET invoices?orderId=...: the invoices already made for our reference (BTCPay does not refuse a repeat). */
export function readInvoiceList(httpStatus: number, raw: unknown): { kind: 'list'; invoices: Invoice[] } | { kind: 'refused'; message: string } | Unknown {
  if ([400, 401, 403].includes(httpStatus)) return { kind: 'refused', message: problem(raw) };
  if (httpStatus !== 200 || !Array.isArray(raw)) return { kind: 'unknown', detail: `invoice list answer HTTP ${httpStatus} not readable` };
  const invoices = raw.map(invoiceOf);
  if (invoices.some((i) => i === null)) return { kind: 'unknown', detail: 'invoice list holds an unreadable invoice' };
  return { kind: 'list', invoices: invoices as Invoice[] };
}

/** The invoice read through the table, with the invoiced amount (what a Settled invoice is credited for). */
export function observe(i: Invoice) {
  const mapped = mapStatus(i.status, i.additionalStatus);
  return { status: mapped.status, vendorStatus: `${i.status}/${i.additionalStatus}`, message: mapped.message, amountMinor: i.amountMinor, currency: i.currency, unmapped: mapped.unmapped };
}

/** BTCPay-Sig: `sha256=` + hex HMAC-SHA256 of the raw body keyed with the UTF-8 webhook secret. */
export function signature(rawBody: Buffer, secret: string): string {
  return 'sha256=' + createHmac('sha256', Buffer.from(secret, 'utf8')).update(rawBody).digest('hex');
}

export function signatureValid(rawBody: Buffer, header: string | undefined, secret: string): boolean {
  const m = header ? /^sha256=([0-9a-f]{64})$/i.exec(header) : null;
  if (!m) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(m[1], 'hex'));
}

/** A webhook's type, store, invoice and our orderId (WebhookInvoiceEvent); null when unreadable. */
export function readWebhook(rawBody: Buffer): { type: string; storeId: string; invoiceId: string; orderId: string | null } | null {
  const b = jsonObject(rawBody);
  const type = text(b?.type);
  const storeId = text(b?.storeId);
  const invoiceId = text(b?.invoiceId);
  return type && storeId && invoiceId ? { type, storeId, invoiceId, orderId: text(record(b?.metadata)?.orderId) } : null;
}

// ---- refunds: the invoice refund makes a pull payment the customer claims ----------------------
// Sources (btcpayserver/btcpayserver at 03345c2): swagger.template.invoices.json (Invoices_Refund,
// RefundInvoiceRequest and its refundVariant, ValidationProblemDetails), swagger.template.pull-payments.json
// (PullPaymentData with viewLink and archived, PullPayments_GetPullPayment, PullPayments_GetPayouts with
// includeCancelled, PayoutData, PayoutState), Controllers/GreenField/GreenfieldInvoiceController.cs
// (RefundInvoice: "non-refundable" for an invoice that cannot be refunded; a Custom refund in the invoice's
// own currency is not auto-approved, so the merchant approves the customer's claim in BTCPay) and
// BTCPayServer.Client/Models/WebhookInvoiceEvent.cs (WebhookPayoutEvent: payoutId, pullPaymentId,
// payoutState).

/** The pull payment's description carries our reference: BTCPay takes none, and a lost answer is found by it. */
export function refundDescription(reference: string): string {
  return `PayCollect refund ${reference}`;
}

/** POST .../invoices/{invoiceId}/refund body: a Custom refund of our amount in the invoice's currency. */
export function refundInvoiceRequest(o: { reference: string; gatewayReference: string; amountMinor: bigint; currency: string }) {
  return {
    name: `Refund ${o.gatewayReference}`,
    description: refundDescription(o.reference),
    refundVariant: 'Custom',
    customAmount: formatMinor(o.amountMinor),
    customCurrency: o.currency,
  };
}

export interface PullPayment {
  id: string;
  viewLink: string;
  amountMinor: bigint;
  currency: string;
  archived: boolean;
  description: string | null;
}

function pullPaymentOf(v: unknown): PullPayment | null {
  const b = record(v);
  const id = text(b?.id);
  const viewLink = text(b?.viewLink);
  const amountMinor = decimalToMinor(b?.amount);
  const currency = text(b?.currency);
  if (!id || !viewLink || !/^https?:\/\//.test(viewLink) || amountMinor === null || !currency) return null;
  return { id, viewLink, amountMinor, currency, archived: b?.archived === true, description: text(b?.description) };
}

/**
 * The answer to the invoice refund: 200 PullPaymentData is accepted, with the claim link the customer
 * follows. 400 (a validation problem, or "non-refundable"), 401, 403 and 404 will not change on a resend:
 * refused. 429 was not taken: retry. A 5xx or an unreadable 200 may have made a pull payment, and a resend
 * would make a second one the customer could claim too: unknown (the query looks for it by description).
 */
export function readRefundInvoice(httpStatus: number, raw: unknown): RefundSendResult {
  if ([400, 401, 403, 404, 422].includes(httpStatus)) {
    return { kind: 'refused', message: `BTCPay Server refused the refund: ${httpStatus === 404 ? 'invoice not found' : problem(raw)}`.slice(0, 300), detail: `HTTP ${httpStatus}` };
  }
  if (httpStatus === 429) return { kind: 'retry', detail: 'HTTP 429' };
  const pp = httpStatus === 200 ? pullPaymentOf(raw) : null;
  if (pp) return { kind: 'accepted_with_link', vendorReference: pp.id, claimUrl: pp.viewLink };
  return { kind: 'unknown', detail: `refund answered HTTP ${httpStatus} without a readable pull payment` };
}

/** GET pull-payments/{id}: the pull payment; 404 none; anything else no answer this time. */
export function readPullPayment(httpStatus: number, raw: unknown): { kind: 'pull_payment'; pp: PullPayment } | { kind: 'not_found' } | Unknown {
  if (httpStatus === 404) return { kind: 'not_found' };
  const pp = httpStatus === 200 ? pullPaymentOf(raw) : null;
  return pp ? { kind: 'pull_payment', pp } : { kind: 'unknown', detail: `pull payment answered HTTP ${httpStatus} not readable` };
}

/** GET stores/{storeId}/pull-payments: ours by its description; absent from a readable list: never made. */
export function readPullPaymentList(httpStatus: number, raw: unknown, reference: string): { kind: 'pull_payment'; pp: PullPayment } | { kind: 'not_found' } | Unknown {
  if (httpStatus !== 200 || !Array.isArray(raw)) return { kind: 'unknown', detail: `pull payment list answered HTTP ${httpStatus} not readable` };
  const ours = raw.map(pullPaymentOf).find((pp) => pp?.description === refundDescription(reference));
  return ours ? { kind: 'pull_payment', pp: ours } : { kind: 'not_found' };
}

export const PAYOUT_STATES = ['AwaitingApproval', 'AwaitingPayment', 'InProgress', 'Completed', 'Cancelled'] as const;

export interface Payout {
  state: string;
  /** in the pull payment's currency (originalAmount) */
  amountMinor: bigint | null;
}

/** GET pull-payments/{id}/payouts?includeCancelled=true: the payouts claimed so far. */
export function readPayouts(httpStatus: number, raw: unknown): { kind: 'payouts'; payouts: Payout[] } | { kind: 'not_found' } | Unknown {
  if (httpStatus === 404) return { kind: 'not_found' };
  if (httpStatus !== 200 || !Array.isArray(raw)) return { kind: 'unknown', detail: `payouts answered HTTP ${httpStatus} not readable` };
  const payouts = raw.map((p) => ({ state: text(record(p)?.state) ?? '', amountMinor: decimalToMinor(record(p)?.originalAmount) }));
  return { kind: 'payouts', payouts };
}

/**
 * A refund's state from its pull payment and payouts (PayoutState: AwaitingApproval, AwaitingPayment,
 * InProgress, Completed, Cancelled):
 * - COMPLETED once Completed payouts cover the pull payment's amount (a claim may be split in several);
 * - CANCELLED when the pull payment is archived before that: nothing more can be claimed;
 * - PENDING otherwise: unclaimed, awaiting the merchant's approval or payment, in progress, or claimed in
 *   part; a Cancelled payout leaves the pull payment open for another claim;
 * - a state in no list: PENDING, unmapped.
 */
export function observeRefund(pp: PullPayment, payouts: Payout[]): Observed {
  const states = payouts.map((p) => p.state);
  const vendorStatus = `pull payment ${pp.archived ? 'archived' : 'open'}; payouts: ${states.length ? states.join(', ') : 'none'}`.slice(0, 300);
  const base = { vendorStatus, currency: pp.currency };
  if (states.some((s) => !isOneOf(PAYOUT_STATES, s))) return { ...base, status: 'PENDING', message: null, amountMinor: null, unmapped: true };
  const completed = payouts.filter((p) => p.state === 'Completed').reduce((sum, p) => sum + (p.amountMinor ?? 0n), 0n);
  if (completed >= pp.amountMinor) return { ...base, status: 'COMPLETED', message: null, amountMinor: completed, unmapped: false };
  if (pp.archived) return { ...base, status: 'CANCELLED', message: 'The refund was withdrawn in BTCPay Server before the customer claimed it', amountMinor: null, unmapped: false };
  const message = states.includes('AwaitingApproval')
    ? 'The customer claimed the refund; the merchant approves the payout in BTCPay Server'
    : completed > 0n
      ? 'The customer has claimed part of the refund'
      : states.some((s) => s === 'AwaitingPayment' || s === 'InProgress')
        ? 'The refund is being paid out'
        : 'Waiting for the customer to claim the refund';
  return { ...base, status: 'PENDING', message, amountMinor: null, unmapped: false };
}

/**
 * A payout event's body (raw bytes or parsed; WebhookPayoutEvent), read without trusting it (never
 * throws): the pull payment it belongs to. Its BTCPay-Sig is checked on the MID's webhook route before
 * this; it remains a prompt to query.
 */
export function refundCallbackNote(body: unknown): CallbackNote {
  const b = Buffer.isBuffer(body) ? jsonObject(body) : record(body);
  const type = text(b?.type);
  const id = text(b?.pullPaymentId);
  if (!type?.startsWith('Payout') || !id || !/^[A-Za-z0-9_-]{1,100}$/.test(id)) return { vendorReference: null, reported: null };
  return { vendorReference: id, reported: null };
}
