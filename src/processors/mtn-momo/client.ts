// MTN MoMo transport: URLs, headers, the OAuth token per MID and product (Basic api_user:api_key ->
// bearer token of about an hour, cached and refreshed before expiry), deadlines. Collections use the
// Collection product, refunds and payouts (transfers) the Disbursement product with its own API user, key and subscription key.
// No decisions here: transformers.ts reads every answer.
import { callVendor } from '../transport';
import type { VendorAnswer } from '../transport';
import { TokenCache, tokenFetchOf } from '../token-cache';
import type { TokenFetch } from '../token-cache';
import type { CallContext } from '../types';
import type { MtnRefund, MtnRequestToPay, MtnTransfer } from './transformers';

export interface MtnClientSettings {
  baseUrl: string;
  timeoutMs: number;
  tokenMarginMs: number;
}

export class MtnClient {
  private readonly tokens: TokenCache;
  /** Disbursement tokens in a cache of their own: a Collection token never goes to a Disbursement call */
  private readonly disbursementTokens: TokenCache;

  constructor(private readonly settings: MtnClientSettings) {
    this.tokens = new TokenCache(settings.tokenMarginMs);
    this.disbursementTokens = new TokenCache(settings.tokenMarginMs);
  }

  /** POST /collection/token/ with Basic auth and the subscription key; no body. */
  fetchToken(ctx: CallContext): Promise<TokenFetch> {
    const basic = Buffer.from(`${ctx.credentials.api_user}:${ctx.credentials.api_key}`).toString('base64');
    return callVendor({
      method: 'POST',
      url: `${this.settings.baseUrl}/collection/token/`,
      headers: { authorization: `Basic ${basic}`, 'ocp-apim-subscription-key': ctx.credentials.subscription_key },
      timeoutMs: this.settings.timeoutMs,
    }).then(tokenFetchOf);
  }

  requestToPay(ctx: CallContext, reference: string, callbackUrl: string, body: MtnRequestToPay): Promise<VendorAnswer> {
    return this.tokens.authorized(ctx, () => this.fetchToken(ctx), (token) =>
      callVendor({
        method: 'POST',
        url: `${this.settings.baseUrl}/collection/v1_0/requesttopay`,
        headers: {
          ...this.headers(ctx, token),
          'content-type': 'application/json',
          'x-reference-id': reference,
          'x-callback-url': callbackUrl,
        },
        body: JSON.stringify(body),
        timeoutMs: this.settings.timeoutMs,
      }),
    );
  }

  requestToPayStatus(ctx: CallContext, reference: string): Promise<VendorAnswer> {
    return this.tokens.authorized(ctx, () => this.fetchToken(ctx), (token) =>
      callVendor({
        method: 'GET',
        url: `${this.settings.baseUrl}/collection/v1_0/requesttopay/${encodeURIComponent(reference)}`,
        headers: this.headers(ctx, token),
        timeoutMs: this.settings.timeoutMs,
      }),
    );
  }

  /** POST /disbursement/token/ with the Disbursement API user's Basic auth and the Disbursement subscription key. */
  fetchDisbursementToken(ctx: CallContext): Promise<TokenFetch> {
    const c = ctx.credentials;
    const basic = Buffer.from(`${c.disbursement_api_user}:${c.disbursement_api_key}`).toString('base64');
    return callVendor({
      method: 'POST',
      url: `${this.settings.baseUrl}/disbursement/token/`,
      headers: { authorization: `Basic ${basic}`, 'ocp-apim-subscription-key': c.disbursement_subscription_key },
      timeoutMs: this.settings.timeoutMs,
    }).then(tokenFetchOf);
  }

  refund(ctx: CallContext, reference: string, callbackUrl: string, body: MtnRefund): Promise<VendorAnswer> {
    return this.disbursementSend(ctx, 'refund', reference, callbackUrl, body);
  }

  refundStatus(ctx: CallContext, reference: string): Promise<VendorAnswer> {
    return this.disbursementStatus(ctx, 'refund', reference);
  }

  /** A payout: POST /disbursement/v1_0/transfer, on the same product, credentials and token cache as refunds. */
  transfer(ctx: CallContext, reference: string, callbackUrl: string, body: MtnTransfer): Promise<VendorAnswer> {
    return this.disbursementSend(ctx, 'transfer', reference, callbackUrl, body);
  }

  transferStatus(ctx: CallContext, reference: string): Promise<VendorAnswer> {
    return this.disbursementStatus(ctx, 'transfer', reference);
  }

  private disbursementSend(ctx: CallContext, resource: 'refund' | 'transfer', reference: string, callbackUrl: string, body: unknown): Promise<VendorAnswer> {
    return this.disbursementTokens.authorized(ctx, () => this.fetchDisbursementToken(ctx), (token) =>
      callVendor({
        method: 'POST',
        url: `${this.settings.baseUrl}/disbursement/v1_0/${resource}`,
        headers: {
          ...this.headers(ctx, token, ctx.credentials.disbursement_subscription_key),
          'content-type': 'application/json',
          'x-reference-id': reference,
          'x-callback-url': callbackUrl,
        },
        body: JSON.stringify(body),
        timeoutMs: this.settings.timeoutMs,
      }),
    );
  }

  private disbursementStatus(ctx: CallContext, resource: 'refund' | 'transfer', reference: string): Promise<VendorAnswer> {
    return this.disbursementTokens.authorized(ctx, () => this.fetchDisbursementToken(ctx), (token) =>
      callVendor({
        method: 'GET',
        url: `${this.settings.baseUrl}/disbursement/v1_0/${resource}/${encodeURIComponent(reference)}`,
        headers: this.headers(ctx, token, ctx.credentials.disbursement_subscription_key),
        timeoutMs: this.settings.timeoutMs,
      }),
    );
  }

  private headers(ctx: CallContext, token: string, subscriptionKey = ctx.credentials.subscription_key): Record<string, string> {
    return {
      authorization: `Bearer ${token}`,
      'x-target-environment': ctx.credentials.target_environment,
      'ocp-apim-subscription-key': subscriptionKey,
    };
  }
}
