// The sandbox demo merchant (docs/contract/operator.md): what it holds, and the credentials file and curl
// line a newcomer copies to get a first access token, and its seeding on first start.
import { randomBytes } from 'node:crypto';
import type { Base } from '../base';
import { writeSecretFile } from '../config';
import { hashSecret, newCredentials } from './access-tokens';
import type { ApiTokenService } from './api-tokens';
import type { BusinessService } from './businesses';
import { RATE_DECIMALS } from './inputs';
import type { ApiTokenInput, BusinessInput, MidInput } from './inputs';
import type { MidService } from './mids';
import { PAYMENT_METHODS } from '../api-records/merchant';
import { seedSandboxRate } from '../rates/writes';
import { DISBURSEMENT_METHODS, isDisbursementMethod } from '../domain/disbursement';

/** Serialises two processes seeding the same empty database. */
export const SEED_LOCK = 4_242_003;
export const DEMO_FILE = 'demo-credentials.json';

export const DEMO_BUSINESS: BusinessInput = {
  name: 'Demo Merchant',
  default_currency: 'UGX',
  rolling_reserve_percent: 0,
  rolling_reserve_months: 0,
  card_settlement_days: 0,
  fee_bearer: 'merchant',
  fees: [
    { payment_method: 'MOBILE_MONEY', percent: 2.5, fixed: 0 },
    { payment_method: 'CARD', percent: 3.5, fixed: 0.3 },
    { payment_method: 'BANK', percent: 1, fixed: 0 },
    { payment_method: 'CRYPTO', percent: 1, fixed: 0 },
  ],
};

export const DEMO_EXTRA_WALLETS = ['USD', 'KES', 'EUR'];
/** Every wallet currency of the demo, its default first: a MID per payment method in each. */
export const DEMO_CURRENCIES = [DEMO_BUSINESS.default_currency, ...DEMO_EXTRA_WALLETS];

/** [base, quote, rate]: 1 base = rate quote. */
export const DEMO_RATES: [string, string, number][] = [
  ['USD', 'UGX', 3700],
  ['USD', 'KES', 129.5],
  ['EUR', 'USD', 1.08],
  ['USD', 'TZS', 2650],
  ['USD', 'RWF', 1350],
  // the same through EUR, so that a payment in TZS converts into the UGX wallet (cross rates go through EUR)
  ['EUR', 'UGX', 3996],
  ['EUR', 'TZS', 2862],
];

/** The currency of a MID with no wallet of its own: its payments convert into the default wallet (a quote's walk in the README). */
export const DEMO_CONVERTED_CURRENCY = 'TZS';

/**
 * Nothing listens on the discard port, so a delivery fails fast with "connection refused" and shows
 * up in the collection's notification log; point the token at a real receiver with updateApiToken.
 */
export const DEMO_WEBHOOK_URL = 'http://127.0.0.1:9/paycollect-demo-webhook';

export function demoToken(webhookHash: string): ApiTokenInput {
  return {
    notification_email: 'demo@paycollect.dev',
    webhook_url: DEMO_WEBHOOK_URL,
    webhook_hash: webhookHash,
    email_merchant: true,
    email_user: true,
  };
}

/**
 * A sandbox MID per payment method and wallet currency, all rank 1 and active; those of a method
 * disbursements go by (a phone, a bank account) also disburse, so the demo pays out and refunds on a
 * fresh clone with nothing set by hand.
 */
export function demoMids(currencies: string[]): MidInput[] {
  return PAYMENT_METHODS.flatMap((method) =>
    currencies.map((currency) => ({
      business_name: DEMO_BUSINESS.name,
      service_type: 'sandbox',
      payment_method: method,
      currency,
      allowed_traffic: 'ALL' as const,
      processing_rank: 1,
      active: true,
      collects: true,
      disburses: isDisbursementMethod(method),
    })),
  );
}

/** What `npm start` prints about the demo's MIDs: what they collect and what they pay out. */
export function demoMidsLine(currencies: string[]): string {
  const list = currencies.join(', ');
  return (
    `Its sandbox MIDs collect by ${PAYMENT_METHODS.join(', ')} and pay out by ${DISBURSEMENT_METHODS.join(' and ')} in ${list}, ` +
    `and collect by MOBILE_MONEY in ${DEMO_CONVERTED_CURRENCY}, converted into the ${DEMO_BUSINESS.default_currency} wallet`
  );
}

