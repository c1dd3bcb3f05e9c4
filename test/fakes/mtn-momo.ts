// A fake MTN MoMo Collection API over real HTTP. Reproduced behaviours and their sources:
// - POST /collection/token/ with `Authorization: Basic base64(api_user:api_key)` and the product's
//   `Ocp-Apim-Subscription-Key`: 200 { access_token, token_type: "access_token", expires_in: 3600 }
//   (momodeveloper.mtn.com API documentation, "Collection - CreateAccessToken"; sparkplug/momoapi-node
//   src/auth.ts reads the same fields); a wrong subscription key is 401 with the API gateway's
//   `{ statusCode: 401, message: "Access denied due to invalid subscription key..." }` and wrong
//   user/key 401 `{ error: "login_failed" }` (MoMo developer community, "MoMo API common errors").
// - A token is refused once it expired: 401 on every API call (same page: "Access token expired").
// - POST /collection/v1_0/requesttopay with `X-Reference-Id` (UUID v4), `X-Target-Environment`,
//   optional `X-Callback-Url`: 202 with an empty body (API documentation, "RequesttoPay"); a reused
//   X-Reference-Id is 409 RESOURCE_ALREADY_EXIST "Duplicated reference id. Creation of resource failed."
//   (common errors page); a bad body or header is 400 (same page: wrong header values, X-Reference-Id
//   not a UUID v4, an apostrophe in the notes, notes over 160 characters, a currency the target
//   environment does not take: INVALID_CURRENCY).
// - GET /collection/v1_0/requesttopay/{referenceId}: 200 with the resource even when FAILED, with a
//   `reason`; 404 RESOURCE_NOT_FOUND for a reference it never received (API documentation,
//   "RequesttoPayTransactionStatus"; common errors page). The sandbox gives `reason` as a bare string
//   although the schema says `{ code, message }`: so does this fake (momoapi-node issue #85 shows a
//   sandbox answer).
// - Sandbox test numbers decide the outcome (MoMo developer portal, "Sandbox test numbers"):
//   46733123450 failed, 46733123451 rejected, 46733123452 timeout (expired), 46733123453 ongoing,
//   46733123454 pending, any other number succeeds. Not MTN's, this fake's own: 46733123455
//   NOT_ENOUGH_FUNDS, 46733123456 PAYER_NOT_FOUND, 46733123457 TRANSACTION_CANCELED,
//   46733123458 COULD_NOT_PERFORM_TRANSACTION, 46733123459 succeeds for one unit less than asked.
// - The callback goes to X-Callback-Url with the same resource as the status query, by PUT or POST
//   ("Allow PUT & POST on your callback listener host"), sent once with no retry ("The Wallet Platform
//   will only send the callback once") (API documentation, "Callback"). The newer text of that page
//   retries every second up to 20 times: `callbackRetryMs` plays that.
// - Refunds run on the Disbursement product, with its own API user, key and subscription key
//   (momodeveloper.mtn.com, "Products": each product is subscribed to with its own key; API user
//   provisioning is per subscription key): POST /disbursement/token/ as the Collection token;
//   POST /disbursement/v1_0/refund with `X-Reference-Id` (UUID v4), optional `X-Callback-Url` and the
//   RefundV1 body { amount, currency, externalId, payerMessage, payeeNote, referenceIdToRefund }: 202
//   empty; a reused X-Reference-Id is 409 RESOURCE_ALREADY_EXIST; a bad body 400. GET
//   /disbursement/v1_0/refund/{referenceId}: the Transfer resource { amount, currency,
//   financialTransactionId, externalId, payee, payerMessage, payeeNote, status, reason }, 200 even when
//   FAILED, 404 RESOURCE_NOT_FOUND when never received (API documentation, "Disbursement - Refund V1",
//   "GetRefundStatus"; MTN-Group/MoMoAPIs_Javascript_sdk refund-V1 and refund status). The callback
//   goes to X-Callback-Url once, as for requests to pay.
//   The fake's own choices where MTN does not say: a referenceIdToRefund it never collected, or a
//   refund above what was collected less what was refunded before, is accepted (202) and then FAILED
//   with reason NOT_ALLOWED (the refund is checked by the wallet platform, not the API gateway).
// - Payouts are transfers on the Disbursement product, with the same credentials and tokens as refunds:
//   POST /disbursement/v1_0/transfer with `X-Reference-Id` (UUID v4), optional `X-Callback-Url` and the
//   Transfer body { amount, currency, externalId, payee { partyIdType: MSISDN, partyId }, payerMessage,
//   payeeNote }: 202 empty; a reused X-Reference-Id is 409 RESOURCE_ALREADY_EXIST; a bad body 400.
//   GET /disbursement/v1_0/transfer/{referenceId}: the Transfer resource, 200 even when FAILED, 404
//   RESOURCE_NOT_FOUND when never received (API documentation, "Disbursement - Transfer",
//   "GetTransferStatus"; MTN-Group/MoMoAPIs_Javascript_sdk transfer and transfer status). The callback
//   goes to X-Callback-Url once, as for requests to pay. The sandbox test numbers decide a transfer as
//   they decide a request to pay (46733123450 FAILED, 46733123453/4 PENDING); the fake's own
//   46733123456 fails PAYEE_NOT_FOUND.
// Not MTN: the test controls (settle, expireTokens, swallow, the callback modes, failNextRefund,
// holdNextRefund, swallowRefund, garbageRefund, failNextTransfer, holdNextTransfer, swallowTransfer,
// settleTransfer) are fields and methods of the class.
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { FakeServer, parseJson } from './web';

