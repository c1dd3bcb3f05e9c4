// A fake Paystack over real HTTP: the API (initialize, verify, charge), a hosted checkout with a 3-D Secure
// step, the redirect back with the reference, and signed webhooks with retries. Reproduced behaviours and
// their sources (PaystackOSS/openapi at 9678dea, PaystackOSS/doc-code-snippets at 94af513):
// - `Authorization: Bearer <secret key>`; a wrong key is 401 `{status:false, message:"Invalid key"}`
//   (components/responses/Unauthorized.yaml);
// - POST /transaction/initialize: email and integer amount (smallest unit) required, currency one of
//   GHS KES NGN ZAR USD, reference of `-.=` and alphanumerics; 200 with authorization_url, access_code and
//   reference (schemas/TransactionInitialize*.yaml, api/transactions/initialize/response.json); a reused
//   reference is 400 `code: duplicate_reference` (schemas/TransactionInitializeBadRequestModel.yaml);
// - GET /transaction/verify/:reference: the transaction (schemas/VerifyResponse.yaml,
//   api/transactions/verify/response.json); status `abandoned` until the customer pays; unknown is 404
//   (components/responses/NotFound.yaml);
// - POST /charge with card details: `open_url` + url for the 3-D Secure step, `send_pin` for a card that
//   wants a PIN, `success` for a card with no further step, `failed` for a card the issuer declines
//   (api/charges/create/response.json);
// - a declined checkout offers "Try again" on the same transaction, which verify reads `failed` until it is
//   paid (then `success`, and charge.success is sent);
// - the checkout sends the customer to callback_url with `trxref` and `reference` added, and a customer who
//   closes it to metadata.cancel_action (Paystack's "Accept payments" guide);
// - webhooks `{ event: "charge.success", data: <transaction> }` with `x-paystack-signature` = hex
//   HMAC-SHA512(secret key, raw body) (doc/payments/webhooks/verifying-transaction, payment-methods/*-event);
//   a delivery not answered 200 is retried (Paystack's webhook guide: every 3 minutes for the first 4 tries,
//   then hourly for 72 hours in live mode; here the delays are the fake's `webhookRetryMs`).
// - POST /refund { transaction (reference or id), amount (smallest unit, optional: the whole rest),
//   currency, customer_note, merchant_note }: 200 "Refund has been queued for processing" with the refund
//   (status pending, its id, the transaction) (paths/refund.yaml, schemas/RefundCreate*.yaml,
//   api/refunds/create/response.json); partial refunds are allowed and "The refund amount must not be more
//   than the original transaction amount" (Paystack's Refunds guide); a refund is then processing, then
//   processed, or failed, or needs-attention (guide; doc/payments/refunds/events/refund-*.json give each
//   event's body: { event: "refund.<state>", data: { status, transaction_reference, refund_reference,
//   amount, currency, ... } }, needs-attention with the refund id too); GET /refund/:id the refund
//   (api/refunds/fetch/response.json), unknown 404; GET /refund lists refunds (api/refunds/list/
//   response.json), here filtered by `transaction` (the reference or id) as the API reference lists it.
//   The words of a refusal (more than is left, a transaction not paid, unknown) are the fake's own, in
//   Paystack's 400 shape { status: false, message, type: "validation_error", code: "invalid_params" }.
// - Transfers (PaystackOSS/openapi at 1ae7fef, schemas TransferRecipientCreate and TransferInitiate;
//   Paystack's "Transfers" guide): POST /transferrecipient { type nuban | ghipss | basa | mobile_money,
//   name, account_number, bank_code, currency } answers 201 with data.recipient_code "RCP_..." (the same
//   code again for the same account); POST /transfer { source "balance", amount, recipient, reference
//   (lowercase, `-` `_` alphanumerics), reason, currency NGN ZAR KES GHS } answers 200 "Transfer has been
//   queued" with the transfer (status pending, transfer_code "TRF_..."), or status otp with "Transfer
//   requires OTP to continue" when the integration confirms transfers by OTP; a balance too low is 400
//   "Your balance is not enough to fulfil this request"; GET /transfer/verify/:reference the transfer,
//   unknown 404 "Transfer not found"; the transfer then ends success or failed with transfer.success or
//   transfer.failed, and a transfer may be reversed after success (transfer.reversed), each event
//   { event, data: <transfer> } signed like charge events. The fake's own: a reused transfer reference is
//   400 "Duplicate Transfer Reference" (nothing paid twice).
// Not Paystack: the `/__fake/*` control routes, the pay / fail / abandon buttons that play the customer,
// the refund controls (failNextRefund, needsAttentionNext, holdNextRefund, garbageRefund, swallowRefund) and the transfer
// controls (otpTransfers, balances, failNextTransfer, holdNextTransfer, swallowTransfer, finishTransfer,
// reverseTransfer, dropTransferEvents), and `sawPaid`: the tests' shortcut that records many transactions at
// once as paid (status success at the time given), with no charge, checkout or webhook, as the transaction
// and settlement reads show them afterwards.
import { createHmac, randomBytes } from 'node:crypto';
import type http from 'node:http';
import { FakeDisputes } from './paystack-disputes';
import { FakeSettlements } from './paystack-settlements';
import { esc, FAKE_MODES, FakeServer, htmlPage, parseJson } from './web';
import type { FakeMode } from './web';

