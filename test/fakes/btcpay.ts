// A fake BTCPay Server (Greenfield API) over real HTTP: invoices, a checkout page, the way back, confirmations,
// expiry, and signed webhooks with redeliveries. Reproduced behaviours and their sources (btcpayserver/btcpayserver
// at 03345c2):
// - `Authorization: token <api key>`; none or a wrong one is 401 ProblemDetails (swagger.template.json API_Key);
// - POST /api/v1/stores/{storeId}/invoices: amount as a decimal string, currency, metadata.orderId,
//   checkout.{redirectURL, redirectAutomatically, expirationMinutes (default 15), monitoringMinutes (default 1440)};
//   400 ValidationProblemDetails `[{path, message}]` on bad input; 200 InvoiceData with checkoutLink, status New
//   (swagger.template.invoices.json: CreateInvoiceRequest, CheckoutOptions, InvoiceData);
// - a repeated orderId is not refused: it makes another invoice; GET invoices?orderId= finds them (same file);
// - GET /api/v1/stores/{storeId}/invoices/{invoiceId}; 404 when unknown (same file);
// - GET invoices filters by status (repeatable), startDate and endDate (Unix seconds of creation, both
//   inclusive) and pages by skip and take, newest first, a bare array with no paging meta (same file,
//   Invoices_GetInvoices);
// - states (HostedServices/InvoiceWatcher.cs): a full payment New -> Processing (PaidOver when more), then
//   Settled when confirmed, or Invalid when not confirmed before monitoring ends; a part payment stays New with
//   PaidPartial; expiry New -> Expired (PaidPartial kept); a full payment after expiry: Expired + PaidLate;
//   a manual marking: Settled or Invalid with Marked;
// - the checkout sends the customer to redirectURL once paid, at once when redirectAutomatically
//   (CheckoutOptions), with {InvoiceId} and {OrderId} replaced;
// - webhooks InvoiceReceivedPayment, InvoiceProcessing, InvoiceSettled {overPaid, manuallyMarked},
//   InvoiceExpired {partiallyPaid}, InvoiceInvalid {manuallyMarked} with deliveryId, webhookId,
//   originalDeliveryId, isRedelivery, timestamp, storeId, invoiceId, metadata (swagger.template.webhooks.json);
//   body serialised indented, `BTCPay-Sig: sha256=<hex HMAC-SHA256(UTF-8 secret, body)>`; redelivered on 5xx,
//   408, 429 or no answer, after 10 s, 1 min, then 10 min six times (Plugins/Webhooks/WebhookSender.cs; here the
//   delays are the fake's `redeliveryMs`).
// - refunds (Controllers/GreenField/GreenfieldInvoiceController.cs RefundInvoice; swagger.template.invoices.json
//   Invoices_Refund, RefundInvoiceRequest; swagger.template.pull-payments.json): POST
//   /api/v1/stores/{storeId}/invoices/{invoiceId}/refund with refundVariant (required) and, for Custom,
//   customAmount > 0 and customCurrency; an invoice that cannot be refunded is 400 { code: "non-refundable",
//   message: "Cannot refund this invoice" } (here: refundable once paid, i.e. Settled, Invalid with a payment,
//   or Expired paid in part or late, as InvoiceState.CanRefund); bad fields 400 ValidationProblemDetails;
//   200 PullPaymentData { id, name, description, currency, amount, autoApproveClaims, archived, viewLink }.
//   RefundInvoice does not compare a Custom amount with what was paid: neither does the fake. A Custom
//   refund in another currency than the payment's crypto is not auto-approved: a claim waits AwaitingApproval
//   until the merchant approves it. GET /api/v1/pull-payments/{id} (public; 404 unknown), GET
//   /api/v1/pull-payments/{id}/payouts (public; cancelled ones only with includeCancelled=true), GET
//   /api/v1/stores/{storeId}/pull-payments (archived ones only with includeArchived=true), DELETE
//   /api/v1/pull-payments/{id} archives. Payouts go AwaitingApproval -> AwaitingPayment -> InProgress ->
//   Completed, or Cancelled (PayoutState), each change sent as PayoutCreated / PayoutApproved /
//   PayoutUpdated { payoutId, pullPaymentId, payoutState } (WebhookPayoutEvent,
//   Plugins/Webhooks/TriggerProviders/PayoutTriggerProvider.cs).
// Not BTCPay: the `/__fake/*` control routes, the buttons that play the customer's wallet (payments are
// counted in the invoice's own currency), the claim page's form (the customer's destination is not
// checked), garbageRefund, and `sawPaid`: the tests' shortcut that records many invoices at once as paid
// and confirmed (Settled), with no checkout, payment or webhook, as the store would list them afterwards.
import { createHmac, randomBytes } from 'node:crypto';
import type http from 'node:http';
import { esc, FAKE_MODES, FakeServer, htmlPage, parseJson } from './web';
import type { FakeMode } from './web';