/** The one MID of a currency without a wallet: mobile money collected, converted into the default wallet. */
export function demoConvertedMid(): MidInput {
  return { ...demoMids([DEMO_CONVERTED_CURRENCY])[0], payment_method: 'MOBILE_MONEY', disburses: false };
}

export function curlLine(baseUrl: string, apiKey: string, apiSecret: string): string {
  return (
    `curl -s -X POST ${baseUrl}/v1/auth/token -H 'Content-Type: application/json' -H 'Accept: application/json' ` +
    `-H 'Secret-Key: ${apiSecret}' -d '{"api_key":"${apiKey}"}'`
  );
}

export interface DemoFileContent {
  api_key: string;
  api_secret: string;
  business_id: number;
  base_url: string;
  webhook_url: string;
  webhook_hash: string;
  curl: string;
}

/** Readable by the owner only: it holds a secret. Returns the file's path. */
export function writeDemoFile(dataDir: string, content: DemoFileContent): string {
  return writeSecretFile(dataDir, DEMO_FILE, content);
}

export interface DemoCredentials {
  api_key: string;
  api_secret: string;
  business_id: number;
  /** where the credentials were written: DATA_DIR/demo-credentials.json */
  file: string;
  /** a ready curl line that obtains an access token */
  curl: string;
  /** what its sandbox MIDs collect and pay out, in words */
  mids: string;
}

/** Seeds the demo merchant through the operator's own set-up flows. */
export class DemoMerchant {
  constructor(private readonly p: Base & { businesses: BusinessService; mids: MidService; apiTokens: ApiTokenService }) {}

  /**
   * On first start with an empty database (SEED_DEMO, sandbox only), create the demo merchant in one
   * transaction, the credentials file included; else null.
   */
  async seedDemoIfEmpty(): Promise<DemoCredentials | null> {
    if (this.p.config.appEnv !== 'sandbox') {
      this.p.log.warn('SEED_DEMO is ignored outside the sandbox');
      return null;
    }
    // Cheap answer on every later start, before the (deliberately slow) secret hashing.
    if (await this.p.db.oneOrNone('SELECT 1 FROM businesses LIMIT 1')) return null;
    const creds = newCredentials(this.p.config.appEnv);
    const secretHash = await hashSecret(creds.apiSecret);
    const webhookHash = randomBytes(24).toString('base64url');
    const baseUrl = this.p.config.publicBaseUrl;
    const curl = curlLine(baseUrl, creds.apiKey, creds.apiSecret);
    const created = await this.p.db.tx(async (t) => {
      await t.one('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK]);
      if (await t.oneOrNone('SELECT 1 FROM businesses LIMIT 1')) return null;
      const businessId = await this.p.businesses.insertBusiness(t, DEMO_BUSINESS);
      for (const currency of DEMO_EXTRA_WALLETS) await this.p.businesses.insertWallet(t, businessId, currency, false);
      for (const mid of [...demoMids(DEMO_CURRENCIES), demoConvertedMid()]) await this.p.mids.insertMid(t, businessId, mid);
      for (const [base, quote, rate] of DEMO_RATES) {
        await seedSandboxRate(t, base, quote, rate.toFixed(RATE_DECIMALS), this.p.now());
      }
      const token = demoToken(webhookHash);
      await this.p.apiTokens.insertApiToken(t, businessId, token, creds.apiKey, secretHash);
      // Written before the commit: if the file cannot be written, nothing is created.
      const file = writeDemoFile(this.p.config.dataDir, {
        api_key: creds.apiKey,
        api_secret: creds.apiSecret,
        business_id: businessId,
        base_url: baseUrl,
        webhook_url: token.webhook_url,
        webhook_hash: webhookHash,
        curl,
      });
      return { businessId, file };
    });
    if (!created) return null;
    this.p.log.info('demo merchant created', { business_id: created.businessId, file: created.file });
    return { api_key: creds.apiKey, api_secret: creds.apiSecret, business_id: created.businessId, file: created.file, curl, mids: demoMidsLine(DEMO_CURRENCIES) };
  }
}
