// The client factory: the generated openapi-fetch client, with every call carrying a valid access
// token (fetched with the API token's key and secret, cached, renewed before expiry, and renewed and
// retried once when the API answers that the token expired; disbursement calls also carry the API secret,
// as the API requires), and `unwrap` to turn error answers into PayCollectError.
import createClient from 'openapi-fetch';
import type { Client } from 'openapi-fetch';
import { PayCollectError } from './errors';
import type { ApiError } from './errors';
import type { components, operations, paths } from './generated/merchant-api';
import { TokenCache } from './tokens';
import type { AccessToken } from './tokens';

/** The first server of the contract: a generated client starts in the sandbox. */
export const SANDBOX_URL = 'https://sandbox.paycollect.dev';
export const LIVE_URL = 'https://api.paycollect.dev';
const DEFAULT_REFRESH_MARGIN_SECONDS = 60;
/** Money out: every call under this path needs the API secret in Secret-Key besides the access token. */
const SECRET_PATHS = /^\/v1\/(disbursements|exports\/disbursements)(\/|$)/;
/**
 * The API's 401 for an access token that expired (RFC 6750's challenge, `error="invalid_token"`): the one
 * refusal a new token cures. Any other 401 (a refused Secret-Key, a revoked token) is answered as it is:
 * renewing would only repeat the refusal and spend the token endpoint's failure budget.
 */
const EXPIRED = /\berror="invalid_token"/;

export type PublicKey = components['schemas']['PublicKey'];
export type DisbursementCreate = components['schemas']['DisbursementCreate'];
export type DisbursementQuery = NonNullable<operations['listDisbursements']['parameters']['query']>;
export type QuoteCreate = components['schemas']['QuoteCreate'];
export type PaymentLinkCreate = components['schemas']['PaymentLinkCreate'];
export type PaymentLinkQuery = NonNullable<operations['listPaymentLinks']['parameters']['query']>;
export type DisputeQuery = NonNullable<operations['listDisputes']['parameters']['query']>;
export type DisputeAccept = components['schemas']['DisputeAccept'];
export type DisputeEvidence = components['schemas']['DisputeEvidence'];

export interface PayCollectOptions {
  apiKey: string;
  apiSecret: string;
  /** default: the sandbox */
  baseUrl?: string;
  /** lifetime of each access token asked for, in seconds (60 to 86400; the API's default is 900) */
  tokenLifetimeSeconds?: number;
  /** renew a token this long before it expires (default 60 s) */
  refreshMarginSeconds?: number;
  /** an access token kept from before (for example shared by several processes) */
  token?: AccessToken;
  /** the transport (default: globalThis.fetch) */
  fetch?: (request: Request) => Promise<Response>;
  /** the clock, in milliseconds since the epoch */
  now?: () => number;
}

export interface PayCollect extends DisbursementCalls, QuoteCalls, PaymentLinkCalls, DisputeCalls {
  /** the generated client: `api.POST('/v1/collections/request-to-pay', { body })`, typed by the contract */
  api: Client<paths>;
  /** the access token in use, fetched or renewed when needed */
  accessToken(): Promise<AccessToken>;
  /** the card encryption key, fetched once; pass `refresh: true` after CARD_DECRYPTION_FAILED */
  publicKey(o?: { refresh?: boolean }): Promise<PublicKey>;
}

/**
 * The disbursement operations of the generated client by name, typed by it (the client itself adds the
 * API secret in `Secret-Key` to every disbursement call: `withToken` below). Pass the answer to `unwrap`
 * like any call.
 */
export type DisbursementCalls = ReturnType<typeof disbursementCalls>;

function disbursementCalls(api: Client<paths>) {
  return {
    /** Pays out of a wallet (`POST /v1/disbursements`); the same merchant_reference and body again answers the same disbursement. */
    createDisbursement: (body: DisbursementCreate) => api.POST('/v1/disbursements', { body }),
    /** One disbursement as it is now (`GET /v1/disbursements/{gateway_reference}`). */
    getDisbursement: (gatewayReference: string) => api.GET('/v1/disbursements/{gateway_reference}', { params: { path: { gateway_reference: gatewayReference } } }),
    /** A page of disbursements, newest first (`GET /v1/disbursements`); `iterate` follows the pages. */
    listDisbursements: (query?: DisbursementQuery) => api.GET('/v1/disbursements', { params: { query } }),
  };
}

/**
 * The FX quote operations of the generated client by name, typed by it. Name the quote's `quote_id` in a
 * request-to-pay before its `expires_at` and the payment is converted exactly as quoted.
 */
export type QuoteCalls = ReturnType<typeof quoteCalls>;

function quoteCalls(api: Client<paths>) {
  return {
    /** What a payment in `currency` credits the `account_currency` wallet, held until `expires_at` (`POST /v1/quotes`). */
    createQuote: (body: QuoteCreate) => api.POST('/v1/quotes', { body }),
    /** One quote, as it was given (`GET /v1/quotes/{quote_id}`). */
    getQuote: (quoteId: string) => api.GET('/v1/quotes/{quote_id}', { params: { path: { quote_id: quoteId } } }),
  };
}

/**
 * The payment link operations of the generated client by name, typed by it: share a link's `url` (or its
 * QR code) and each customer's payment on it is an ordinary collection.
 */
export type PaymentLinkCalls = ReturnType<typeof paymentLinkCalls>;