export interface FakeInvoice {
  id: string;
  storeId: string;
  /** in cents of the invoice currency */
  amountCents: number;
  paidCents: number;
  currency: string;
  status: 'New' | 'Processing' | 'Settled' | 'Expired' | 'Invalid';
  additionalStatus: 'None' | 'PaidLate' | 'PaidPartial' | 'Marked' | 'Invalid' | 'PaidOver';
  metadata: Record<string, unknown>;
  redirectURL: string | null;
  redirectAutomatically: boolean;
  createdTime: number;
  expirationTime: number;
  monitoringExpiration: number;
}

export interface FakePullPayment {
  id: string;
  invoiceId: string;
  name: string;
  description: string;
  currency: string;
  amountCents: number;
  autoApproveClaims: boolean;
  archived: boolean;
}

export type FakePayoutState = 'AwaitingApproval' | 'AwaitingPayment' | 'InProgress' | 'Completed' | 'Cancelled';

export interface FakePayout {
  id: string;
  pullPaymentId: string;
  destination: string;
  amountCents: number;
  state: FakePayoutState;
}

export interface FakeBtcpayOptions {
  storeId?: string;
  apiKey?: string;
  webhookSecret?: string;
  webhookUrl?: string | null;
  /** delay before the first delivery and each redelivery */
  redeliveryMs?: number[];
  /** how long a full payment waits for its confirmations before Settled; null = until confirm() */
  confirmAfterMs?: number | null;
}

const page = (title: string, body: string) => htmlPage('Fake BTCPay Server', title, body);
/** WebhookSender.cs: at once, then after 10 s, 1 min, and six times 10 min. */
export const BTCPAY_REDELIVERY_MS = [0, 10_000, 60_000, ...Array<number>(6).fill(600_000)];
const DECIMAL = /^\d{1,15}(\.\d{1,8})?$/;

function cents(amount: string): number {
  const [whole, fraction = ''] = amount.split('.');
  return Number(whole) * 100 + Math.round(Number(`0.${fraction || '0'}`) * 100);
}

