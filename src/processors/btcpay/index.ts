// BTCPay Server: crypto on a BTCPay invoice's checkout page. Self-hosted, so each MID names its server,
// store, API key and webhook secret. Refunds are pull payments the customer claims from a link.
import { unanswered } from '../transport';
import { randomBytes } from 'node:crypto';
import { isoDecimals } from '../../domain/currencies';
import { DAY_MS, dayStart, settledDays } from '../../domain/time';
import type { CheckoutOrder, CheckoutStart, ProcessorCheckout } from '../checkout';
import type { CallContext, Connector, CredentialField, Plan, Processor, QueryResult, RefundConnector, RefundOrder, SettlementConnector, StatusQuery } from '../types';
import { BtcpayClient } from './client';
import { observe, observeRefund, readWebhook, refundCallbackNote, signatureValid } from './transformers';
import type { Invoice } from './transformers';

export const BTCPAY_INSTITUTION = 'BTCPay Server';

const TOKEN = /^[A-Za-z0-9_-]{8,200}$/;

export const BTCPAY_CREDENTIALS: CredentialField[] = [
  {
    name: 'server_url',
    description: 'Base URL of the BTCPay Server, e.g. https://btcpay.shop.example',
    check: (v) => (/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(v) ? null : 'must be an http(s) URL without query or fragment'),
  },
  { name: 'store_id', description: 'Id of the BTCPay store', check: (v) => (TOKEN.test(v) ? null : 'must be 8 to 200 letters, digits, - or _') },
  {
    name: 'api_key',
    description:
      'Greenfield API key with btcpay.store.cancreateinvoice and btcpay.store.canviewinvoices (and, to refund, btcpay.store.cancreatenonapprovedpullpayments and btcpay.store.canviewpullpayments)',
    check: (v) => (TOKEN.test(v) ? null : 'must be 8 to 200 letters, digits, - or _'),
  },
  { name: 'webhook_secret', description: 'Secret of the store webhook pointing at this MID (keys BTCPay-Sig)', check: (v) => (v.length >= 8 ? null : 'must be at least 8 characters') },
];

export interface BtcpayTransport {
  timeoutMs: number;
}

/** Whole minutes left of the collection's life, so the invoice and the collection expire together. */
function minutesLeft(order: CheckoutOrder): number {
  return Math.max(1, Math.floor((order.expiresAt.getTime() - order.now.getTime()) / 60_000));
}

const redirectTo = (i: Invoice): CheckoutStart => ({ kind: 'redirect', url: i.checkoutLink, vendorReference: i.id });

/**
 * Refunds: the invoice refund makes a pull payment; the customer claims it from its link (viewLink) and
 * the store pays the payout. BTCPay takes no reference of ours, so the pull payment's description carries
 * it, and a send whose answer was lost is looked up by it rather than sent again (a second pull payment
 * could be claimed too).
 */
function btcpayRefunds(client: (ctx: CallContext) => BtcpayClient): RefundConnector {
  return {
    async initiateRefund(ctx: CallContext, order: RefundOrder) {
      const invoiceId = order.original.vendorReference;
      if (!invoiceId) return { kind: 'refused', message: 'The payment has no BTCPay invoice to refund', detail: 'not sent' };
      const a = await client(ctx).refundInvoice(invoiceId, order);
      if (a.kind !== 'unreachable') return a;
      return unanswered(a);
    },
    async queryRefund(ctx: CallContext, q: StatusQuery): Promise<QueryResult> {
      const c = client(ctx);
      const found = q.vendorReference ? await c.pullPayment(q.vendorReference) : await c.pullPaymentFor(q.reference);
      if (found.kind === 'not_found') return { kind: 'not_found' };
      if (found.kind !== 'pull_payment') return { kind: 'unavailable', detail: found.detail };
      const payouts = await c.payouts(found.pp.id);
      if (payouts.kind !== 'payouts') return { kind: 'unavailable', detail: payouts.kind === 'not_found' ? 'the pull payment has no payouts list' : payouts.detail };
      // the pull payment's id and claim link, for a refund whose send's answer was lost
      return { kind: 'observed', observed: { ...observeRefund(found.pp, payouts.payouts), vendorReference: found.pp.id, claimUrl: found.pp.viewLink } };
    },
    parseRefundCallback: refundCallbackNote,
  };
}

/** Invoices asked for per page. */
const INVOICE_PAGE = 100;

/**
 * Reconciliation: a BTCPay store pays nobody out, so its "settlement" is a UTC day: the invoices created that
 * day and Settled, listed through the Greenfield API once the day is two days past. A day is known by its date
 * (YYYY-MM-DD), so it is taken in once.
 */
