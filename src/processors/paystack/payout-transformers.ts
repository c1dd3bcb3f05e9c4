// Paystack payouts, pure: Transfers (a recipient, then the transfer under our reference), their answers and
// transfer.* events -> ours.
// Sources: PaystackOSS/openapi at 1ae7fef (schemas TransferRecipientCreate: type nuban | ghipss |
// mobile_money | basa, name, account_number, bank_code required; TransferInitiate: source "balance",
// amount, recipient, reference, reason, currency NGN | ZAR | KES | GHS; paths transfer, transferrecipient,
// transfer_verify_{reference}) and Paystack's "Transfers" guide (paystack.com/docs/transfers: a
// recipient first, then the transfer; the reference "should be a unique identifier (in lowercase)" of
// `-`, `_` and alphanumerics; the states pending, success, failed, reversed, otp, abandoned, blocked,
// rejected, received; the transfer.success, transfer.failed and transfer.reversed events; OTP for
// transfers is an integration setting the merchant turns off on the dashboard to send by API).
import { jsonObject, record, text } from '../vendor-json';
import type { CallbackNote, Observed, PayoutObservedStatus, PayoutOrder, QueryResult, SendResult } from '../types';
import { minor, refusal } from './transformers';

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
