// Processors whose customer pays on the processor's own pages (Paystack's checkout, BTCPay's invoice):
// the payment starts when the customer opens our payment_url, not from the send queue, and the
// processor sends the customer back to our return URL. Their webhooks are signed, per processor
// account (so per MID), and verified with the MID's credentials before a byte of them is used.
import type { CardDetails } from '../domain/card';
import type { PaymentMethod } from '../domain/collection';
import type { FieldError } from '../errors';
import type { CallContext, Processor } from './types';

/** What the customer is asked to pay at the processor. */
export interface CheckoutOrder {
  gatewayReference: string;
  /** 1 for the first checkout of a collection; more only after an attempt whose answer was lost */
  attempt: number;
  paymentMethod: PaymentMethod;
  /** in the API's minor units, already checked against the processor's amountDecimals */
  amountMinor: bigint;
  currency: string;
  email: string | null;
  /** our page the processor sends the customer back to */
  returnUrl: string;
  expiresAt: Date;
  now: Date;
}

/**
 * What became of starting a checkout:
 * - redirect: send the customer to `url`; the processor knows the payment as `vendorReference`;
 * - charged: a direct charge was decided at once (no further step): ask the processor for its status;
 * - taken: the processor already holds this attempt's reference: the next attempt has another;
 * - refused: the processor will never take it (bad credentials, a card it declines): the collection fails;
 * - unreachable: no answer; `sent` when the request may have reached the processor, which would then know
 *   it as `vendorReference` (when we chose that name).
 */
export type CheckoutStart =
  | { kind: 'redirect'; url: string; vendorReference: string }
  | { kind: 'charged'; vendorReference: string }
  | { kind: 'taken' }
  | { kind: 'refused'; message: string; detail: string }
  | { kind: 'unreachable'; sent: boolean; detail: string; vendorReference: string | null };

/** A verified webhook: which payment it is about (either may be absent), to be queried, never believed. */
export interface WebhookNote {
  gatewayReference: string | null;
  vendorReference: string | null;
}

export interface ProcessorCheckout {
  /**
   * The checkout lets the customer try again after a decline (Paystack's "Try again" on the same page): a
   * declined attempt is then not the payment's end; it stays PENDING until paid or until our own expiry.
   */
  readonly retryAfterDecline: boolean;
  /** what this processor needs of a request beyond an amount it takes (Paystack: an email) */
  requestErrors(r: { paymentMethod: PaymentMethod; accountEmail: string | null }): FieldError[];
  start(ctx: CallContext, order: CheckoutOrder): Promise<CheckoutStart>;
  /** direct card: one server-to-server charge; the card is never kept, so it is never sent twice */
  chargeCard?(ctx: CallContext, order: CheckoutOrder, card: CardDetails): Promise<CheckoutStart>;
  /** a webhook checked with the MID's credentials; null when its signature does not hold */
  webhook(ctx: CallContext, rawBody: Buffer, header: (name: string) => string | undefined): WebhookNote | null;
}

export type CheckoutProcessor = Processor & { checkout: ProcessorCheckout };

export function hasOwnCheckout(p: Processor): p is CheckoutProcessor {
  return 'checkout' in p && (p as CheckoutProcessor).checkout !== undefined;
}