export interface FakeTransaction {
  id: number;
  reference: string;
  accessCode: string;
  email: string;
  amount: number;
  currency: string;
  channel: 'card' | 'bank';
  callbackUrl: string | null;
  cancelAction: string | null;
  status: string;
  gatewayResponse: string;
  createdAt: string;
  paidAt: string | null;
  /** started by POST /charge (direct card) rather than the checkout */
  direct: boolean;
  cardLast4: string | null;
}

export interface FakeRefund {
  id: number;
  transaction: FakeTransaction;
  amount: number;
  currency: string;
  customerNote: string;
  merchantNote: string;
  status: 'pending' | 'processing' | 'processed' | 'failed' | 'needs-attention';
  refundReference: string | null;
  createdAt: string;
  refundedAt: string | null;
}

export interface FakeRecipient {
  code: string;
  type: string;
  name: string;
  accountNumber: string;
  bankCode: string;
  currency: string;
}

export interface FakeTransfer {
  id: number;
  code: string;
  reference: string;
  amount: number;
  currency: string;
  reason: string;
  recipient: FakeRecipient;
  status: 'pending' | 'otp' | 'success' | 'failed' | 'reversed';
  failure: string | null;
  createdAt: string;
}

export interface FakeCall {
  method: string;
  path: string;
  /** the JSON body with any card number and CVV masked (the fake keeps no card data either) */
  body: unknown;
  status: number;
  /** the query string, when the call had one (GET /refund?transaction=...) */
  query?: string;
}

export interface FakePaystackOptions {
  secretKey?: string;
  /** where webhooks go (Paystack: one URL per integration, set on the dashboard) */
  webhookUrl?: string | null;
  /** delay before each webhook attempt; the last one ends the retries */
  webhookRetryMs?: number[];
  /** send charge.success by itself after a payment */
  autoWebhooks?: boolean;
}

const CURRENCIES = ['GHS', 'KES', 'NGN', 'ZAR', 'USD'];
/** Paystack's live-mode schedule: at once, every 3 minutes for the first 4 tries, then hourly for 72 hours. */
export const PAYSTACK_RETRY_MS = [0, 180_000, 180_000, 180_000, ...Array<number>(72).fill(3_600_000)];
const REFERENCE = /^[A-Za-z0-9.=-]{1,100}$/;
/** The card Paystack's test docs charge with no further step; a Verve card that asks for a PIN. */
export const NO_3DS_CARD = '4084084084084081';
export const PIN_CARD = '5060666666666666666';
/** Not one of Paystack's published test cards: a card the fake's issuer declines at once on POST /charge. */
export const DECLINED_CARD = '4000000000000002';

const page = (title: string, body: string) => htmlPage('Fake Paystack', title, body);

function maskCard(body: unknown): unknown {
  const b = body as { card?: { number?: string } } | null;
  if (!b || typeof b !== 'object' || !b.card) return body;
  return { ...b, card: { number: `****${String(b.card.number ?? '').slice(-4)}`, cvv: '***' } };
}

export class FakePaystack extends FakeServer {
  readonly secretKey: string;
  webhookUrl: string | null;
  webhookRetryMs: number[];
  autoWebhooks: boolean;
  readonly calls: FakeCall[] = [];
  private readonly byReference = new Map<string, FakeTransaction>();
  private readonly byCode = new Map<string, FakeTransaction>();
  private nextId = 4099260000;
  readonly refunds = new Map<number, FakeRefund>();
  private nextRefundId = 3018284;
  /** refunds that end failed, or needs-attention, instead of processed (first in, first used) */
  private readonly refundEnds: ('failed' | 'needs-attention')[] = [];
  /** refunds left pending until finishRefund */
  holdNextRefund = 0;
  /** refunds carried out whose answer is a 200 that is not JSON */
  garbageRefund = 0;
  /** refunds carried out whose answer never arrives (the connection is dropped: a lost answer) */
  swallowRefund = 0;
  /** delay between a refund's states */
  refundStepMs = 20;
  readonly recipients = new Map<string, FakeRecipient>();
  readonly transfers = new Map<string, FakeTransfer>();
  private nextTransferId = 51720000;
  /** the integration confirms transfers by OTP (Paystack's default until the merchant turns it off) */
  otpTransfers = false;
  /** the balance transfers are paid from, per currency, in the smallest unit */
  readonly balances = new Map<string, number>([['NGN', 1e12], ['GHS', 1e12], ['KES', 1e12], ['ZAR', 1e12]]);
  /** transfers that end failed with this reason (first in, first used) */
  private readonly transferFailures: string[] = [];
  /** transfers left pending until finishTransfer */
  holdNextTransfer = 0;
  /** transfers carried out whose answer is never sent (a lost answer) */
  swallowTransfer = 0;
  /** references of transfers whose events are never delivered (lost webhooks) */
  readonly dropTransferEvents = new Set<string>();
  /** card disputes: the Disputes API and charge.dispute.* events (paystack-disputes.ts) */
  readonly disputes = new FakeDisputes(this);
  /** settlements: the Settlements API (paystack-settlements.ts) */
  readonly settlements = new FakeSettlements(this);

