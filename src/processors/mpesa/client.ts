// Safaricom Daraja transport: URLs, the OAuth client-credentials token per MID (Basic
// consumer_key:consumer_secret -> bearer token of about an hour, cached and refreshed before expiry),
// deadlines. No decisions here: the *transformers.ts files read every answer.
import { callVendor } from '../transport';
import type { VendorAnswer } from '../transport';
import { TokenCache, tokenFetchOf } from '../token-cache';
import type { TokenFetch } from '../token-cache';
import type { CallContext } from '../types';
import { tokenRefused } from './transformers';

export type DarajaPath =
  | '/mpesa/stkpush/v1/processrequest'
  | '/mpesa/stkpushquery/v1/query'
  | '/mpesa/reversal/v1/request'
  | '/mpesa/transactionstatus/v1/query'
  | '/mpesa/b2c/v3/paymentrequest';

export interface MpesaClientSettings {
  baseUrl: string;
  timeoutMs: number;
  tokenMarginMs: number;
}

export class MpesaClient {
  private readonly tokens: TokenCache;

  constructor(private readonly settings: MpesaClientSettings) {
    this.tokens = new TokenCache(settings.tokenMarginMs);
  }

  fetchToken(ctx: CallContext): Promise<TokenFetch> {
    const basic = Buffer.from(`${ctx.credentials.consumer_key}:${ctx.credentials.consumer_secret}`).toString('base64');
    return callVendor({
      method: 'GET',
      url: `${this.settings.baseUrl}/oauth/v1/generate?grant_type=client_credentials`,
      headers: { authorization: `Basic ${basic}` },
      timeoutMs: this.settings.timeoutMs,
    }).then(tokenFetchOf);
  }

  /** POST a JSON body with the MID's bearer token to one of Daraja's paths (M-Pesa Express, Reversal, Transaction Status, B2C). */
  post(ctx: CallContext, path: DarajaPath, body: () => unknown): Promise<VendorAnswer> {
    return this.tokens.authorized(
      ctx,
      () => this.fetchToken(ctx),
      (token) =>
        callVendor({
          method: 'POST',
          url: `${this.settings.baseUrl}${path}`,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body()),
          timeoutMs: this.settings.timeoutMs,
        }),
      tokenRefused,
    );
  }
}
