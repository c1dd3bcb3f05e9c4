// One interface for every processor (hyperswitch connectors, Medusa payment providers). A processor
// says, without any I/O, what a collection routed to it looks like (plan) and which amounts and
// credentials it takes. A real one also has a Connector: the asynchronous calls to the vendor, made
// only by the engine of src/processor-requests/engine.ts, never while a merchant waits.
import type { FinalStatus, Instruction, PaymentMethod } from '../domain/collection';
import type { DisputeEvidence, DisputeFile, ObservedDispute } from '../domain/dispute';

// ---- at request time (pure) --------------------------------------------------------------------

export interface PlanInput {
  paymentMethod: PaymentMethod;
  accountNumber: string | null;
  /** what the customer is asked to pay, as text ("500.00") with its currency */
  amountText: string;
  currency: string;
  gatewayReference: string;
  /** masked card number of a direct card payment */
  cardMasked: string | null;
}

export interface Plan {
  institutionName: string | null;
  instructions: Instruction[] | null;
  /** the payment continues on the hosted pages */
  needsPaymentPage: boolean;
  /** an outcome the processor decides by itself after delayMs (only the sandbox's simulated customer) */
  scheduledReport: { outcome: FinalStatus; delayMs: number } | null;
}

/** One credential a service type needs on its MIDs (MID `credentials`, write-only, sealed at rest). */
export interface CredentialField {
  name: string;
  description: string;
  /** may be left unset */
  optional?: boolean;
  /** a problem with the value, or null when it is acceptable */
  check(value: string): string | null;
}

/** The credentials of one MID, opened from the database: never logged, never returned. */
export type Credentials = Readonly<Record<string, string>>;

export interface Processor {
  readonly serviceType: string;
  /** the payment methods its MIDs may take */
  readonly paymentMethods: readonly PaymentMethod[];
  readonly credentials: readonly CredentialField[];
  /**
   * Decimal places of an amount this processor takes in `currency` (0 = whole units only), or null when
   * it does not take the currency at all. A request it cannot take exactly is refused, never rounded.
   */
  amountDecimals(currency: string): number | null;
  plan(input: PlanInput): Plan;
  /** the vendor's API; null for the built-in simulator, which decides on its own (scheduledReport) */
  readonly connector: Connector | null;
}

// ---- in the workers (asynchronous, over the network) -------------------------------------------

/** Who is calling: the MID (its token cache key) and its opened credentials. */
export interface CallContext {
  midId: number;
  credentials: Credentials;
}

/** A payment to start at the vendor, idempotent on `reference`. */
export interface PaymentOrder {
  /** our reference for this request at the vendor (MTN's X-Reference-Id): the same on every resend */
  reference: string;
  gatewayReference: string;
  /** in the API's minor units (2 decimals), already checked against amountDecimals */
  amountMinor: bigint;
  currency: string;
  accountNumber: string;
  narration: string;
  /** where the vendor may call back; carries the collection's unguessable token */
  callbackUrl: string;
}

/**
 * What became of a send:
 * - accepted: the vendor has the request (also when it says it already had it);
 * - refused: the vendor answered that it will never take it (a definitive 4xx): the collection fails;
 * - retry: the vendor surely did not take it, or resending is harmless: send again on the schedule;
 * - unknown: it may have taken it (a timeout, an answer we could not read): a status query settles it.
 */
export type SendResult =
  | { kind: 'accepted'; vendorReference: string | null }
  | { kind: 'refused'; message: string; detail: string }
  | { kind: 'retry'; detail: string }
  | { kind: 'unknown'; detail: string };

export type ObservedStatus = 'PENDING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

/**
 * A payout's status may also be REVERSED: paid, then taken back by the processor (Paystack's
 * transfer.reversed). Collections never see it, so their tables stay exhaustive over ObservedStatus.
 */
export type PayoutObservedStatus = ObservedStatus | 'REVERSED';