function paymentLinkCalls(api: Client<paths>) {
  const path = (linkId: string) => ({ params: { path: { link_id: linkId } } });
  return {
    /** A link to share, with its `url` and QR codes (`POST /v1/payment-links`). */
    createPaymentLink: (body: PaymentLinkCreate) => api.POST('/v1/payment-links', { body }),
    /** One link with its counts (`GET /v1/payment-links/{link_id}`). */
    getPaymentLink: (linkId: string) => api.GET('/v1/payment-links/{link_id}', path(linkId)),
    /** A page of links, newest first (`GET /v1/payment-links`); `iterate` follows the pages. */
    listPaymentLinks: (query?: PaymentLinkQuery) => api.GET('/v1/payment-links', { params: { query } }),
    /** Stops the link taking payments; its page shows `message` (`POST /v1/payment-links/{link_id}/deactivate`). */
    deactivatePaymentLink: (linkId: string, message: string) => api.POST('/v1/payment-links/{link_id}/deactivate', { ...path(linkId), body: { message } }),
    /** Lets a deactivated link take payments again (`POST /v1/payment-links/{link_id}/reactivate`). */
    reactivatePaymentLink: (linkId: string) => api.POST('/v1/payment-links/{link_id}/reactivate', path(linkId)),
  };
}

/**
 * The card dispute operations of the generated client by name, typed by it: read the business's disputes,
 * and answer one that needs a response before its `deadline`, by accepting it or contesting it with evidence.
 */
export type DisputeCalls = ReturnType<typeof disputeCalls>;

function disputeCalls(api: Client<paths>) {
  const path = (gatewayReference: string) => ({ params: { path: { gateway_reference: gatewayReference } } });
  return {
    /** A page of disputes, newest first, of one `status` when asked (`GET /v1/disputes`); `iterate` follows the pages. */
    listDisputes: (query?: DisputeQuery) => api.GET('/v1/disputes', { params: { query } }),
    /** One dispute as it is now (`GET /v1/disputes/{gateway_reference}`). */
    getDispute: (gatewayReference: string) => api.GET('/v1/disputes/{gateway_reference}', path(gatewayReference)),
    /** Accepts the dispute, wholly or for `amount` (`POST /v1/disputes/{gateway_reference}/accept`). */
    acceptDispute: (gatewayReference: string, body: DisputeAccept) => api.POST('/v1/disputes/{gateway_reference}/accept', { ...path(gatewayReference), body }),
    /** Contests the dispute with evidence and an optional file; it is under review until the bank decides (`POST /v1/disputes/{gateway_reference}/evidence`). */
    submitDisputeEvidence: (gatewayReference: string, body: DisputeEvidence) => api.POST('/v1/disputes/{gateway_reference}/evidence', { ...path(gatewayReference), body }),
  };
}

interface CallResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The body of a successful answer, or a PayCollectError carrying the error answer. */
export async function unwrap<T>(call: Promise<CallResult<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok && data !== undefined) return data;
  const requestId = response.headers.get('x-request-id');
  const body = error as ApiError | undefined;
  if (typeof body?.code === 'string' && body.status === 'error') throw new PayCollectError(response.status, body, requestId);
  throw new Error(`${response.status} ${response.statusText} from ${response.url}: not a PayCollect error answer`);
}

export function createPayCollect(o: PayCollectOptions): PayCollect {
  const send = o.fetch ?? ((request: Request) => globalThis.fetch(request));
  const now = o.now ?? Date.now;
  // JSON everywhere, including the public key (its PEM form is for curl).
  const common = { baseUrl: o.baseUrl ?? SANDBOX_URL, headers: { accept: 'application/json' } };
  const anonymous = createClient<paths>({ ...common, fetch: send });
  const tokens = new TokenCache(
    async () => {
      const body = { api_key: o.apiKey, expires_in: o.tokenLifetimeSeconds };
      const answer = await unwrap(anonymous.POST('/v1/auth/token', { params: { header: { 'Secret-Key': o.apiSecret } }, body }));
      return answer.data;
    },
    (o.refreshMarginSeconds ?? DEFAULT_REFRESH_MARGIN_SECONDS) * 1000,
    now,
    o.token,
  );

  async function withToken(request: Request): Promise<Response> {
    if (SECRET_PATHS.test(new URL(request.url).pathname)) request.headers.set('secret-key', o.apiSecret);
    const spare = request.clone();
    const token = await tokens.get();
    request.headers.set('authorization', token.token);
    const response = await send(request);
    if (response.status !== 401 || !EXPIRED.test(response.headers.get('www-authenticate') ?? '')) return response;
    tokens.refused(token);
    spare.headers.set('authorization', (await tokens.get()).token);
    return send(spare);
  }

  const api = createClient<paths>({ ...common, fetch: withToken });
  let key: PublicKey | null = null;
  return {
    api,
    ...disbursementCalls(api),
    ...quoteCalls(api),
    ...paymentLinkCalls(api),
    ...disputeCalls(api),
    accessToken: () => tokens.get(),
    async publicKey({ refresh = false } = {}) {
      if (key && !refresh) return key;
      // the JSON-only operation: GET /v1/public-key answers PEM or JSON by Accept, a union to narrow
      key = (await unwrap(api.GET('/v1/card-keys/current'))).data;
      return key;
    },
  };
}