function decimal(c: number): string {
  return `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
}

export class FakeBtcpay extends FakeServer {
  readonly storeId: string;
  readonly apiKey: string;
  readonly webhookSecret: string;
  webhookUrl: string | null;
  redeliveryMs: number[];
  confirmAfterMs: number | null;
  readonly calls: { method: string; path: string; status: number }[] = [];
  private readonly invoices = new Map<string, FakeInvoice>();
  private readonly webhookId = randomBytes(8).toString('hex');
  readonly pullPayments = new Map<string, FakePullPayment>();
  readonly payouts = new Map<string, FakePayout>();
  /** refunds carried out whose answer is a 200 that is not JSON */
  garbageRefund = 0;
  /** the tests' control (not BTCPay): an invoice list asked from one of these times (Unix seconds) is answered 503, as mode `error` answers */
  readonly unavailableFrom = new Set<number>();

  constructor(o: FakeBtcpayOptions = {}) {
    super();
    this.storeId = o.storeId ?? 'Fk' + randomBytes(16).toString('hex');
    this.apiKey = o.apiKey ?? randomBytes(20).toString('hex');
    this.webhookSecret = o.webhookSecret ?? randomBytes(16).toString('base64url');
    this.webhookUrl = o.webhookUrl ?? null;
    this.redeliveryMs = o.redeliveryMs ?? [0, 200, 400, 800];
    this.confirmAfterMs = o.confirmAfterMs === undefined ? 300 : o.confirmAfterMs;
  }

  invoice(id: string): FakeInvoice | undefined {
    return this.invoices.get(id);
  }

  byOrderId(orderId: string): FakeInvoice[] {
    return [...this.invoices.values()].filter((i) => i.metadata.orderId === orderId).reverse();
  }

  /**
   * The tests' shortcut (not BTCPay): invoices recorded as Settled at once, each by its id, price, currency,
   * our order id and creation time (Unix seconds), as GET invoices?status=Settled lists them afterwards.
   */
  sawPaid(invoices: { id: string; amountCents: number; currency: string; orderId?: string; createdTime: number }[]): void {
    for (const v of invoices) {
      this.invoices.set(v.id, {
        id: v.id, storeId: this.storeId, amountCents: v.amountCents, paidCents: v.amountCents, currency: v.currency, status: 'Settled', additionalStatus: 'None',
        metadata: v.orderId ? { orderId: v.orderId } : {}, redirectURL: null, redirectAutomatically: false,
        createdTime: v.createdTime, expirationTime: v.createdTime + 900, monitoringExpiration: v.createdTime + 900 + 86_400,
      });
    }
  }

  /** InvoiceData as Greenfield shows it. */
  view(i: FakeInvoice) {
    return {
      id: i.id, storeId: i.storeId, amount: decimal(i.amountCents), paidAmount: decimal(i.paidCents), currency: i.currency, type: 'Standard',
      checkoutLink: `${this.url}/i/${i.id}`, createdTime: i.createdTime, expirationTime: i.expirationTime, monitoringExpiration: i.monitoringExpiration,
      status: i.status, additionalStatus: i.additionalStatus, availableStatusesForManualMarking: i.status === 'Settled' ? ['Invalid'] : ['Settled', 'Invalid'],
      archived: false, metadata: i.metadata,
      checkout: { redirectURL: i.redirectURL, redirectAutomatically: i.redirectAutomatically, speedPolicy: 'MediumSpeed', paymentTolerance: 0 },
    };
  }

  /** The customer's wallet sends `paidCents` more (in the invoice currency). */
  pay(id: string, paidCents: number): FakeInvoice {
    const i = this.mustGet(id);
    i.paidCents += paidCents;
    const afterExpiration = i.status === 'Expired';
    this.event(i, 'InvoiceReceivedPayment', { afterExpiration, paymentMethodId: 'BTC-CHAIN' });
    const full = i.paidCents >= i.amountCents;
    if (i.status === 'New' && full) {
      i.status = 'Processing';
      i.additionalStatus = i.paidCents > i.amountCents ? 'PaidOver' : 'None';
      this.event(i, 'InvoiceProcessing', { overPaid: i.additionalStatus === 'PaidOver' });
      if (this.confirmAfterMs !== null) this.later(this.confirmAfterMs, () => this.confirm(id));
    } else if (i.status === 'New') {
      i.additionalStatus = 'PaidPartial';
    } else if (afterExpiration && full) {
      i.additionalStatus = 'PaidLate';
    }
    return i;
  }

  /** The store's confirmations are in: Processing -> Settled. */
  confirm(id: string): void {
    const i = this.mustGet(id);
    if (i.status !== 'Processing') return;
    i.status = 'Settled';
    this.event(i, 'InvoiceSettled', { overPaid: i.additionalStatus === 'PaidOver', manuallyMarked: false });
  }

  /** Monitoring ended without enough confirmations: Processing -> Invalid. */
  failConfirmations(id: string): void {
    const i = this.mustGet(id);
    if (i.status !== 'Processing') return;
    i.status = 'Invalid';
    this.event(i, 'InvoiceInvalid', { manuallyMarked: false });
  }

  expire(id: string): void {
    const i = this.mustGet(id);
    if (i.status !== 'New') return;
    i.status = 'Expired';
    this.event(i, 'InvoiceExpired', { partiallyPaid: i.additionalStatus === 'PaidPartial' });
  }

  /** The merchant marks the invoice in BTCPay's own dashboard. */
  mark(id: string, status: 'Settled' | 'Invalid'): void {
    const i = this.mustGet(id);
    i.status = status;
    i.additionalStatus = 'Marked';
    this.event(i, status === 'Settled' ? 'InvoiceSettled' : 'InvoiceInvalid', status === 'Settled' ? { overPaid: false, manuallyMarked: true } : { manuallyMarked: true });
  }

  /** PullPaymentData as Greenfield shows it. */
  pullPaymentView(pp: FakePullPayment) {
    return {
      id: pp.id, name: pp.name, description: pp.description, currency: pp.currency, amount: decimal(pp.amountCents), BOLT11Expiration: '30',
      autoApproveClaims: pp.autoApproveClaims, archived: pp.archived, viewLink: `${this.url}/pull-payments/${pp.id}`,
    };
  }

  payoutView(p: FakePayout) {
    const pp = this.pullPayments.get(p.pullPaymentId)!;
    const approved = p.state !== 'AwaitingApproval' && p.state !== 'Cancelled';
    return {
      id: p.id, revision: 0, pullPaymentId: p.pullPaymentId, date: String(Math.floor(Date.now() / 1000)), destination: p.destination,
      originalCurrency: pp.currency, originalAmount: decimal(p.amountCents), payoutCurrency: 'BTC', payoutAmount: approved ? (p.amountCents / 100 / 60000).toFixed(8) : null,
      payoutMethodId: 'BTC-CHAIN', state: p.state, paymentProof: p.state === 'Completed' ? { proofType: 'PayoutTransactionOnChainBlob', transactionId: randomBytes(32).toString('hex') } : null,
      metadata: { source: `Refund ${pp.invoiceId}` },
    };
  }

  /** The customer claims (part of) a pull payment from its claim page: a payout, awaiting approval unless auto-approved. */
  claim(pullPaymentId: string, amountCents?: number, destination = 'bcrt1qfakecustomeraddress0000000000000000000'): FakePayout {
    const pp = this.pullPayments.get(pullPaymentId);
    if (!pp || pp.archived) throw new Error(`no open pull payment ${pullPaymentId}`);
    const claimed = [...this.payouts.values()].filter((p) => p.pullPaymentId === pp.id && p.state !== 'Cancelled').reduce((sum, p) => sum + p.amountCents, 0);
    const amount = amountCents ?? pp.amountCents - claimed;
    if (amount <= 0 || claimed + amount > pp.amountCents) throw new Error('claim above what is left');
    const p: FakePayout = { id: randomBytes(12).toString('base64url').replace(/[-_]/g, 'x'), pullPaymentId: pp.id, destination, amountCents: amount, state: 'AwaitingApproval' };
    this.payouts.set(p.id, p);
    this.payoutEvent(p, 'PayoutCreated');
    if (pp.autoApproveClaims) this.payoutState(p.id, 'AwaitingPayment');
    return p;
  }

  /** The merchant approves, the store pays (InProgress), the transaction confirms (Completed), or the payout is cancelled. */
  payoutState(payoutId: string, state: FakePayoutState): void {
    const p = this.payouts.get(payoutId);
    if (!p) throw new Error(`no payout ${payoutId}`);
    const approved = p.state === 'AwaitingApproval' && state === 'AwaitingPayment';
    p.state = state;
    this.payoutEvent(p, approved ? 'PayoutApproved' : 'PayoutUpdated');
  }

  /** Approve, pay and confirm a payout. */
  completePayout(payoutId: string): void {
    for (const s of ['AwaitingPayment', 'InProgress', 'Completed'] as const) if (this.payouts.get(payoutId)?.state !== s) this.payoutState(payoutId, s);
  }

  archive(pullPaymentId: string): void {
    const pp = this.pullPayments.get(pullPaymentId);
    if (!pp) throw new Error(`no pull payment ${pullPaymentId}`);
    pp.archived = true;
    for (const p of this.payouts.values()) if (p.pullPaymentId === pp.id && p.state === 'AwaitingApproval') this.payoutState(p.id, 'Cancelled');
  }

  private payoutEvent(p: FakePayout, type: 'PayoutCreated' | 'PayoutApproved' | 'PayoutUpdated'): void {
    this.signed(p.id, { type, storeId: this.storeId, payoutId: p.id, pullPaymentId: p.pullPaymentId, payoutState: p.state });
  }

  /** Sends an event about an invoice (again); `forged` signs it with another secret. */
  event(i: FakeInvoice, type: string, extra: Record<string, unknown>, o: { forged?: boolean } = {}): void {
    this.signed(i.id, { type, storeId: i.storeId, invoiceId: i.id, metadata: i.metadata, ...extra }, o);
  }

  /** A webhook with BTCPay's envelope and signature, redelivered as BTCPay does. */
  private signed(subject: string, payload: Record<string, unknown>, o: { forged?: boolean } = {}): void {
    if (!this.webhookUrl) return;
    const firstDelivery = randomBytes(8).toString('hex');
    const secret = o.forged ? 'not-the-webhook-secret' : this.webhookSecret;
    const request = (attempt: number) => {
      const deliveryId = attempt === 0 ? firstDelivery : randomBytes(8).toString('hex');
      const { type, ...rest } = payload;
      const event = { deliveryId, webhookId: this.webhookId, originalDeliveryId: firstDelivery, isRedelivery: attempt > 0, type, timestamp: Math.floor(Date.now() / 1000), ...rest };
      const body = Buffer.from(JSON.stringify(event, null, 2));
      return { body, headers: { 'BTCPay-Sig': 'sha256=' + createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex') } };
    };
    const retry = (status: number | string) => typeof status === 'string' || status >= 500 || status === 408 || status === 429;
    this.deliver(this.webhookUrl, subject, this.redeliveryMs, retry, request);
  }

  private mustGet(id: string): FakeInvoice {
    const i = this.invoices.get(id);
    if (!i) throw new Error(`no invoice ${id}`);
    return i;
  }

  protected handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, raw: string): void {
    if (url.pathname.startsWith('/__fake/')) return this.control(url, raw, res);
    if (url.pathname.startsWith('/i/')) return this.checkout(req.method ?? 'GET', url, raw, res);
    if (url.pathname.startsWith('/pull-payments/')) return this.claimPage(url, res);
    if (!this.answerable(req, res, { code: 'service-unavailable', message: 'Service unavailable' })) return;
    const answer = this.pullPaymentApi(req, url) ?? this.api(req, url, parseJson(raw));
    this.calls.push({ method: req.method ?? 'GET', path: url.pathname + url.search, status: answer.status });
    if (answer.status === 200 && req.method === 'POST' && url.pathname.endsWith('/refund') && this.garbageRefund > 0) {
      this.garbageRefund -= 1;
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
    }
    this.answer(req, res, answer.status, answer.json);
  }

  /** The public pull payment routes (no key needed) and the store's pull payments; null for any other route. */
  private pullPaymentApi(req: http.IncomingMessage, url: URL): { status: number; json: unknown } | null {
    const pub = /^\/api\/v1\/pull-payments\/([^/]+)(\/payouts)?$/.exec(url.pathname);
    if (pub) {
      const pp = this.pullPayments.get(decodeURIComponent(pub[1]));
      if (!pp) return { status: 404, json: { code: 'pullpayment-not-found', message: 'Pull payment not found' } };
      if (req.method === 'DELETE' && !pub[2]) {
        if (req.headers.authorization !== `token ${this.apiKey}`) return { status: 401, json: { code: 'unauthenticated', message: 'Authentication is required for accessing this endpoint' } };
        this.archive(pp.id);
        return { status: 200, json: undefined };
      }
      if (req.method !== 'GET') return { status: 405, json: undefined };
      if (!pub[2]) return { status: 200, json: this.pullPaymentView(pp) };
      const withCancelled = url.searchParams.get('includeCancelled') === 'true';
      const list = [...this.payouts.values()].filter((p) => p.pullPaymentId === pp.id && (withCancelled || p.state !== 'Cancelled'));
      return { status: 200, json: list.map((p) => this.payoutView(p)) };
    }
    const store = /^\/api\/v1\/stores\/([^/]+)\/pull-payments$/.exec(url.pathname);
    if (!store || req.method !== 'GET') return null;
    if (req.headers.authorization !== `token ${this.apiKey}`) return { status: 401, json: { code: 'unauthenticated', message: 'Authentication is required for accessing this endpoint' } };
    if (decodeURIComponent(store[1]) !== this.storeId) return { status: 403, json: undefined };
    const withArchived = url.searchParams.get('includeArchived') === 'true';
    return { status: 200, json: [...this.pullPayments.values()].filter((pp) => withArchived || !pp.archived).reverse().map((pp) => this.pullPaymentView(pp)) };
  }

  private refund(i: FakeInvoice, body: unknown): { status: number; json: unknown } {
    const refundable = i.status === 'Settled' || (i.paidCents > 0 && (i.status === 'Invalid' || (i.status === 'Expired' && i.additionalStatus !== 'None')));
    if (!refundable) return { status: 400, json: { code: 'non-refundable', message: 'Cannot refund this invoice' } };
    const b = (body ?? {}) as Record<string, unknown>;
    const errors: { path: string; message: string }[] = [];
    if (typeof b.refundVariant !== 'string') errors.push({ path: 'refundVariant', message: '`refundVariant` is mandatory' });
    let amountCents = i.amountCents;
    let currency = i.currency;
    if (b.refundVariant === 'Custom') {
      const amount = typeof b.customAmount === 'number' ? String(b.customAmount) : b.customAmount;
      if (typeof amount !== 'string' || !DECIMAL.test(amount) || cents(amount) <= 0) errors.push({ path: 'customAmount', message: 'Amount must be greater than 0' });
      else amountCents = cents(amount);
      if (typeof b.customCurrency !== 'string' || !/^[A-Z]{3}$/.test(b.customCurrency)) errors.push({ path: 'customCurrency', message: 'Invalid currency' });
      else currency = b.customCurrency;
    } else if (b.refundVariant !== 'Fiat' && typeof b.refundVariant === 'string') {
      errors.push({ path: 'refundVariant', message: 'The fake refunds only Fiat and Custom' });
    }
    if (errors.length > 0) return { status: 400, json: errors };
    const pp: FakePullPayment = {
      id: randomBytes(16).toString('base64url').replace(/[-_]/g, 'x'), invoiceId: i.id, name: typeof b.name === 'string' ? b.name : `Refund ${i.id}`,
      description: typeof b.description === 'string' ? b.description : '', currency, amountCents, autoApproveClaims: false, archived: false,
    };
    this.pullPayments.set(pp.id, pp);
    return { status: 200, json: this.pullPaymentView(pp) };
  }

  /** The claim page at viewLink: what is left to claim (the claim itself is the test's `claim`). */
  private claimPage(url: URL, res: http.ServerResponse): void {
    const pp = this.pullPayments.get(url.pathname.slice('/pull-payments/'.length));
    if (!pp) return this.html(res, 404, page('Not found', '<p>This pull payment does not exist.</p>'));
    const state = pp.archived ? '<p>This refund is no longer available.</p>' : '<p>Enter your Bitcoin address to claim it.</p>';
    return this.html(res, 200, page(pp.name, `<p class="amount">${esc(decimal(pp.amountCents))} ${esc(pp.currency)}</p>${state}`));
  }

  private api(req: http.IncomingMessage, url: URL, body: unknown): { status: number; json: unknown } {
    if (req.headers.authorization !== `token ${this.apiKey}`) {
      return { status: 401, json: { code: 'unauthenticated', message: 'Authentication is required for accessing this endpoint' } };
    }
    const m = /^\/api\/v1\/stores\/([^/]+)\/invoices(?:\/([^/]+))?(\/refund)?$/.exec(url.pathname);
    if (!m) return { status: 404, json: { code: 'not-found', message: 'Not found' } };
    if (decodeURIComponent(m[1]) !== this.storeId) return { status: 403, json: undefined };
    if (m[3]) {
      const refunded = m[2] ? this.invoices.get(decodeURIComponent(m[2])) : undefined;
      if (req.method !== 'POST') return { status: 405, json: undefined };
      return refunded ? this.refund(refunded, body) : { status: 404, json: { code: 'invoice-not-found', message: 'The invoice was not found' } };
    }
    if (req.method === 'POST' && !m[2]) return this.create(body);
    if (req.method === 'GET' && !m[2]) {
      const q = url.searchParams;
      const orderIds = q.getAll('orderId');
      const statuses = q.getAll('status');
      const start = q.has('startDate') ? Number(q.get('startDate')) : -Infinity;
      const end = q.has('endDate') ? Number(q.get('endDate')) : Infinity;
      if (this.unavailableFrom.has(start)) return { status: 503, json: { code: 'service-unavailable', message: 'Service unavailable' } };
      const list = [...this.invoices.values()].reverse().filter((i) =>
        (orderIds.length === 0 || orderIds.includes(String(i.metadata.orderId))) && (statuses.length === 0 || statuses.includes(i.status)) && i.createdTime >= start && i.createdTime <= end);
      const skip = Number(q.get('skip') ?? 0) || 0;
      const take = q.has('take') ? Number(q.get('take')) : list.length;
      return { status: 200, json: list.slice(skip, skip + take).map((i) => this.view(i)) };
    }
    const i = m[2] ? this.invoices.get(decodeURIComponent(m[2])) : undefined;
    if (req.method === 'GET' && i) return { status: 200, json: this.view(i) };
    return { status: 404, json: { code: 'invoice-not-found', message: 'The invoice was not found' } };
  }

  private create(body: unknown): { status: number; json: unknown } {
    const b = (body ?? {}) as Record<string, unknown>;
    const errors: { path: string; message: string }[] = [];
    const amount = typeof b.amount === 'number' ? String(b.amount) : b.amount;
    if (typeof amount !== 'string' || !DECIMAL.test(amount) || cents(amount) <= 0) errors.push({ path: 'amount', message: 'Amount should be greater than 0' });
    if (typeof b.currency !== 'string' || !/^[A-Z]{3}$/.test(b.currency)) errors.push({ path: 'currency', message: 'Invalid currency' });
    const checkout = (b.checkout ?? {}) as Record<string, unknown>;
    const minutes = checkout.expirationMinutes ?? 15;
    if (typeof minutes !== 'number' || minutes <= 0) errors.push({ path: 'checkout.expirationMinutes', message: 'Expiration time must be strictly greater than 0' });
    if (errors.length > 0) return { status: 400, json: errors };
    const now = Math.floor(Date.now() / 1000);
    const expiresInMs = Number(minutes) * 60_000;
    const i: FakeInvoice = {
      id: randomBytes(11).toString('base64url').replace(/[-_]/g, 'x'), storeId: this.storeId, amountCents: cents(amount as string), paidCents: 0,
      currency: b.currency as string, status: 'New', additionalStatus: 'None', metadata: (b.metadata ?? {}) as Record<string, unknown>,
      redirectURL: typeof checkout.redirectURL === 'string' ? checkout.redirectURL : null, redirectAutomatically: checkout.redirectAutomatically === true,
      createdTime: now, expirationTime: now + Math.round(expiresInMs / 1000), monitoringExpiration: now + Math.round(expiresInMs / 1000) + Number(checkout.monitoringMinutes ?? 1440) * 60,
    };
    this.invoices.set(i.id, i);
    this.later(expiresInMs, () => this.expire(i.id));
    return { status: 200, json: this.view(i) };
  }

  private back(i: FakeInvoice): string | null {
    return i.redirectURL ? i.redirectURL.replace('{InvoiceId}', i.id).replace('{OrderId}', String(i.metadata.orderId ?? '')) : null;
  }

  /** The checkout page: pay in full, part, over, or leave; back to the store once paid. */
  private checkout(method: string, url: URL, raw: string, res: http.ServerResponse): void {
    const i = this.invoices.get(url.pathname.slice(3));
    if (!i) return this.html(res, 404, page('Invoice not found', '<p>This invoice does not exist.</p>'));
    const due = `<p class="amount">${esc(decimal(i.amountCents))} ${esc(i.currency)}</p>`;
    if (method === 'POST') {
      const share = { full: 1, part: 0.5, over: 1.5 }[new URLSearchParams(raw).get('pay') ?? ''] ?? 0;
      if (share > 0) this.pay(i.id, Math.round(i.amountCents * share) - (share === 1 ? i.paidCents : 0));
      const to = this.back(i);
      if (i.status === 'Processing' && i.redirectAutomatically && to) return this.redirect(res, to);
    }
    const to = this.back(i);
    const link = to ? `<p><a href="${esc(to)}">Return to the store</a></p>` : '';
    if (i.status !== 'New') return this.html(res, 200, page(`Invoice ${i.status}`, `${due}<p>${esc(i.additionalStatus)}</p>${link}`));
    const paid = i.paidCents > 0 ? `<p>Paid so far: ${esc(decimal(i.paidCents))} ${esc(i.currency)}</p>` : '';
    const form = (pay: string, label: string) => `<form method="post"><input type="hidden" name="pay" value="${pay}"><button type="submit">${label}</button></form>`;
    return this.html(res, 200, page('Pay with Bitcoin', `${due}${paid}${form('full', 'Pay in full')}${form('part', 'Pay half')}${form('over', 'Pay one and a half times')}${link}`));
  }

  /** Not BTCPay: lets a test or `npm run fakes` steer the fake over HTTP. */
  private control(url: URL, raw: string, res: http.ServerResponse): void {
    const body = (parseJson(raw) ?? {}) as Record<string, unknown>;
    if (url.pathname === '/__fake/mode' && FAKE_MODES.includes(body.mode as FakeMode)) {
      this.mode = body.mode as FakeMode;
      return this.json(res, 200, { mode: this.mode });
    }
    if (url.pathname === '/__fake/webhook-url') {
      this.webhookUrl = typeof body.url === 'string' ? body.url : null;
      return this.json(res, 200, { webhook_url: this.webhookUrl });
    }
    const m = /^\/__fake\/invoices\/([^/]+)\/(confirm|fail-confirmations|expire|mark-settled|mark-invalid)$/.exec(url.pathname);
    if (m && this.invoices.has(m[1])) {
      const id = m[1];
      ({
        confirm: () => this.confirm(id),
        'fail-confirmations': () => this.failConfirmations(id),
        expire: () => this.expire(id),
        'mark-settled': () => this.mark(id, 'Settled'),
        'mark-invalid': () => this.mark(id, 'Invalid'),
      })[m[2] as 'confirm']();
      return this.json(res, 200, this.view(this.invoices.get(id)!));
    }
    if (url.pathname === '/__fake/calls') return this.json(res, 200, this.calls);
    return this.json(res, 404, { error: 'unknown control route' });
  }
}