/** A status as the vendor reports it, mapped through the connector's exhaustive table. */
export interface Observed<S extends string = ObservedStatus> {
  status: S;
  /** the vendor's own word(s), for the operator and the logs */
  vendorStatus: string;
  /** for FAILED/CANCELLED: why, in words a merchant can show */
  message: string | null;
  /** what the vendor says was paid, when it says (compared with ours before any credit) */
  amountMinor: bigint | null;
  currency: string | null;
  /** the vendor's word is in no table: read as PENDING, and the caller logs an error line */
  unmapped: boolean;
  /**
   * for a refund the query found by our reference (its send's answer was lost): the vendor's id of it,
   * and the link the customer claims it from when it has one (BTCPay's pull payment), kept as a send's
   * answer would have given them
   */
  vendorReference?: string | null;
  claimUrl?: string | null;
  /**
   * the answer settles nothing by itself and an operator must decide (M-Pesa's reversal "already
   * reversed"): status is PENDING, message the reason the request is held with
   */
  held?: boolean;
}

/**
 * What a status query learned:
 * - observed: the vendor's answer;
 * - not_found: the vendor has no such request (it never received it: it may be sent again);
 * - unavailable: no usable answer this time (network, 5xx, expired token twice, nothing to ask with).
 */
export type QueryResult<S extends string = ObservedStatus> =
  | { kind: 'observed'; observed: Observed<S> }
  | { kind: 'not_found' }
  | { kind: 'unavailable'; detail: string };

/** The request as stored, for a status query. */
export interface StatusQuery {
  reference: string;
  /** the vendor's own id of the request when it gave one (M-Pesa's CheckoutRequestID) */
  vendorReference: string | null;
  /**
   * where an asynchronous status query's result is sent (M-Pesa's Transaction Status query answers on
   * a ResultURL): the request's own callback URL. Refunds fill it; a connector that needs it and has
   * none answers `unavailable`.
   */
  callbackUrl?: string;
  /**
   * for a refund: the collection refunded, as in its RefundOrder. A vendor that takes no reference of
   * ours for a refund (Paystack) finds one whose answer was lost among that payment's refunds.
   */
  original?: RefundOrder['original'];
}

/**
 * What a callback body says, read without trusting it: a callback only prompts a status query.
 * vendorReference lets a request whose send outcome was unknown be queried; reported is what the
 * vendor's message says was paid, when the status query itself does not say (compared before credit).
 */
export interface CallbackNote<S extends string = ObservedStatus> {
  vendorReference: string | null;
  reported: { amountMinor: bigint; currency: string | null } | null;
  /**
   * What the body says became of the request, for a vendor whose only account of it is an asynchronous
   * result (M-Pesa's Reversal and Transaction Status results: no query answers synchronously). The caller
   * may take it as the answer only when it came to the request's own unguessable callback URL and names
   * the vendorReference the send was given; every other connector leaves it unset (a prompt to query).
   */
  observed?: Observed<S> | null;
  /**
   * the refunded payment's reference at the vendor, when the body names it: Paystack's refund.processed
   * and refund.failed events carry the transaction_reference but not always the refund's id, so the
   * caller prompts a query of that payment's refunds in flight.
   */
  originalReference?: string | null;
  /**
   * the vendor's receipt of the completed payment when the body names one (M-Pesa's MpesaReceiptNumber):
   * kept with the request, never trusted; a refund confirms it with the vendor before naming it
   */
  receipt?: string | null;
}

export interface CredentialCheck {
  ok: boolean;
  /** what the vendor answered, safe to show the operator (never a secret) */
  detail: string;
}

// ---- money out: refunds (issue: refunds; disbursements reuse the same shape) ----------------------

/** A refund of (part of) a completed collection, idempotent on `reference`. */
export interface RefundOrder {
  /** our reference for this refund at the vendor: the same on every resend */
  reference: string;
  /** the refund's gateway reference (ours, shown to the merchant) */
  gatewayReference: string;
  /** the collection being refunded, as it was sent to the vendor */
  original: {
    /** our reference of the collection's request at the vendor (MTN's X-Reference-Id, Paystack's reference) */
    reference: string;
    /** the vendor's id of the collection when it gave one (M-Pesa's CheckoutRequestID, BTCPay's invoice id) */
    vendorReference: string | null;
    /** the vendor's receipt of the completed payment when it gave one (M-Pesa's MpesaReceiptNumber) */
    receipt: string | null;
    /** what the collection asked for, in minor units and its currency */
    amountMinor: bigint;
    /** the customer's number or address, as the collection had it */
    accountNumber: string | null;
  };
  /** what to give back, in the API's minor units (2 decimals) and the collection's currency */
  amountMinor: bigint;
  currency: string;
  reason: string | null;
  /** where the vendor may call back about this refund */
  callbackUrl: string;
}