function btcpaySettlements(client: (ctx: CallContext) => BtcpayClient): SettlementConnector {
  return {
    async listSettlements(_ctx, from, now, page) {
      if (page > 1) return { kind: 'listed', settlements: [], more: false };
      return { kind: 'listed', settlements: settledDays(from, now).map((day) => ({ ...day, settled: true, currency: null })), more: false };
    },
    async settlementPayments(ctx, day, page) {
      const start = dayStart(day);
      if (!start) return { kind: 'unavailable', detail: `not a day: ${day}` };
      const a = await client(ctx).settledInvoices(start, new Date(start.getTime() + DAY_MS), (page - 1) * INVOICE_PAGE, INVOICE_PAGE);
      if (a.kind !== 'listed') return { kind: 'unavailable', detail: a.detail };
      return { kind: 'listed', payments: a.payments, more: a.count === INVOICE_PAGE };
    },
  };
}

export function btcpayProcessor(t: BtcpayTransport): Processor & { checkout: ProcessorCheckout } {
  const client = (ctx: CallContext) =>
    new BtcpayClient({
      serverUrl: ctx.credentials.server_url ?? '',
      storeId: ctx.credentials.store_id ?? '',
      apiKey: ctx.credentials.api_key ?? '',
      timeoutMs: t.timeoutMs,
    });

  const connector: Connector = {
    settlements: btcpaySettlements(client),
    refunds: btcpayRefunds(client),
    payouts: null,
    // An invoice is made when the customer opens payment_url (hosted.start): nothing is queued to send.
    initiate: async () => ({ kind: 'retry', detail: 'a BTCPay invoice is made when the customer opens payment_url' }),
    async queryStatus(ctx: CallContext, q: StatusQuery): Promise<QueryResult> {
      if (!q.vendorReference) return { kind: 'unavailable', detail: 'no BTCPay invoice made yet' };
      const a = await client(ctx).invoice(q.vendorReference);
      if (a.kind === 'invoice') return { kind: 'observed', observed: observe(a) };
      if (a.kind === 'not_found') return { kind: 'not_found' };
      return { kind: 'unavailable', detail: a.kind === 'refused' ? a.message : a.detail };
    },
    // BTCPay's webhooks are signed and arrive on the MID's own route (hosted.webhook); anything here is only a prompt.
    parseCallback: () => ({ vendorReference: null, reported: null }),
    async checkCredentials(ctx: CallContext) {
      const a = await client(ctx).invoicesFor(`PCCHECK${randomBytes(8).toString('hex')}`);
      if (a.kind === 'list') return { ok: true, detail: 'BTCPay Server accepted the API key for this store' };
      return { ok: false, detail: a.kind === 'refused' ? a.message : a.detail };
    },
  };

  const checkout: ProcessorCheckout = {
    // an invoice that became Invalid or Expired cannot be paid again: its failure is final
    retryAfterDecline: false,
    requestErrors: () => [],
    /** BTCPay takes a repeated orderId: the invoice already made for our reference is looked up first and reused. */
    async start(ctx, order) {
      const c = client(ctx);
      const found = await c.invoicesFor(order.gatewayReference);
      if (found.kind === 'list' && found.invoices.length > 0) return redirectTo(found.invoices[0]);
      if (found.kind === 'refused') return { kind: 'refused', message: 'The payment processor refused the payment', detail: found.message };
      // only a look-up so far: nothing was made, whatever the answer
      if (found.kind !== 'list') return { kind: 'unreachable', sent: false, detail: found.detail, vendorReference: null };
      const made = await c.createInvoice({
        gatewayReference: order.gatewayReference, amountMinor: order.amountMinor, currency: order.currency, returnUrl: order.returnUrl,
        expirationMinutes: minutesLeft(order),
      });
      if (made.kind === 'invoice') return redirectTo(made);
      if (made.kind === 'refused') return { kind: 'refused', message: 'The payment processor refused the payment', detail: made.message };
      const sent = made.kind !== 'unreachable' || made.sent;
      return { kind: 'unreachable', sent, detail: made.kind === 'not_found' ? 'the store was not found' : made.detail, vendorReference: null };
    },
    webhook(ctx, rawBody, header) {
      if (!signatureValid(rawBody, header('btcpay-sig'), ctx.credentials.webhook_secret ?? '')) return null;
      const note = readWebhook(rawBody);
      if (note && note.storeId !== ctx.credentials.store_id) return { gatewayReference: null, vendorReference: null };
      return { gatewayReference: note?.orderId ?? null, vendorReference: note?.invoiceId ?? null };
    },
  };

  return {
    serviceType: 'btcpay',
    paymentMethods: ['CRYPTO'],
    credentials: BTCPAY_CREDENTIALS,
    amountDecimals: isoDecimals,
    connector,
    checkout,
    plan(): Plan {
      return { institutionName: BTCPAY_INSTITUTION, instructions: null, needsPaymentPage: true, scheduledReport: null };
    },
  };
}
