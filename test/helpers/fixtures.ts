// A merchant set up through the operator API, as an operator would: business, wallets, rates, MIDs,
// an API token, and a merchant client holding an access token.
import type { Client, TestService } from './service';

export interface MerchantSetup {
  businessId: number;
  apiTokenId: number;
  apiKey: string;
  apiSecret: string;
  webhookHash: string;
  client: Client;
  midIds: Record<string, number>;
}

export interface MerchantOptions {
  name?: string;
  defaultCurrency?: string;
  wallets?: string[];
  fees?: { payment_method: string; percent: number; fixed: number }[];
  feeBearer?: 'merchant' | 'customer';
  rollingReservePercent?: number;
  rollingReserveMonths?: number;
  cardSettlementDays?: number;
  /** MIDs to create; default: one sandbox MID per payment method and wallet currency */
  mids?: Record<string, unknown>[];
  webhookUrl?: string;
  notificationEmail?: string;
  emailMerchant?: boolean;
  emailUser?: boolean;
}

const METHODS = ['MOBILE_MONEY', 'CARD', 'BANK', 'CRYPTO'];

function must<T>(res: { status: number; body: any }, what: string): T {
  if (res.status !== 200) throw new Error(`${what} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as T;
}

let counter = 0;

export async function setupMerchant(svc: TestService, o: MerchantOptions = {}): Promise<MerchantSetup> {
  counter += 1;
  const defaultCurrency = o.defaultCurrency ?? 'UGX';
  const business = must<{ id: number }>(
    await svc.admin.post('/v1/admin/businesses', {
      name: o.name ?? `Test Merchant ${counter}`,
      default_currency: defaultCurrency,
      fee_bearer: o.feeBearer ?? 'merchant',
      rolling_reserve_percent: o.rollingReservePercent ?? 0,
      rolling_reserve_months: o.rollingReserveMonths ?? 0,
      card_settlement_days: o.cardSettlementDays ?? 0,
      fees: o.fees ?? [],
    }),
    'createBusiness',
  );
  const wallets = o.wallets ?? [defaultCurrency];
  for (const currency of wallets) {
    if (currency === defaultCurrency) continue;
    must(await svc.admin.post(`/v1/admin/businesses/${business.id}/wallets`, { currency }), 'createWallet');
  }
  const mids: Record<string, unknown>[] = o.mids ?? wallets.flatMap((currency) => METHODS.map((payment_method) => ({ payment_method, currency })));
  const midIds: Record<string, number> = {};
  for (const [i, { name, ...m }] of mids.entries()) {
    const mid = must<{ id: number }>(
      await svc.admin.post(`/v1/admin/businesses/${business.id}/mids`, {
        business_name: 'Test Shop',
        service_type: 'sandbox',
        merchant_operator: 'sandbox',
        merchant_username: 'merchant',
        merchant_password: 'mid-password-123',
        ...m,
      }),
      'createMid',
    );
    midIds[String(name ?? `${m.payment_method}:${m.currency}:${i}`)] = mid.id;
  }
  const webhookHash = `whsec-test-hash-${counter}-0123456789`;
  const token = must<{ id: number; api_key: string; api_secret: string }>(
    await svc.admin.post(`/v1/admin/businesses/${business.id}/api-tokens`, {
      notification_email: o.notificationEmail ?? `merchant${counter}@example.org`,
      webhook_url: o.webhookUrl ?? 'http://127.0.0.1:9/unreachable',
      webhook_hash: webhookHash,
      email_merchant: o.emailMerchant ?? false,
      email_user: o.emailUser ?? false,
    }),
    'createApiToken',
  );
  const access = must<{ token: string }>(
    await svc.anon.post('/v1/auth/token', { api_key: token.api_key, expires_in: 3600 }, { headers: { 'secret-key': token.api_secret } }),
    'createAccessToken',
  );
  return {
    businessId: business.id,
    apiTokenId: token.id,
    apiKey: token.api_key,
    apiSecret: token.api_secret,
    webhookHash,
    client: svc.merchant(access.token),
    midIds,
  };
}

let refCounter = 0;
export function ref(prefix = 'ORD'): string {
  refCounter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${refCounter}`.slice(0, 36);
}

export function mobileMoney(overrides: Record<string, unknown> = {}) {
  return {
    currency: 'UGX',
    amount: 50000,
    payment_method: 'MOBILE_MONEY',
    account_number: '256777000001',
    merchant_reference: ref(),
    narration: 'Order for test goods',
    ...overrides,
  };
}

/** Polls until check() returns a value (not undefined), or fails after timeoutMs. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A merchant whose UGX mobile money and bank MIDs also disburse, with `amount` UGX collected into its wallet. */
export async function disbursingMerchant(svc: TestService, amount: number, o: MerchantOptions = {}): Promise<MerchantSetup> {
  const m = await setupMerchant(svc, o);
  await svc.database.db.none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method IN ('MOBILE_MONEY', 'BANK')", [m.businessId]);
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount, account_number: '256700000009' }));
  expect((await m.client.post(`/v1/sandbox/collections/${created.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  return m;
}