/** What a refund's send became; `accepted` may carry a link the customer follows to claim it (BTCPay). */
export type RefundSendResult = SendResult | { kind: 'accepted_with_link'; vendorReference: string | null; claimUrl: string };

/** What became of asking the processor about the refunded payment (an asynchronous answer follows on the callback URL). */
export type ConfirmationSent =
  | { kind: 'asked'; queryReference: string }
  | { kind: 'refused'; message: string; detail: string }
  | { kind: 'retry'; detail: string };

/** What the processor's answer about the refunded payment means for the refund. */
export type OriginalVerdict = { verdict: 'confirmed' } | { verdict: 'wait'; detail: string } | { verdict: 'refused'; message: string };

/**
 * A processor whose refund names the payment by something only a callback gave us (M-Pesa's receipt):
 * before the refund is sent, the processor is asked about that payment and the refund goes out only
 * when the answer matches the collection, so a forged callback never makes us refund another payment.
 */
export interface OriginalCheck {
  /** asks about order.original; the answer comes to order.callbackUrl naming queryReference */
  ask(ctx: CallContext, order: RefundOrder): Promise<ConfirmationSent>;
  /** never throws: the id of the query a callback body answers, or null when it answers no such query */
  answers(body: unknown): string | null;
  /** the answer (named by answers) read against the collection and the MID */
  judge(credentials: Credentials, original: RefundOrder['original'], body: unknown): OriginalVerdict;
}

/** A processor's refunds: the same rules as collections (written first, sent by a worker, unknown settled by a query). */
export interface RefundConnector {
  /** set when the payment must be confirmed with the processor before a refund is sent */
  readonly originalCheck?: OriginalCheck;
  /** set when a refund gives back the whole payment or nothing (M-Pesa's reversal): checked at request time (amounts.ts) */
  readonly wholePaymentOnly?: boolean;
  initiateRefund(ctx: CallContext, order: RefundOrder): Promise<RefundSendResult>;
  /** the refund's status: COMPLETED once the money reached the customer, FAILED with a reason */
  queryRefund(ctx: CallContext, query: StatusQuery): Promise<QueryResult>;
  /** never throws: what a refund callback names (a prompt to query, never proof) */
  parseRefundCallback(body: unknown): CallbackNote;
}

// ---- money out: payouts (issue: disbursements) ------------------------------------------------------

/** A payout from a merchant's wallet to a phone or a bank account, idempotent on `reference`. */
export interface PayoutOrder {
  /** our reference for this payout at the vendor (MTN's X-Reference-Id, M-Pesa's OriginatorConversationID, Paystack's reference): the same on every resend */
  reference: string;
  /** the disbursement's gateway reference (ours, shown to the merchant) */
  gatewayReference: string;
  /** in the API's minor units (2 decimals), already checked against amountDecimals */
  amountMinor: bigint;
  currency: string;
  paymentMethod: 'MOBILE_MONEY' | 'BANK';
  /** a phone in international form (mobile money) or a bank account number */
  accountNumber: string;
  /** the bank's code for BANK; null for mobile money */
  bankCode: string | null;
  accountName: string;
  narration: string;
  /** where the vendor may call back about this payout; carries the disbursement's unguessable token */
  callbackUrl: string;
}

/**
 * A processor's payouts: the same rules as refunds (written first, sent by a worker with our own
 * reference, an unknown outcome settled by queryPayout and never re-sent under a new reference).
 */
export interface PayoutConnector {
  initiatePayout(ctx: CallContext, order: PayoutOrder): Promise<SendResult>;
  /** COMPLETED once the money reached the payee, FAILED with a reason, REVERSED when paid then taken back */
  queryPayout(ctx: CallContext, query: StatusQuery): Promise<QueryResult<PayoutObservedStatus>>;
  /** never throws: what a payout callback names (a prompt to query, never proof) */
  parsePayoutCallback(body: unknown): CallbackNote<PayoutObservedStatus>;
}

/**
 * Card disputes a processor reports (docs/contract/disputes.md): read only, each answer in our words.
 * A processor without chargebacks (mobile money, bank, crypto) has none.
 */
