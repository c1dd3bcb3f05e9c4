// M-Pesa payouts, pure: B2C (Business to Customer), settled by its Result or the Transaction Status query,
// both read as a reversal's (refund-transformers.ts).
// Sources: the Daraja portal's "Business To Customer (B2C)" page (developer.safaricom.co.ke/apis/
// BusinessToCustomer: POST /mpesa/b2c/v3/paymentrequest { OriginatorConversationID, InitiatorName,
// SecurityCredential, CommandID, Amount, PartyA, PartyB, Remarks, QueueTimeOutURL, ResultURL, Occasion },
// the acknowledgement { ConversationID, OriginatorConversationID, ResponseCode, ResponseDescription },
// the asynchronous Result with TransactionAmount, TransactionReceipt, ReceiverPartyPublicName, and its
// result codes) and the client libraries that follow it (truehostcloud/mpesa-python-client
// B2CPaymentRequest page: "Amount: whole numbers only", PartyB "the country code (254) without the
// plus sign", BusinessPayment "supports only M-PESA registered customers"; jeffnyauke/mpesa-sdk-kotlin
// B2cResponse).
import { amountText } from '../amounts';
import type { VendorAnswer } from '../transport';
import type { CallbackNote, Credentials, PayoutObservedStatus, PayoutOrder, QueryResult, SendResult } from '../types';
import { idOf, missingReversalCredentials, parameters, remarks, resultNote, statusQuerySent } from './refund-transformers';
import type { DarajaResult, Verdicts } from './refund-transformers';
import { errorText, sendResult } from './transformers';

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
