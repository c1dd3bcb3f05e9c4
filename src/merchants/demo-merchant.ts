// The sandbox demo merchant (docs/contract/operator.md): what it holds, and the credentials file and curl
// line a newcomer copies to get a first access token.
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ApiTokenInput, BusinessInput, MidInput } from './businesses';
import { PAYMENT_METHODS } from '../api-records/merchant';
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
];

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
  return `Its sandbox MIDs collect by ${PAYMENT_METHODS.join(', ')} and pay out by ${DISBURSEMENT_METHODS.join(' and ')} in ${list}`;
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
  const file = path.join(dataDir, DEMO_FILE);
  writeFileSync(file, JSON.stringify(content, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
