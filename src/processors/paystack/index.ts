// Paystack: card with 3-D Secure and online banking on Paystack's hosted checkout, and direct card
// charges whose 3-D Secure step the customer opens from our payment_url. Refunds, full or partial, through
// Paystack's Refund API; payouts through Transfers (a recipient, then the transfer under our reference).
import { unanswered } from '../transport';
import { randomBytes } from 'node:crypto';
import type { ProcessorCheckout, CheckoutOrder, CheckoutStart } from '../checkout';
import type { CallContext, Connector, DisputeConnector, CredentialField, PayoutConnector, PayoutObservedStatus, PayoutOrder, Plan, Processor, QueryResult, RefundConnector, RefundOrder, SettlementConnector, StatusQuery } from '../types';
import { PaystackClient } from './client';
import type { Unreachable } from './client';
import { disputeEventId } from './dispute-transformers';
import { recipientRequest, transferCallbackNote } from './payout-transformers';
import { refundCallbackNote } from './refund-transformers';
import { amountDecimals, gatewayReferenceOf, observe, paystackReference, problems, readWebhook, signatureValid } from './transformers';
import type { ChargeAnswer, InitializeAnswer, PaystackPayment } from './transformers';

export const PAYSTACK_INSTITUTION = 'Paystack';

export const PAYSTACK_CREDENTIALS: CredentialField[] = [
  {
    name: 'secret_key',
    description: 'Secret key of the Paystack integration (sk_test_... or sk_live_...); it also signs Paystack\'s webhooks',
    check: (v) => (/^sk_(test|live)_[A-Za-z0-9]{8,200}$/.test(v) ? null : 'must be a Paystack secret key, sk_test_... or sk_live_...'),
  },
];

export interface PaystackTransport {
  baseUrl: string;
  timeoutMs: number;
}

function payment(order: CheckoutOrder): PaystackPayment {
  return {
    reference: paystackReference(order.gatewayReference, order.attempt),
    amountMinor: order.amountMinor,
    currency: order.currency,
    email: order.email ?? '',
    method: order.paymentMethod === 'BANK' ? 'BANK' : 'CARD',
    returnUrl: order.returnUrl,
  };
}

/** An answer to initialize or charge, as the hosted flow reads it. */
function started(reference: string, a: InitializeAnswer | ChargeAnswer | Unreachable): CheckoutStart {
  switch (a.kind) {
    case 'created':
      return { kind: 'redirect', url: a.authorizationUrl, vendorReference: reference };
    case 'authenticate':
      return { kind: 'redirect', url: a.url, vendorReference: reference };
    case 'reported':
      return { kind: 'charged', vendorReference: reference };
    case 'duplicate':
      return { kind: 'taken' };
    case 'other_step':
      return { kind: 'refused', message: 'The card asks for a PIN or a one-time code: only 3-D Secure cards are accepted', detail: `Paystack asked for ${a.step}` };
    case 'refused':
      return { kind: 'refused', message: 'The payment processor refused the payment', detail: a.message };
    case 'unknown':
      return { kind: 'unreachable', sent: true, detail: a.detail, vendorReference: reference };
    case 'unreachable':
      return { kind: 'unreachable', sent: a.sent, detail: a.detail, vendorReference: reference };
  }
}

/**
 * Refunds: POST /refund with the transaction's reference; no reference of ours is taken, so a send whose
 * answer was lost is unknown (a resend could refund twice) and the query finds it among the transaction's
 * refunds by the merchant note that carries our reference. refund.* webhooks arrive signed on the MID's
 * webhook route like charge events.
 */
function paystackRefunds(client: (ctx: CallContext) => PaystackClient): RefundConnector {
  return {
    async initiateRefund(ctx: CallContext, order: RefundOrder) {
      if (amountDecimals(order.currency) === null) return { kind: 'refused', message: `Paystack does not refund in ${order.currency}`, detail: 'not sent' };
      const a = await client(ctx).refund(order);
      if (a.kind !== 'unreachable') return a;
      return unanswered(a);
    },
    async queryRefund(ctx: CallContext, q: StatusQuery): Promise<QueryResult> {
      const original = q.original;
      const a = q.vendorReference
        ? await client(ctx).fetchRefund(q.vendorReference)
        : original
          ? await client(ctx).findRefund(original.vendorReference ?? original.reference, q.reference)
          : null;
      if (a === null) return { kind: 'unavailable', detail: 'no Paystack refund id and no transaction to look it up by' };
      return a.kind === 'unreachable' ? { kind: 'unavailable', detail: a.detail } : a;
    },
    parseRefundCallback: refundCallbackNote,
  };
}

/**
 * Payouts: POST /transferrecipient (harmless to repeat: no money moves), then POST /transfer from the
 * balance under our reference; verify by that reference settles a lost answer. transfer.* webhooks arrive
 * signed on the MID's webhook route like charge events. An integration that asks for an OTP on transfers
 * cannot pay out by API: refused with what the merchant must turn off.
 */
function paystackPayouts(client: (ctx: CallContext) => PaystackClient): PayoutConnector {
  return {
    async initiatePayout(ctx: CallContext, order: PayoutOrder) {
      const recipient = recipientRequest(order);
      if ('refused' in recipient) return { kind: 'refused', message: recipient.refused, detail: 'not sent' };
      const c = client(ctx);
      const r = await c.createRecipient(recipient);
      if (r.kind === 'unreachable') return { kind: 'retry', detail: `recipient: ${r.detail}` };
      if (r.kind !== 'recipient') return r;
      const a = await c.transfer(order, r.code);
      if (a.kind !== 'unreachable') return a;
      return unanswered(a);
    },
    async queryPayout(ctx: CallContext, q: StatusQuery): Promise<QueryResult<PayoutObservedStatus>> {
      const a = await client(ctx).verifyTransfer(q.reference);
      return a.kind === 'unreachable' ? { kind: 'unavailable', detail: a.detail } : a;
    },
    parsePayoutCallback: transferCallbackNote,
  };
}