  constructor(o: FakePaystackOptions = {}) {
    super();
    this.secretKey = o.secretKey ?? 'sk_test_' + randomBytes(20).toString('hex');
    this.webhookUrl = o.webhookUrl ?? null;
    this.webhookRetryMs = o.webhookRetryMs ?? [0, 200, 400, 800];
    this.autoWebhooks = o.autoWebhooks ?? true;
  }

  transaction(reference: string): FakeTransaction | undefined {
    return this.byReference.get(reference);
  }

  /**
   * The tests' shortcut (not Paystack): transactions recorded as paid at once, each by its reference, amount
   * (smallest unit), currency, channel and payment time, as GET /transaction and the settlements show them.
   */
  sawPaid(transactions: { reference: string; amount: number; currency: string; channel?: 'card' | 'bank'; at: Date }[]): void {
    for (const v of transactions) {
      const at = v.at.toISOString();
      const t: FakeTransaction = {
        id: this.nextId++, reference: v.reference, accessCode: randomBytes(8).toString('hex'), email: 'customer@example.org', amount: v.amount, currency: v.currency,
        channel: v.channel ?? 'card', callbackUrl: null, cancelAction: null, status: 'success', gatewayResponse: 'Successful', createdAt: at, paidAt: at,
        direct: true, cardLast4: v.channel === 'bank' ? null : '4081',
      };
      this.byReference.set(t.reference, t);
      this.byCode.set(t.accessCode, t);
    }
  }

  /** every transaction paid (status success), in the order they were started */
  paid(): FakeTransaction[] {
    return [...this.byReference.values()].filter((t) => t.status === 'success');
  }

  /** Paystack's own transaction object as verify and webhooks show it. */
  view(t: FakeTransaction) {
    return {
      id: t.id, domain: 'test', status: t.status, reference: t.reference, receipt_number: null, amount: t.amount, message: null,
      gateway_response: t.gatewayResponse, paid_at: t.paidAt, created_at: t.createdAt, channel: t.channel, currency: t.currency,
      ip_address: '127.0.0.1', metadata: '', log: null, fees: Math.round(t.amount * 0.015), fees_split: null,
      authorization: t.cardLast4
        ? { authorization_code: `AUTH_${t.accessCode}`, bin: '408408', last4: t.cardLast4, exp_month: '12', exp_year: '2030', channel: 'card',
            card_type: 'visa ', bank: 'TEST BANK', country_code: 'NG', brand: 'visa', reusable: true, signature: `SIG_${t.accessCode}`, account_name: null }
        : {},
      customer: { id: 181873746, first_name: null, last_name: null, email: t.email, customer_code: 'CUS_fake', phone: null, metadata: null, risk_action: 'default' },
      plan: null, split: {}, order_id: null, paidAt: t.paidAt, createdAt: t.createdAt, requested_amount: t.amount,
      pos_transaction_data: null, source: null, fees_breakdown: null, connect: null, transaction_date: t.createdAt,
    };
  }

  /** Sends the webhook of a transaction's current state now (again), with its retries; `forged` signs with another key. */
  sendWebhook(reference: string, o: { forged?: boolean; event?: string } = {}): void {
    const t = this.byReference.get(reference);
    if (!t) throw new Error(`no transaction ${reference}`);
    if (!this.webhookUrl) return;
    const body = Buffer.from(JSON.stringify({ event: o.event ?? 'charge.success', data: this.view(t) }));
    const signature = createHmac('sha512', o.forged ? 'sk_test_not_the_key' : this.secretKey).update(body).digest('hex');
    // Paystack counts a delivery done only when answered 200.
    this.deliver(this.webhookUrl, reference, this.webhookRetryMs, (status) => status !== 200, () => ({ body, headers: { 'x-paystack-signature': signature } }));
  }