type Outcome = { status: 'SUCCESSFUL' | 'FAILED' | 'PENDING'; reason: string | null; amountDelta: number };

/** The sandbox test numbers (first six lines: MTN's own), then the fake's. */
export const MTN_TEST_NUMBERS: Record<string, Outcome> = {
  '46733123450': { status: 'FAILED', reason: 'INTERNAL_PROCESSING_ERROR', amountDelta: 0 },
  '46733123451': { status: 'FAILED', reason: 'APPROVAL_REJECTED', amountDelta: 0 },
  '46733123452': { status: 'FAILED', reason: 'EXPIRED', amountDelta: 0 },
  '46733123453': { status: 'PENDING', reason: null, amountDelta: 0 },
  '46733123454': { status: 'PENDING', reason: null, amountDelta: 0 },
  '46733123455': { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS', amountDelta: 0 },
  '46733123456': { status: 'FAILED', reason: 'PAYER_NOT_FOUND', amountDelta: 0 },
  '46733123457': { status: 'FAILED', reason: 'TRANSACTION_CANCELED', amountDelta: 0 },
  '46733123458': { status: 'FAILED', reason: 'COULD_NOT_PERFORM_TRANSACTION', amountDelta: 0 },
  '46733123459': { status: 'SUCCESSFUL', reason: null, amountDelta: -1 },
};
const SUCCESS: Outcome = { status: 'SUCCESSFUL', reason: null, amountDelta: 0 };

export interface FakeMtnOptions {
  apiUser?: string;
  apiKey?: string;
  subscriptionKey?: string;
  disbursementApiUser?: string;
  disbursementApiKey?: string;
  disbursementSubscriptionKey?: string;
  targetEnvironment?: string;
  /** currencies the target environment takes (the real sandbox: EUR only) */
  currencies?: string[];
  tokenTtlSeconds?: number;
  /** how long the customer takes to answer the prompt */
  answerAfterMs?: number;
  callbackMethod?: 'PUT' | 'POST';
  /** once (MTN), drop (lost), duplicate (sent twice) */
  callbacks?: 'once' | 'drop' | 'duplicate';
  callbackDelayMs?: number;
  /** delays of the retries of a callback not answered 2xx (none by default, as MTN documents) */
  callbackRetryMs?: number[];
}

export interface FakeRequestToPay {
  reference: string;
  externalId: string;
  amount: string;
  currency: string;
  partyId: string;
  callbackUrl: string | null;
  status: 'SUCCESSFUL' | 'FAILED' | 'PENDING';
  reason: string | null;
  financialTransactionId: string | null;
  /** the amount the fake confirms (differs for the mismatch number) */
  confirmedAmount: string;
  /** when it was paid, where the fake knows it (the partner report's Date); the report's own time otherwise */
  paidAt?: Date;
}

export interface FakeMtnRefund {
  reference: string;
  referenceIdToRefund: string;
  externalId: string;
  amount: string;
  currency: string;
  payeeNote: string;
  callbackUrl: string | null;
  status: 'SUCCESSFUL' | 'FAILED' | 'PENDING';
  reason: string | null;
  financialTransactionId: string | null;
}

export interface FakeMtnTransfer {
  reference: string;
  externalId: string;
  amount: string;
  currency: string;
  partyId: string;
  payerMessage: string;
  payeeNote: string;
  callbackUrl: string | null;
  status: 'SUCCESSFUL' | 'FAILED' | 'PENDING';
  reason: string | null;
  financialTransactionId: string | null;
}

export interface FakeMtnCall {
  method: string;
  path: string;
  /** the answer's HTTP status; 0 for a request kept but never answered (swallowed) */
  status: number;
  /** the X-Reference-Id a send carried (null for any other call) */
  reference: string | null;
}

const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const ZERO_DECIMAL = new Set(['UGX', 'RWF', 'XAF', 'XOF', 'GNF']);

export class FakeMtnMomo extends FakeServer {
  readonly o: Required<FakeMtnOptions>;
  readonly requests = new Map<string, FakeRequestToPay>();
  readonly calls: FakeMtnCall[] = [];
  readonly callbacksSent: { reference: string; method: string; status: number | string }[] = [];
  readonly refunds = new Map<string, FakeMtnRefund>();
  private readonly tokens = new Map<string, number>();
  private readonly disbursementTokens = new Map<string, number>();
  /** requests to accept and record but never answer (a lost answer: the caller times out) */
  swallow = 0;
  /** refunds to accept and record but never answer */
  swallowRefund = 0;
  /** refunds answered 200 with a body that is no JSON (carried out all the same) */
  garbageRefund = 0;
  /** reasons the next refunds fail with (first in, first used) */
  private readonly refundFailures: string[] = [];
  /** refunds left PENDING until settleRefund */
  holdNextRefund = 0;
  readonly transfers = new Map<string, FakeMtnTransfer>();
  /** transfers to accept and record but never answer (a lost answer) */
  swallowTransfer = 0;
  /** transfers left PENDING until settleTransfer */
  holdNextTransfer = 0;
  /** reasons the next transfers fail with (first in, first used) */
  private readonly transferFailures: string[] = [];

  constructor(options: FakeMtnOptions = {}) {
    super();
    this.o = {
      apiUser: '6f1c0a52-3b8e-4d7a-9c21-5e4f8a9b0c13',
      apiKey: '0d4b7c9e2f6a41b3a8c5d7e9f1a2b3c4',
      subscriptionKey: '5a7c9e1b3d5f47a9b1c3d5e7f9a1b3c5',
      targetEnvironment: 'sandbox',
      disbursementApiUser: '9a2e4c61-7b3d-4f8a-8e10-2c4d6f8a0b1e',
      disbursementApiKey: '7e1a3c5b9d2f4a6c8e0b1d3f5a7c9e2b',
      disbursementSubscriptionKey: '3c5e7a9b1d2f4e6a8c0b2d4f6a8c0e1b',
      currencies: ['EUR', 'UGX', 'GHS', 'RWF', 'XAF', 'XOF', 'ZMW'],
      tokenTtlSeconds: 3600,
      answerAfterMs: 20,
      callbackMethod: 'PUT',
      callbacks: 'once',
      callbackDelayMs: 0,
      callbackRetryMs: [],
      ...options,
    };
  }

  /** The credentials a MID needs to use this fake. */
  credentials(): Record<string, string> {
    return { api_user: this.o.apiUser, api_key: this.o.apiKey, subscription_key: this.o.subscriptionKey, target_environment: this.o.targetEnvironment };
  }

  /** The credentials with the Disbursement product's, so that the MID can refund. */
  refundCredentials(): Record<string, string> {
    return {
      ...this.credentials(),
      disbursement_api_user: this.o.disbursementApiUser,
      disbursement_api_key: this.o.disbursementApiKey,
      disbursement_subscription_key: this.o.disbursementSubscriptionKey,
    };
  }

  /** The next refund is accepted, then FAILED with this reason (e.g. NOT_ENOUGH_FUNDS). */
  failNextRefund(reason: string): void {
    this.refundFailures.push(reason);
  }

  /** A refund held PENDING ends now; the callback follows. */
  settleRefund(reference: string, status: 'SUCCESSFUL' | 'FAILED', reason: string | null = null): void {
    const r = this.refunds.get(reference);
    if (!r) throw new Error(`no refund ${reference}`);
    Object.assign(r, { status, reason, financialTransactionId: status === 'SUCCESSFUL' ? String(Date.now()) : null });
    if (r.callbackUrl && this.o.callbacks !== 'drop') this.later(this.o.callbackDelayMs, () => this.post(r.callbackUrl!, r.reference, this.refundResource(r)));
  }

  /** The next transfer is accepted, then FAILED with this reason (e.g. NOT_ENOUGH_FUNDS). */
  failNextTransfer(reason: string): void {
    this.transferFailures.push(reason);
  }

  /** A transfer held PENDING ends now; the callback follows (unless callbacks are dropped). */
  settleTransfer(reference: string, status: 'SUCCESSFUL' | 'FAILED', reason: string | null = null): void {
    const t = this.transfers.get(reference);
    if (!t) throw new Error(`no transfer ${reference}`);
    Object.assign(t, { status, reason, financialTransactionId: status === 'SUCCESSFUL' ? String(Date.now()) : null });
    if (t.callbackUrl && this.o.callbacks !== 'drop') this.later(this.o.callbackDelayMs, () => this.post(t.callbackUrl!, t.reference, this.transferResource(t)));
  }

  /** Prompts sent to phones: requests accepted (a 409 sends none). */
  get prompts(): number {
    return this.requests.size;
  }

  /**
   * Not MTN: the test's shortcut for 10,000 payments. Records requests to pay as this fake would have
   * carried them out (SUCCESSFUL, with MTN's transaction id and the time it was paid) without the HTTP round
   * trips; the service's side of each is seeded apart (test/helpers/bulk-payments.ts).
   */
  sawPaid(payments: { reference: string; externalId: string; amount: string; currency: string; partyId: string; at: Date }[]): void {
    for (const [i, p] of payments.entries()) {
      this.requests.set(p.reference, {
        reference: p.reference, externalId: p.externalId, amount: p.amount, currency: p.currency, partyId: p.partyId, callbackUrl: null,
        status: 'SUCCESSFUL', reason: null, financialTransactionId: String(p.at.getTime() + i), confirmedAmount: p.amount, paidAt: p.at,
      });
    }
  }

  byExternalId(externalId: string): FakeRequestToPay | undefined {
    return [...this.requests.values()].find((r) => r.externalId === externalId);
  }

  /** Every token issued so far stops working (as one past its expires_in). */
  expireTokens(): void {
    for (const t of this.tokens.keys()) this.tokens.set(t, 0);
  }

  /** The customer answers now (e.g. pays after the merchant's deadline); the callback follows. */
  settle(reference: string, status: 'SUCCESSFUL' | 'FAILED', reason: string | null = null): void {
    const r = this.requests.get(reference);
    if (!r) throw new Error(`no request ${reference}`);
    Object.assign(r, { status, reason, financialTransactionId: status === 'SUCCESSFUL' ? String(Date.now()) : null });
    this.callBack(r);
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, raw: string): Promise<void> {
    const reference = typeof req.headers['x-reference-id'] === 'string' ? req.headers['x-reference-id'] : null;
    const done = (status: number, body?: unknown) => {
      this.calls.push({ method: req.method ?? '', path: url.pathname, status, reference });
      this.json(res, status, body);
    };
    if (!this.answerable(req, res, { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable' })) return;
    if (url.pathname.startsWith('/disbursement/')) return this.disbursement(req, res, url, raw, done);
    if (req.headers['ocp-apim-subscription-key'] !== this.o.subscriptionKey) {
      return done(401, { statusCode: 401, message: 'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.' });
    }
    if (req.method === 'POST' && url.pathname === '/collection/token/') return done(...this.token(req));
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || (this.tokens.get(token) ?? 0) < Date.now()) return done(401, { code: 'UNAUTHORIZED', message: 'Access token is missing, invalid or expired' });
    if (req.headers['x-target-environment'] !== this.o.targetEnvironment) return done(400, { code: 'BAD_REQUEST', message: 'Wrong X-Target-Environment' });
    if (req.method === 'POST' && url.pathname === '/collection/v1_0/requesttopay') {
      const answer = this.requestToPay(req, raw);
      if (answer === 'swallowed') return void this.calls.push({ method: 'POST', path: url.pathname, status: 0, reference });
      return done(...answer);
    }
    const m = /^\/collection\/v1_0\/requesttopay\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && m) {
      const r = this.requests.get(decodeURIComponent(m[1]));
      return r ? done(200, this.resource(r)) : done(404, { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' });
    }
    done(404, { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' });
  }

  private token(req: http.IncomingMessage, user = this.o.apiUser, key = this.o.apiKey, tokens = this.tokens): [number, unknown] {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [u, k] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    if (u !== user || k !== key) return [401, { error: 'login_failed' }];
    const token = randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, '');
    tokens.set(token, Date.now() + this.o.tokenTtlSeconds * 1000);
    return [200, { access_token: token, token_type: 'access_token', expires_in: this.o.tokenTtlSeconds }];
  }

  /** The Disbursement product: its own subscription key, API user and tokens (a Collection token is refused). */
  private disbursement(req: http.IncomingMessage, res: http.ServerResponse, url: URL, raw: string, done: (status: number, body?: unknown) => void): void {
    const reference = typeof req.headers['x-reference-id'] === 'string' ? req.headers['x-reference-id'] : null;
    if (req.headers['ocp-apim-subscription-key'] !== this.o.disbursementSubscriptionKey) {
      return done(401, { statusCode: 401, message: 'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.' });
    }
    if (req.method === 'POST' && url.pathname === '/disbursement/token/') {
      return done(...this.token(req, this.o.disbursementApiUser, this.o.disbursementApiKey, this.disbursementTokens));
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || (this.disbursementTokens.get(token) ?? 0) < Date.now()) return done(401, { code: 'UNAUTHORIZED', message: 'Access token is missing, invalid or expired' });
    if (req.headers['x-target-environment'] !== this.o.targetEnvironment) return done(400, { code: 'BAD_REQUEST', message: 'Wrong X-Target-Environment' });
    if (req.method === 'POST' && url.pathname === '/disbursement/v1_0/refund') {
      const answer = this.refund(req, raw);
      if (answer === 'swallowed') return void this.calls.push({ method: 'POST', path: url.pathname, status: 0, reference });
      if (answer === 'garbage') {
        this.calls.push({ method: 'POST', path: url.pathname, status: 200, reference });
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Bad gateway</html>');
        return;
      }
      return done(...answer);
    }
    if (req.method === 'POST' && url.pathname === '/disbursement/v1_0/transfer') {
      const answer = this.transfer(req, raw);
      if (answer === 'swallowed') return void this.calls.push({ method: 'POST', path: url.pathname, status: 0, reference });
      return done(...answer);
    }
    const t = /^\/disbursement\/v1_0\/transfer\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && t) {
      const r = this.transfers.get(decodeURIComponent(t[1]));
      return r ? done(200, this.transferResource(r)) : done(404, { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' });
    }
    const m = /^\/disbursement\/v1_0\/refund\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && m) {
      const r = this.refunds.get(decodeURIComponent(m[1]));
      return r ? done(200, this.refundResource(r)) : done(404, { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' });
    }
    done(404, { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' });
  }

  private refund(req: http.IncomingMessage, raw: string): [number, unknown?] | 'swallowed' | 'garbage' {
    const reference = String(req.headers['x-reference-id'] ?? '');
    if (!UUID4.test(reference)) return [400, { code: 'INVALID_REFERENCE_ID', message: 'X-Reference-Id must be a UUID version 4' }];
    if (this.refunds.has(reference)) return [409, { code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id. Creation of resource failed.' }];
    const b = parseJson(raw) as Partial<Record<'amount' | 'currency' | 'externalId' | 'payeeNote' | 'referenceIdToRefund', unknown>> | null | undefined;
    const problem = this.refundProblem(b);
    if (problem || !b) return [400, problem];
    const r: FakeMtnRefund = {
      reference, referenceIdToRefund: String(b.referenceIdToRefund), externalId: String(b.externalId ?? ''), amount: String(b.amount),
      currency: String(b.currency), payeeNote: String(b.payeeNote ?? ''),
      callbackUrl: typeof req.headers['x-callback-url'] === 'string' ? req.headers['x-callback-url'] : null,
      status: 'PENDING', reason: null, financialTransactionId: null,
    };
    const failure = this.refundFailures.shift() ?? this.refundNotAllowed(r);
    this.refunds.set(reference, r);
    if (this.holdNextRefund > 0) this.holdNextRefund -= 1;
    else this.later(this.o.answerAfterMs, () => this.settleRefund(reference, failure ? 'FAILED' : 'SUCCESSFUL', failure));
    if (this.swallowRefund > 0) {
      this.swallowRefund -= 1;
      return 'swallowed';
    }
    if (this.garbageRefund > 0) {
      this.garbageRefund -= 1;
      return 'garbage';
    }
    return [202];
  }

  private transfer(req: http.IncomingMessage, raw: string): [number, unknown?] | 'swallowed' {
    const reference = String(req.headers['x-reference-id'] ?? '');
    if (!UUID4.test(reference)) return [400, { code: 'INVALID_REFERENCE_ID', message: 'X-Reference-Id must be a UUID version 4' }];
    if (this.transfers.has(reference)) return [409, { code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id. Creation of resource failed.' }];
    const b = parseJson(raw) as { amount: string; currency: string; externalId?: unknown; payee?: { partyIdType?: unknown; partyId?: unknown }; payerMessage?: unknown; payeeNote?: unknown } | null;
    const problem = this.bodyProblem(b && typeof b === 'object' ? { ...b, payer: b.payee } : b);
    if (problem || !b?.payee) return [400, problem ?? { code: 'BAD_REQUEST', message: 'Invalid payee' }];
    const t: FakeMtnTransfer = {
      reference, externalId: String(b.externalId ?? ''), amount: b.amount, currency: b.currency, partyId: String(b.payee.partyId),
      payerMessage: String(b.payerMessage ?? ''), payeeNote: String(b.payeeNote ?? ''),
      callbackUrl: typeof req.headers['x-callback-url'] === 'string' ? req.headers['x-callback-url'] : null,
      status: 'PENDING', reason: null, financialTransactionId: null,
    };
    this.transfers.set(reference, t);
    const byNumber = t.partyId === '46733123456' ? { status: 'FAILED' as const, reason: 'PAYEE_NOT_FOUND' } : (MTN_TEST_NUMBERS[t.partyId] ?? SUCCESS);
    const failure = this.transferFailures.shift() ?? null;
    if (this.holdNextTransfer > 0) this.holdNextTransfer -= 1;
    else if (failure) this.later(this.o.answerAfterMs, () => this.settleTransfer(reference, 'FAILED', failure));
    else if (byNumber.status !== 'PENDING') this.later(this.o.answerAfterMs, () => this.settleTransfer(reference, byNumber.status as 'SUCCESSFUL' | 'FAILED', byNumber.reason));
    if (this.swallowTransfer > 0) {
      this.swallowTransfer -= 1;
      return 'swallowed';
    }
    return [202];
  }

  private transferResource(t: FakeMtnTransfer) {
    return {
      amount: t.amount,
      currency: t.currency,
      financialTransactionId: t.financialTransactionId ?? undefined,
      externalId: t.externalId,
      payee: { partyIdType: 'MSISDN', partyId: t.partyId },
      payerMessage: t.payerMessage,
      payeeNote: t.payeeNote,
      status: t.status,
      ...(t.reason ? { reason: t.reason } : {}),
    };
  }

  private refundProblem(b: Partial<Record<string, unknown>> | null | undefined): { code: string; message: string } | null {
    if (!b || typeof b !== 'object') return { code: 'BAD_REQUEST', message: 'Body is not a RefundV1' };
    if (typeof b.currency !== 'string' || !this.o.currencies.includes(b.currency)) return { code: 'INVALID_CURRENCY', message: 'Currency not supported.' };
    const amountPattern = ZERO_DECIMAL.has(b.currency) ? /^\d+$/ : /^\d+(\.\d{1,2})?$/;
    if (typeof b.amount !== 'string' || !amountPattern.test(b.amount) || Number(b.amount) <= 0) return { code: 'BAD_REQUEST', message: 'Invalid amount' };
    if (typeof b.referenceIdToRefund !== 'string' || !UUID4.test(b.referenceIdToRefund)) return { code: 'BAD_REQUEST', message: 'Invalid referenceIdToRefund' };
    for (const note of [b.payerMessage, b.payeeNote]) {
      if (note !== undefined && (typeof note !== 'string' || note.length > 160 || note.includes("'"))) return { code: 'BAD_REQUEST', message: 'Invalid note' };
    }
    return null;
  }

  /** The fake's own rule: only a successful request to pay, and never more than it collected in all. */
  private refundNotAllowed(r: FakeMtnRefund): string | null {
    const paid = this.requests.get(r.referenceIdToRefund);
    if (!paid || paid.status !== 'SUCCESSFUL' || paid.currency !== r.currency) return 'NOT_ALLOWED';
    const before = [...this.refunds.values()]
      .filter((x) => x.referenceIdToRefund === r.referenceIdToRefund && x.status !== 'FAILED')
      .reduce((sum, x) => sum + Number(x.amount), 0);
    return before + Number(r.amount) > Number(paid.confirmedAmount) ? 'NOT_ALLOWED' : null;
  }

  private refundResource(r: FakeMtnRefund) {
    const paid = this.requests.get(r.referenceIdToRefund);
    return {
      amount: r.amount,
      currency: r.currency,
      financialTransactionId: r.financialTransactionId ?? undefined,
      externalId: r.externalId,
      payee: { partyIdType: 'MSISDN', partyId: paid?.partyId ?? '' },
      payerMessage: '',
      payeeNote: r.payeeNote,
      status: r.status,
      ...(r.reason ? { reason: r.reason } : {}),
    };
  }

  private requestToPay(req: http.IncomingMessage, raw: string): [number, unknown?] | 'swallowed' {
    const reference = String(req.headers['x-reference-id'] ?? '');
    if (!UUID4.test(reference)) return [400, { code: 'INVALID_REFERENCE_ID', message: 'X-Reference-Id must be a UUID version 4' }];
    if (this.requests.has(reference)) return [409, { code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id. Creation of resource failed.' }];
    const problem = this.bodyProblem(parseJson(raw));
    if (problem) return [400, problem];
    const b = parseJson(raw) as { amount: string; currency: string; externalId: string; payer: { partyId: string } };
    const outcome = MTN_TEST_NUMBERS[b.payer.partyId] ?? SUCCESS;
    const confirmed = (Number(b.amount) + outcome.amountDelta).toString();
    const r: FakeRequestToPay = {
      reference, externalId: b.externalId, amount: b.amount, currency: b.currency, partyId: b.payer.partyId,
      callbackUrl: typeof req.headers['x-callback-url'] === 'string' ? req.headers['x-callback-url'] : null,
      status: 'PENDING', reason: null, financialTransactionId: null, confirmedAmount: confirmed,
    };
    this.requests.set(reference, r);
    if (outcome.status !== 'PENDING') {
      this.later(this.o.answerAfterMs, () => this.settle(reference, outcome.status as 'SUCCESSFUL' | 'FAILED', outcome.reason));
    }
    if (this.swallow > 0) {
      this.swallow -= 1;
      return 'swallowed';
    }
    return [202];
  }

  private bodyProblem(body: unknown): { code: string; message: string } | null {
    const b = body as { amount?: unknown; currency?: unknown; externalId?: unknown; payer?: { partyIdType?: unknown; partyId?: unknown }; payerMessage?: unknown; payeeNote?: unknown } | null;
    if (!b || typeof b !== 'object') return { code: 'BAD_REQUEST', message: 'Body is not a RequestToPay' };
    if (typeof b.currency !== 'string' || !this.o.currencies.includes(b.currency)) return { code: 'INVALID_CURRENCY', message: 'Currency not supported.' };
    const amountPattern = ZERO_DECIMAL.has(b.currency) ? /^\d+$/ : /^\d+(\.\d{1,2})?$/;
    if (typeof b.amount !== 'string' || !amountPattern.test(b.amount) || Number(b.amount) <= 0) return { code: 'BAD_REQUEST', message: 'Invalid amount' };
    if (b.payer?.partyIdType !== 'MSISDN' || typeof b.payer.partyId !== 'string' || !/^\d{8,15}$/.test(b.payer.partyId)) {
      return { code: 'BAD_REQUEST', message: 'Invalid payer' };
    }
    for (const note of [b.payerMessage, b.payeeNote]) {
      if (note !== undefined && (typeof note !== 'string' || note.length > 160 || note.includes("'"))) return { code: 'BAD_REQUEST', message: 'Invalid note' };
    }
    return null;
  }

  private resource(r: FakeRequestToPay) {
    return {
      financialTransactionId: r.financialTransactionId ?? undefined,
      externalId: r.externalId,
      amount: r.status === 'SUCCESSFUL' ? r.confirmedAmount : r.amount,
      currency: r.currency,
      payer: { partyIdType: 'MSISDN', partyId: r.partyId },
      status: r.status,
      ...(r.reason ? { reason: r.reason } : {}),
    };
  }

  private callBack(r: FakeRequestToPay): void {
    if (!r.callbackUrl || this.o.callbacks === 'drop') return;
    const times = this.o.callbacks === 'duplicate' ? 2 : 1;
    for (let i = 0; i < times; i++) this.later(this.o.callbackDelayMs, () => this.sendCallback(r, 0));
  }

  private sendCallback(r: FakeRequestToPay, attempt: number): Promise<void> {
    return this.post(r.callbackUrl!, r.reference, this.resource(r), attempt);
  }

  private async post(callbackUrl: string, reference: string, resource: unknown, attempt = 0): Promise<void> {
    let status: number | string;
    try {
      const res = await fetch(callbackUrl, {
        method: this.o.callbackMethod,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(resource),
        signal: AbortSignal.timeout(2000),
      });
      status = res.status;
      await res.arrayBuffer();
    } catch (e) {
      status = (e as Error).name;
    }
    this.callbacksSent.push({ reference, method: this.o.callbackMethod, status });
    const ok = typeof status === 'number' && status >= 200 && status < 300;
    if (!ok && attempt < this.o.callbackRetryMs.length) this.later(this.o.callbackRetryMs[attempt], () => this.post(callbackUrl, reference, resource, attempt + 1));
  }
}