/**
 * Disputes: read only. A charge.dispute.* event (signed like charge events, on the MID's webhook route)
 * names the dispute; GET /dispute/:id is what is read (dispute-transformers.ts says why), and GET /dispute
 * pages through the disputes a scheduled poll looks for.
 */
function paystackDisputes(client: (ctx: CallContext) => PaystackClient): DisputeConnector {
  return {
    disputeOfEvent: disputeEventId,
    async fetchDispute(ctx, id) {
      const a = await client(ctx).fetchDispute(id);
      if (a.kind === 'unreachable' || a.kind === 'unreadable') return { kind: 'unavailable', detail: a.detail };
      return a;
    },
    async acceptDispute(ctx, id, amountMinor, message) {
      const a = await client(ctx).acceptDispute(id, amountMinor, message);
      if (a.kind === 'unreachable' || a.kind === 'unreadable') return { kind: 'unavailable', detail: a.detail };
      return a;
    },
    async declineDispute(ctx, id, evidence, file, message) {
      const a = await client(ctx).declineDispute(id, evidence, file, message);
      if (a.kind === 'unreachable' || a.kind === 'unreadable') return { kind: 'unavailable', detail: a.detail };
      return a;
    },
    async listDisputes(ctx, from, page) {
      const a = await client(ctx).listDisputes(from, page);
      if (a.kind === 'unreachable' || a.kind === 'unreadable') return { kind: 'unavailable', detail: a.detail };
      return { kind: 'listed', disputes: a.disputes, more: a.more };
    },
  };
}

/** Settlements: read only, for reconciliation (settlement-transformers.ts says what is read). */
function paystackSettlements(client: (ctx: CallContext) => PaystackClient): SettlementConnector {
  return {
    async listSettlements(ctx, from, _now, page) {
      const a = await client(ctx).listSettlements(from, page);
      if (a.kind !== 'listed') return { kind: 'unavailable', detail: a.detail };
      return { kind: 'listed', settlements: a.settlements, more: a.more };
    },
    async settlementPayments(ctx, id, page) {
      const a = await client(ctx).settlementTransactions(id, page);
      return a.kind === 'listed' ? a : { kind: 'unavailable', detail: a.detail };
    },
  };
}

export function paystackProcessor(t: PaystackTransport): Processor & { checkout: ProcessorCheckout } {
  const client = (ctx: CallContext) => new PaystackClient({ baseUrl: t.baseUrl, secretKey: ctx.credentials.secret_key ?? '', timeoutMs: t.timeoutMs });

  const connector: Connector = {
    disputes: paystackDisputes(client),
    settlements: paystackSettlements(client),
    refunds: paystackRefunds(client),
    payouts: paystackPayouts(client),
    // A hosted checkout starts when the customer opens payment_url (hosted.start): nothing is queued to send.
    initiate: async () => ({ kind: 'retry', detail: 'a Paystack checkout starts when the customer opens payment_url' }),
    async queryStatus(ctx: CallContext, q: StatusQuery): Promise<QueryResult> {
      if (!q.vendorReference) return { kind: 'unavailable', detail: 'no Paystack transaction started yet' };
      const a = await client(ctx).verify(q.vendorReference);
      if (a.kind === 'found') return { kind: 'observed', observed: observe(a) };
      if (a.kind === 'not_found') return { kind: 'not_found' };
      return { kind: 'unavailable', detail: a.kind === 'refused' ? a.message : a.detail };
    },
    // Paystack's webhooks are signed and arrive on the MID's own route (hosted.webhook); anything here is only a prompt.
    parseCallback: () => ({ vendorReference: null, reported: null }),
    async checkCredentials(ctx: CallContext) {
      // An authenticated call about a reference that cannot exist: "not found" means the key was accepted.
      const a = await client(ctx).verify(`PCCHECK${randomBytes(8).toString('hex')}`);
      if (a.kind === 'not_found' || a.kind === 'found') return { ok: true, detail: 'Paystack accepted the secret key' };
      return { ok: false, detail: a.kind === 'refused' ? a.message : a.detail };
    },
  };

  const checkout: ProcessorCheckout = {
    // Paystack's checkout offers "Try again" after a decline, and verify then reads `failed` until it is paid.
    retryAfterDecline: true,
    requestErrors: (r) => problems({ email: r.accountEmail }),
    async start(ctx, order) {
      const p = payment(order);
      return started(p.reference, await client(ctx).initialize(p));
    },
    async chargeCard(ctx, order, card) {
      const p = payment(order);
      return started(p.reference, await client(ctx).charge(p, card));
    },
    webhook(ctx, rawBody, header) {
      if (!signatureValid(rawBody, header('x-paystack-signature'), ctx.credentials.secret_key ?? '')) return null;
      const note = readWebhook(rawBody);
      return { gatewayReference: note ? gatewayReferenceOf(note.reference) : null, vendorReference: note?.reference ?? null };
    },
  };

  return {
    serviceType: 'paystack',
    paymentMethods: ['CARD', 'BANK'],
    credentials: PAYSTACK_CREDENTIALS,
    amountDecimals,
    connector,
    checkout,
    plan(): Plan {
      return { institutionName: PAYSTACK_INSTITUTION, instructions: null, needsPaymentPage: true, scheduledReport: null };
    },
  };
}