export interface DisputeConnector {
  /** the processor's word on a dispute named by an event that passed the signature check; null for any other body */
  disputeOfEvent(rawBody: Buffer): string | null;
  fetchDispute(ctx: CallContext, id: string): Promise<{ kind: 'found'; dispute: ObservedDispute } | { kind: 'not_found' } | { kind: 'unavailable'; detail: string }>;
  /** one page (1-based) of the disputes opened since `from`, newest first; `more` when another page follows */
  listDisputes(ctx: CallContext, from: Date, page: number): Promise<{ kind: 'listed'; disputes: ObservedDispute[]; more: boolean } | { kind: 'unavailable'; detail: string }>;
  /** the merchant accepts the dispute for `amountMinor` (the whole, or a part), with a message to the processor */
  acceptDispute(ctx: CallContext, id: string, amountMinor: bigint, message: string): Promise<{ kind: 'done' } | { kind: 'refused'; message: string } | { kind: 'unavailable'; detail: string }>;
  /** the merchant declines the dispute: its evidence, then the file, then the decline with its message (nothing refunded); absent where disputes cannot be contested by API (the sandbox's issuer) */
  declineDispute?(ctx: CallContext, id: string, evidence: DisputeEvidence, file: DisputeFile, message: string): Promise<{ kind: 'done' } | { kind: 'refused'; message: string } | { kind: 'unavailable'; detail: string }>;
}

/** A settlement: money the processor paid out to the merchant's bank account, made of payments. */
export interface ObservedSettlement {
  /** the processor's id of the settlement */
  id: string;
  /** paid out, its list of payments final; false while the processor is still making it */
  settled: boolean;
  /** its currency, when a settlement has one */
  currency: string | null;
  settledAt: Date | null;
  /** the period it accounts for in full, when it is a period (a day of a store's invoices): a payment of ours in it and not in it is missing */
  covers?: { from: Date; to: Date };
}

/** One payment a settlement paid out: the processor's reference of it and what the customer paid. */
export interface SettledPayment {
  reference: string;
  /** a reversal's: the reference of the payment it takes back */
  reverses?: string;
  amountMinor: bigint;
  currency: string;
  occurredAt: Date;
}

type Listed<K extends string, T> = { kind: 'listed'; more: boolean } & { [key in K]: T[] };

/**
 * The settlements a processor reports through its API (docs/reconciliation.md), read for reconciliation:
 * read only, each answer in our words. A processor whose statements come as files has none.
 */
export interface SettlementConnector {
  /** one page (1-based) of the settlements made since `from` (`now` is the time of asking) */
  listSettlements(ctx: CallContext, from: Date, now: Date, page: number): Promise<Listed<'settlements', ObservedSettlement> | { kind: 'unavailable'; detail: string }>;
  /** one page (1-based) of the payments settlement `id` paid out; unavailable when a page cannot be read whole */
  settlementPayments(ctx: CallContext, id: string, page: number): Promise<Listed<'payments', SettledPayment> | { kind: 'unavailable'; detail: string }>;
}

export interface Connector {
  /** settlements read through the processor's API; absent when its statements come as files */
  readonly settlements?: SettlementConnector;
  /** card disputes at this processor; absent when it has no chargebacks */
  readonly disputes?: DisputeConnector;
  /** refunds through this processor, or null when it offers none */
  readonly refunds: RefundConnector | null;
  /** payouts through this processor, or null when it offers none */
  readonly payouts: PayoutConnector | null;
  initiate(ctx: CallContext, order: PaymentOrder): Promise<SendResult>;
  queryStatus(ctx: CallContext, query: StatusQuery): Promise<QueryResult>;
  /** never throws: a body it cannot read is an empty note (still a prompt to query) */
  parseCallback(body: unknown): CallbackNote;
  /** fetch a token with the MID's credentials (operator operation checkMidCredentials) */
  checkCredentials(ctx: CallContext): Promise<CredentialCheck>;
}

/** The plan of a phone prompt (MTN MoMo, M-Pesa Express): the prompt, how the customer approves it, and the webhook. */
export function promptPlan(institutionName: string, prompt: string, approval: string): Plan {
  return {
    institutionName,
    needsPaymentPage: false,
    scheduledReport: null,
    instructions: [
      { step: '1', description: prompt },
      { step: '2', description: approval },
      { step: '3', description: 'The result is sent to your webhook; you can also query the collection by gateway_reference.' },
    ],
  };
}