  /** A signed event `{ event, data }` with its retries; `forged` signs with another key. */
  signedEvent(event: string, data: unknown, subject: string, forged = false): void {
    if (!this.webhookUrl) return;
    const body = Buffer.from(JSON.stringify({ event, data }));
    const signature = createHmac('sha512', forged ? 'sk_test_not_the_key' : this.secretKey).update(body).digest('hex');
    this.deliver(this.webhookUrl, subject, this.webhookRetryMs, (st) => st !== 200, () => ({ body, headers: { 'x-paystack-signature': signature } }));
  }

  failNextTransfer(reason = 'Could not credit the recipient account'): void {
    this.transferFailures.push(reason);
  }

  /** Paystack's transfer object as verify and transfer.* events show it. */
  transferView(t: FakeTransfer) {
    const r = t.recipient;
    return {
      amount: t.amount, currency: t.currency, domain: 'test', failures: null, id: t.id, integration: 412829, reason: t.reason, reference: t.reference,
      source: 'balance', source_details: null, status: t.status, titan_code: null, transfer_code: t.code, transferred_at: t.status === 'success' ? new Date().toISOString() : null,
      gateway_response: t.failure, createdAt: t.createdAt, updatedAt: new Date().toISOString(),
      recipient: { active: true, currency: r.currency, name: r.name, recipient_code: r.code, type: r.type, details: { account_number: r.accountNumber, account_name: r.name, bank_code: r.bankCode } },
    };
  }

  /** A pending transfer ends now (success, or failed with a reason); its event follows. */
  finishTransfer(reference: string, end: 'success' | 'failed' = 'success', failure: string | null = null): void {
    const t = this.transfers.get(reference);
    if (!t) throw new Error(`no transfer ${reference}`);
    t.status = end;
    t.failure = end === 'failed' ? (failure ?? 'Could not credit the recipient account') : null;
    if (end === 'failed') this.balances.set(t.currency, (this.balances.get(t.currency) ?? 0) + t.amount);
    this.transferEvent(t, `transfer.${end}`);
  }

  /** A successful transfer comes back to the balance (the recipient's bank returned it); transfer.reversed follows. */
  reverseTransfer(reference: string): void {
    const t = this.transfers.get(reference);
    if (!t || t.status !== 'success') throw new Error(`no successful transfer ${reference}`);
    t.status = 'reversed';
    this.balances.set(t.currency, (this.balances.get(t.currency) ?? 0) + t.amount);
    this.transferEvent(t, 'transfer.reversed');
  }

  private transferEvent(t: FakeTransfer, event: string): void {
    if (!this.webhookUrl) return;
    if (this.dropTransferEvents.has(t.reference)) return;
    const body = Buffer.from(JSON.stringify({ event, data: this.transferView(t) }));
    const signature = createHmac('sha512', this.secretKey).update(body).digest('hex');
    this.deliver(this.webhookUrl, `transfer ${t.reference}`, this.webhookRetryMs, (st) => st !== 200, () => ({ body, headers: { 'x-paystack-signature': signature } }));
  }

  failNextRefund(): void {
    this.refundEnds.push('failed');
  }

  needsAttentionNext(): void {
    this.refundEnds.push('needs-attention');
  }

  /** Paystack's refund object as fetch and list show it. */
  refundView(r: FakeRefund) {
    return {
      integration: 412829, transaction: r.transaction.id, dispute: null, settlement: null, id: r.id, domain: 'test', currency: r.currency,
      amount: r.amount, status: r.status, refunded_at: r.refundedAt, refunded_by: 'merchant@shop.example', customer_note: r.customerNote,
      merchant_note: r.merchantNote, deducted_amount: r.amount, fully_deducted: 1, createdAt: r.createdAt, bank_reference: r.refundReference,
      transaction_reference: r.transaction.reference, reason: r.status === 'failed' ? 'Refund failed at the processor' : r.status.toUpperCase(),
    };
  }

  /** A refund moves on: processing, then its end; each state sends its refund.<state> event. */
  finishRefund(id: number, end: 'processed' | 'failed' | 'needs-attention' = 'processed'): void {
    const r = this.refunds.get(id);
    if (!r) throw new Error(`no refund ${id}`);
    this.refundState(r, 'processing');
    this.later(this.refundStepMs, () => this.refundState(r, end));
  }

  private refundState(r: FakeRefund, status: FakeRefund['status']): void {
    r.status = status;
    if (status === 'processed') {
      r.refundedAt = new Date().toISOString();
      r.refundReference = String(Date.now());
    }
    if (!this.webhookUrl) return;
    const data: Record<string, unknown> = {
      status, transaction_reference: r.transaction.reference, refund_reference: r.refundReference, amount: String(r.amount), currency: r.currency,
      processor: 'fake', customer: { first_name: null, last_name: null, email: r.transaction.email }, integration: 412829, domain: 'test',
    };
    if (status === 'needs-attention') Object.assign(data, { id: String(r.id), customer_note: r.customerNote, merchant_note: r.merchantNote });
    const body = Buffer.from(JSON.stringify({ event: `refund.${status}`, data }));
    const signature = createHmac('sha512', this.secretKey).update(body).digest('hex');
    this.deliver(this.webhookUrl, `refund ${r.id}`, this.webhookRetryMs, (st) => st !== 200, () => ({ body, headers: { 'x-paystack-signature': signature } }));
  }

