// MTN MoMo Collection transport: URLs, headers, the OAuth token per MID (Basic api_user:api_key ->
// bearer token of about an hour, cached and refreshed before expiry), deadlines. No decisions here:
// transformers.ts reads every answer.
import { callVendor } from '../transport';
import type { VendorAnswer } from '../transport';
import { TokenCache, tokenFetchOf } from '../token-cache';
import type { TokenFetch } from '../token-cache';
import type { CallContext } from '../types';
import type { MtnRequestToPay } from './transformers';

export interface MtnClientSettings {
  baseUrl: string;
  timeoutMs: number;
  tokenMarginMs: number;
}

export class MtnClient {
  private readonly tokens: TokenCache;

  constructor(private readonly settings: MtnClientSettings) {
    this.tokens = new TokenCache(settings.tokenMarginMs);
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

  private headers(ctx: CallContext, token: string): Record<string, string> {
    return {
      authorization: `Bearer ${token}`,
      'x-target-environment': ctx.credentials.target_environment,
      'ocp-apim-subscription-key': ctx.credentials.subscription_key,
    };
  }
}