  protected handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, raw: string): void {
    if (url.pathname.startsWith('/__fake/')) return this.control(url, raw, res);
    if (req.method === 'PUT' && url.pathname.startsWith('/__uploads/')) {
      const up = this.disputes.upload(url, raw);
      return this.answer(req, res, up.status, up.json);
    }
    if (url.pathname.startsWith('/checkout/') || url.pathname.startsWith('/3ds/')) return this.customer(req.method ?? 'GET', url, raw, res);
    if (!this.answerable(req, res, { status: false, message: 'Service unavailable' })) return;
    const body = parseJson(raw) ?? null;
    const answer = this.api(req, url, body);
    this.calls.push({ method: req.method ?? 'GET', path: url.pathname, body: maskCard(body), status: answer.status, ...(url.search ? { query: url.search } : {}) });
    if (req.method === 'POST' && url.pathname === '/refund' && answer.status === 200 && this.garbageRefund > 0) {
      this.garbageRefund -= 1;
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
    }
    if (req.method === 'POST' && url.pathname === '/refund' && answer.status === 200 && this.swallowRefund > 0) {
      this.swallowRefund -= 1;
      return void req.socket.destroy();
    }
    if (req.method === 'POST' && url.pathname === '/transfer' && answer.status === 200 && this.swallowTransfer > 0) {
      this.swallowTransfer -= 1;
      return;
    }
    this.answer(req, res, answer.status, answer.json);
  }

  private api(req: http.IncomingMessage, url: URL, body: unknown): { status: number; json: unknown } {
    if (req.headers.authorization !== `Bearer ${this.secretKey}`) return { status: 401, json: { status: false, message: 'Invalid key' } };
    if (req.method === 'POST' && url.pathname === '/transaction/initialize') return this.initialize(body);
    if (req.method === 'POST' && url.pathname === '/charge') return this.charge(body);
    const verify = /^\/transaction\/verify\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && verify) {
      const t = this.byReference.get(decodeURIComponent(verify[1]));
      if (!t) return { status: 404, json: { status: false, message: 'Transaction reference not found' } };
      return { status: 200, json: { status: true, message: 'Verification successful', data: this.view(t) } };
    }
    if (req.method === 'POST' && url.pathname === '/refund') return this.refund(body);
    if (req.method === 'POST' && url.pathname === '/transferrecipient') return this.recipient(body);
    if (req.method === 'POST' && url.pathname === '/transfer') return this.transfer(body);
    const verifyTransfer = /^\/transfer\/verify\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && verifyTransfer) {
      const t = this.transfers.get(decodeURIComponent(verifyTransfer[1]));
      if (!t) return { status: 404, json: { status: false, message: 'Transfer not found' } };
      return { status: 200, json: { status: true, message: 'Transfer retrieved', data: this.transferView(t) } };
    }
    const fetchRefund = /^\/refund\/(\d+)$/.exec(url.pathname);
    if (req.method === 'GET' && fetchRefund) {
      const r = this.refunds.get(Number(fetchRefund[1]));
      if (!r) return { status: 404, json: { status: false, message: 'Refund not found' } };
      return { status: 200, json: { status: true, message: 'Refund retrieved', data: this.refundView(r) } };
    }
    if (req.method === 'GET' && url.pathname === '/refund') {
      const t = url.searchParams.get('transaction');
      const perPage = Math.min(Number(url.searchParams.get('perPage') ?? 50) || 50, 100);
      const list = [...this.refunds.values()].filter((r) => !t || r.transaction.reference === t || String(r.transaction.id) === t).reverse().slice(0, perPage);
      return { status: 200, json: { status: true, message: 'Refunds retrieved', data: list.map((r) => this.refundView(r)), meta: { total: list.length, perPage, page: 1 } } };
    }
    return this.disputes.route(req.method ?? 'GET', url, body, this.url) ?? this.settlements.route(req.method ?? 'GET', url) ?? { status: 404, json: { status: false, message: 'Route not found' } };
  }

  private recipient(body: unknown): { status: number; json: unknown } {
    const b = (body ?? {}) as Record<string, unknown>;
    const bad = (message: string) => ({ status: 400, json: { status: false, message, type: 'validation_error', code: 'invalid_params' } });
    if (!['nuban', 'ghipss', 'basa', 'mobile_money'].includes(String(b.type))) return bad('Invalid recipient type');
    if (typeof b.name !== 'string' || !b.name.trim()) return bad('Name is required');
    if (typeof b.account_number !== 'string' || !/^\d{6,20}$/.test(b.account_number)) return bad('Account number is invalid');
    if (typeof b.bank_code !== 'string' || !b.bank_code) return bad('Bank code is invalid');
    if (b.type === 'mobile_money' && !['MTN', 'VOD', 'ATL', 'MPESA'].includes(b.bank_code)) return bad('Unknown mobile money provider');
    const currency = typeof b.currency === 'string' ? b.currency : 'NGN';
    const existing = [...this.recipients.values()].find((r) => r.accountNumber === b.account_number && r.bankCode === b.bank_code && r.currency === currency);
    const r = existing ?? { code: `RCP_${randomBytes(8).toString('hex')}`, type: String(b.type), name: b.name, accountNumber: b.account_number, bankCode: b.bank_code, currency };
    this.recipients.set(r.code, r);
    return { status: 201, json: { status: true, message: 'Transfer recipient created successfully', data: { active: true, currency, domain: 'test', id: 7000, integration: 412829, name: r.name, recipient_code: r.code, type: r.type, is_deleted: false, details: { account_number: r.accountNumber, account_name: r.name, bank_code: r.bankCode } } } };
  }

  private transfer(body: unknown): { status: number; json: unknown } {
    const b = (body ?? {}) as Record<string, unknown>;
    const bad = (message: string) => ({ status: 400, json: { status: false, message, type: 'validation_error', code: 'invalid_params' } });
    if (b.source !== 'balance') return bad('Invalid source');
    if (typeof b.reference !== 'string' || !/^[a-z0-9_-]{1,100}$/.test(b.reference)) return bad('Invalid reference');
    if (this.transfers.has(b.reference)) return bad('Duplicate Transfer Reference');
    const recipient = typeof b.recipient === 'string' ? this.recipients.get(b.recipient) : undefined;
    if (!recipient) return bad('Recipient specified is invalid');
    const currency = typeof b.currency === 'string' ? b.currency : 'NGN';
    if (currency !== recipient.currency) return bad('Currency does not match the recipient currency');
    if (typeof b.amount !== 'number' || !Number.isSafeInteger(b.amount) || b.amount <= 0) return bad('Invalid Amount Sent');
    const balance = this.balances.get(currency) ?? 0;
    if (b.amount > balance) return bad('Your balance is not enough to fulfil this request');
    const t: FakeTransfer = {
      id: this.nextTransferId++, code: `TRF_${randomBytes(8).toString('hex')}`, reference: b.reference, amount: b.amount, currency,
      reason: typeof b.reason === 'string' ? b.reason : '', recipient, status: this.otpTransfers ? 'otp' : 'pending', failure: null, createdAt: new Date().toISOString(),
    };
    this.transfers.set(t.reference, t);
    if (!this.otpTransfers) {
      this.balances.set(currency, balance - t.amount);
      const failure = this.transferFailures.shift() ?? null;
      if (this.holdNextTransfer > 0) this.holdNextTransfer -= 1;
      else this.later(this.refundStepMs, () => this.finishTransfer(t.reference, failure ? 'failed' : 'success', failure));
    }
    const message = this.otpTransfers ? 'Transfer requires OTP to continue' : 'Transfer has been queued';
    return { status: 200, json: { status: true, message, data: { ...this.transferView(t), recipient: recipient.code } } };
  }

  private refund(body: unknown): { status: number; json: unknown } {
    const b = (body ?? {}) as Record<string, unknown>;
    const bad = (message: string) => ({ status: 400, json: { status: false, message, meta: { nextStep: 'Check the request and try again' }, type: 'validation_error', code: 'invalid_params' } });
    const ref = typeof b.transaction === 'string' || typeof b.transaction === 'number' ? String(b.transaction) : null;
    const t = ref === null ? undefined : (this.byReference.get(ref) ?? [...this.byReference.values()].find((x) => String(x.id) === ref));
    if (!t) return bad('Transaction reference not found');
    if (t.status !== 'success') return bad('Cannot refund a transaction that is not successful');
    if (b.currency !== undefined && b.currency !== t.currency) return bad('Currency does not match the transaction currency');
    const refunded = [...this.refunds.values()].filter((r) => r.transaction === t && r.status !== 'failed').reduce((sum, r) => sum + r.amount, 0);
    const left = t.amount - refunded;
    if (left <= 0) return bad('Transaction has been fully reversed');
    const amount = b.amount === undefined ? left : typeof b.amount === 'number' || typeof b.amount === 'string' ? Number(b.amount) : NaN;
    if (!Number.isSafeInteger(amount) || amount <= 0) return bad('Invalid Amount Sent');
    if (amount > left) return bad('Refund amount cannot be more than the amount left to refund on the transaction');
    const r: FakeRefund = {
      id: this.nextRefundId++, transaction: t, amount, currency: t.currency,
      customerNote: typeof b.customer_note === 'string' ? b.customer_note : `Refund for transaction ${t.reference}`,
      merchantNote: typeof b.merchant_note === 'string' ? b.merchant_note : `Refund for transaction ${t.reference} by merchant@shop.example`,
      status: 'pending', refundReference: null, createdAt: new Date().toISOString(), refundedAt: null,
    };
    this.refunds.set(r.id, r);
    this.refundState(r, 'pending');
    const end = this.refundEnds.shift() ?? 'processed';
    if (this.holdNextRefund > 0) this.holdNextRefund -= 1;
    else this.later(this.refundStepMs, () => this.finishRefund(r.id, end));
    const { transaction: _t, ...view } = this.refundView(r);
    return {
      status: 200,
      json: { status: true, message: 'Refund has been queued for processing', data: { ...view, transaction: { id: t.id, domain: 'test', reference: t.reference, amount: t.amount, paid_at: t.paidAt, channel: t.channel, currency: t.currency }, expected_at: r.createdAt } },
    };
  }

  /** The checks initialize and charge share; a problem is a 400 with Paystack's shape. */
  private open(body: unknown, channel: 'card' | 'bank', direct: boolean): FakeTransaction | { status: number; json: unknown } {
    const b = (body ?? {}) as Record<string, unknown>;
    const bad = (message: string) => ({ status: 400, json: { status: false, message, meta: { nextStep: 'Check the request and try again' }, type: 'validation_error', code: 'invalid_params' } });
    if (typeof b.email !== 'string' || !b.email.includes('@')) return bad('Invalid Email Address Passed');
    if (typeof b.amount !== 'number' || !Number.isSafeInteger(b.amount) || b.amount <= 0) return bad('Invalid Amount Sent');
    const currency = b.currency === undefined ? 'NGN' : b.currency;
    if (typeof currency !== 'string' || !CURRENCIES.includes(currency)) return bad('Currency not supported by merchant');
    const reference = b.reference === undefined ? randomBytes(8).toString('hex') : b.reference;
    if (typeof reference !== 'string' || !REFERENCE.test(reference)) return bad('Invalid transaction reference');
    if (this.byReference.has(reference)) {
      return {
        status: 400,
        json: { status: false, message: 'Duplicate Transaction Reference', meta: { nextStep: 'Try and create the Transaction or Charge with a new reference' },
          type: 'validation_error', code: 'duplicate_reference', errorCodeMappingNotFound: false },
      };
    }
    const metadata = (b.metadata ?? {}) as Record<string, unknown>;
    const t: FakeTransaction = {
      id: this.nextId++, reference, accessCode: randomBytes(8).toString('hex'), email: b.email, amount: b.amount, currency, channel,
      callbackUrl: typeof b.callback_url === 'string' ? b.callback_url : null,
      cancelAction: typeof metadata.cancel_action === 'string' ? metadata.cancel_action : null,
      status: 'abandoned', gatewayResponse: 'The transaction was not completed', createdAt: new Date().toISOString(), paidAt: null, direct, cardLast4: null,
    };
    this.byReference.set(reference, t);
    this.byCode.set(t.accessCode, t);
    return t;
  }

  private initialize(body: unknown) {
    const channels = (body as { channels?: unknown } | null)?.channels;
    const channel = Array.isArray(channels) && channels.length === 1 && channels[0] === 'bank' ? 'bank' : 'card';
    const t = this.open(body, channel, false);
    if ('json' in t) return t;
    return {
      status: 200,
      json: { status: true, message: 'Authorization URL created', data: { authorization_url: `${this.url}/checkout/${t.accessCode}`, access_code: t.accessCode, reference: t.reference } },
    };
  }

  private charge(body: unknown) {
    const card = (body as { card?: Record<string, unknown> } | null)?.card;
    if (!card || typeof card.number !== 'string' || !/^\d{12,19}$/.test(card.number) || typeof card.cvv !== 'string') {
      return { status: 400, json: { status: false, message: 'Invalid card details' } };
    }
    const t = this.open(body, 'card', true);
    if ('json' in t) return t;
    t.cardLast4 = card.number.slice(-4);
    if (card.number === NO_3DS_CARD) {
      this.settle(t, true);
      return { status: 200, json: { status: true, message: 'Charge attempted', data: this.view(t) } };
    }
    if (card.number === DECLINED_CARD) {
      this.settle(t, false);
      return { status: 200, json: { status: true, message: 'Charge attempted', data: this.view(t) } };
    }
    if (card.number === PIN_CARD) {
      t.status = 'ongoing';
      return { status: 200, json: { status: true, message: 'Charge attempted', data: { reference: t.reference, status: 'send_pin' } } };
    }
    t.status = 'ongoing';
    return { status: 200, json: { status: true, message: 'Charge attempted', data: { reference: t.reference, status: 'open_url', url: `${this.url}/3ds/${t.accessCode}` } } };
  }

  private settle(t: FakeTransaction, paid: boolean): void {
    if (t.status === 'success') return;
    t.status = paid ? 'success' : 'failed';
    t.gatewayResponse = paid ? 'Successful' : 'Declined';
    if (paid) {
      t.paidAt = new Date().toISOString();
      if (this.autoWebhooks) this.sendWebhook(t.reference);
    }
  }

  private back(t: FakeTransaction): string | null {
    if (!t.callbackUrl) return null;
    const u = new URL(t.callbackUrl);
    u.searchParams.set('trxref', t.reference);
    u.searchParams.set('reference', t.reference);
    return u.toString();
  }

  /** The customer's pages: checkout (pay / fail / abandon), the 3-D Secure step and the way back. */
  private customer(method: string, url: URL, raw: string, res: http.ServerResponse): void {
    const m = /^\/(checkout|3ds)\/([0-9a-f]+)(?:\/(pay|fail|cancel|authenticate))?$/.exec(url.pathname);
    const t = m ? this.byCode.get(m[2]) : undefined;
    const html = (status: number, body: string) => this.html(res, status, body);
    if (!m || !t) return void html(404, page('Not found', '<p>This payment link is not valid.</p>'));
    const go = (to: string) => this.redirect(res, to);
    const base = `/${m[1]}/${t.accessCode}`;
    const due = `<p class="amount">${t.currency} ${(t.amount / 100).toFixed(2)}</p><p>${esc(t.email)}</p>`;
    if (t.status === 'success') return void html(200, page('Payment successful', `${due}${this.backLink(t)}`));
    if (method === 'GET') {
      if (m[1] === '3ds') return void html(200, this.challenge(t, base));
      const label = t.channel === 'bank' ? 'Approve bank payment' : 'Pay';
      return void html(200, page('Fake Paystack checkout', `${due}
<form method="post" action="${base}/pay"><button type="submit">${label}</button></form>
<form method="post" action="${base}/fail"><button type="submit">Fail payment</button></form>
<form method="post" action="${base}/cancel"><button type="submit">Cancel payment</button></form>`));
    }
    const action = m[3] ?? (new URLSearchParams(raw).get('result') === 'pass' ? 'authenticate' : 'fail');
    if (action === 'pay') {
      if (t.channel === 'card') return go(`/3ds/${t.accessCode}`);
      this.settle(t, true);
      const to = this.back(t);
      return to ? go(to) : void html(200, page('Payment successful', due));
    }
    if (action === 'authenticate') {
      this.settle(t, true);
      const to = this.back(t);
      return to ? go(to) : void html(200, page('Payment successful', due));
    }
    if (action === 'fail') {
      this.settle(t, false);
      // Paystack's checkout offers another try on the same transaction; a direct charge's card is gone
      const retry = t.direct ? '' : `<p><a href="/checkout/${t.accessCode}">Try again</a></p>`;
      return void html(200, page('Payment failed', `<p>The card was declined.</p>${retry}${this.backLink(t)}`));
    }
    return go(t.cancelAction ?? this.back(t) ?? base);
  }

  private challenge(t: FakeTransaction, base: string): string {
    return page('3-D Secure', `<p>Your bank asks you to confirm a payment of ${t.currency} ${(t.amount / 100).toFixed(2)}.</p>
<form method="post" action="${base}/authenticate"><button type="submit">Authenticate</button></form>
<form method="post" action="${base}/fail"><button type="submit">Fail authentication</button></form>`);
  }

  private backLink(t: FakeTransaction): string {
    const to = this.back(t);
    return to ? `<p><a href="${esc(to)}">Return to merchant</a></p>` : '';
  }

  /** Not Paystack: lets a test or `npm run fakes` steer the fake over HTTP. */
  private control(url: URL, raw: string, res: http.ServerResponse): void {
    const json = (status: number, v: unknown) => this.json(res, status, v);
    const body = (parseJson(raw) ?? {}) as Record<string, unknown>;
    if (url.pathname === '/__fake/mode' && FAKE_MODES.includes(body.mode as FakeMode)) {
      this.mode = body.mode as FakeMode;
      return json(200, { mode: this.mode });
    }
    if (url.pathname === '/__fake/webhook-url') {
      this.webhookUrl = typeof body.url === 'string' ? body.url : null;
      return json(200, { webhook_url: this.webhookUrl });
    }
    if (url.pathname === '/__fake/calls') return json(200, this.calls);
    return json(404, { error: 'unknown control route' });
  }
}
