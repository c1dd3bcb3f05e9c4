// A live deployment against fake processors: a verified business with one MID of a real service type,
// an API token whose webhook goes to a local receiver, and the merchant client, started with the fake and
// the receiver or on a service of the test's own; plus what tests of processors read from the database.
import { expectOk } from './merchants';
import { startReceiver } from './notify-fixtures';
import type { Receiver } from './notify-fixtures';
import { startTestService } from './service';
import type { Client, TestService } from './service';

export interface LiveMerchant {
  businessId: number;
  midId: number;
  client: Client;
  apiTokenId: number;
  /** the API token's secret (disbursements send it on every call) */
  apiSecret: string;
}

export interface LiveMerchantOptions {
  serviceType: string;
  currency: string;
  credentials: Record<string, string>;
  webhookUrl: string;
  feeBearer?: 'merchant' | 'customer';
  fees?: { payment_method: string; percent: number; fixed: number }[];
}

let counter = 0;

export async function liveMerchant(svc: TestService, o: LiveMerchantOptions): Promise<LiveMerchant> {
  counter += 1;
  const business = expectOk(
    await svc.admin.post('/v1/admin/businesses', { name: `Live Shop ${counter}`, default_currency: o.currency, fee_bearer: o.feeBearer ?? 'merchant', fees: o.fees ?? [] }),
    'createBusiness',
  );
  const mid = expectOk(
    await svc.admin.post(`/v1/admin/businesses/${business.id}/mids`, {
      business_name: 'Live Shop',
      service_type: o.serviceType,
      payment_method: 'MOBILE_MONEY',
      currency: o.currency,
      credentials: o.credentials,
    }),
    'createMid',
  );
  expectOk(await svc.admin.post(`/v1/admin/businesses/${business.id}/verify`, { verified_by: 'ops.test' }), 'verifyBusiness');
  const token = expectOk(
    await svc.admin.post(`/v1/admin/businesses/${business.id}/api-tokens`, {
      notification_email: `live${counter}@shop.example`,
      webhook_url: o.webhookUrl,
      webhook_hash: `whsec-live-${counter}-0123456789abcdef`,
    }),
    'createApiToken',
  );
  const access = expectOk(
    await svc.anon.post('/v1/auth/token', { api_key: token.api_key, expires_in: 3600 }, { headers: { 'secret-key': token.api_secret } }),
    'createAccessToken',
  );
  return { businessId: business.id, midId: mid.id, client: svc.merchant(access.token), apiTokenId: token.id, apiSecret: token.api_secret };
}

/** A live deployment against a fake processor: the fake, the webhook receiver, the service and the merchant. */
export interface LiveDeployment<F> {
  fake: F;
  hooks: Receiver;
  svc: TestService;
  m: LiveMerchant;
  /** stops the service, the receiver and the fake */
  close(): Promise<void>;
}

export interface LiveDeploymentOptions {
  /** the service's variable of the processor's address, given the fake's */
  baseUrlVariable: string;
  /** the merchant's MID */
  mid: Omit<LiveMerchantOptions, 'webhookUrl'>;
  env?: Record<string, string>;
  now?: () => Date;
}

/**
 * Starts `fake`, a webhook receiver and the service (APP_ENV live, FAST_PROCESSORS, `env` besides) and sets the
 * merchant up, its webhooks to the receiver; what started is stopped if a step fails.
 */
export async function liveDeployment<F extends { url: string; start(): Promise<unknown>; stop(): Promise<unknown> }>(fake: F, o: LiveDeploymentOptions): Promise<LiveDeployment<F>> {
  let hooks: Receiver | undefined;
  let svc: TestService | undefined;
  const close = async () => {
    await svc?.close();
    await hooks?.close();
    await fake.stop();
  };
  try {
    await fake.start();
    hooks = await startReceiver();
    svc = await startTestService({ env: { APP_ENV: 'live', [o.baseUrlVariable]: fake.url, ...FAST_PROCESSORS, ...o.env }, now: o.now });
    const m = await liveMerchant(svc, { ...o.mid, webhookUrl: hooks.url });
    return { fake, hooks, svc, m, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Timings short enough for tests: every wait is for a condition, never a fixed sleep. */
export const FAST_PROCESSORS = {
  PROCESSOR_SEND_SCHEDULE: '0s,100ms,200ms',
  PROCESSOR_CHECK_SCHEDULE: '150ms,300ms',
  PROCESSOR_TIMEOUT_MS: '1500',
  PROCESSOR_LATE_CHECK_SECONDS: '600',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0s,200ms',
};

export interface RequestRow {
  state: string;
  send_attempts: number;
  checks: number;
  reference: string;
  callback_token: string;
  vendor_reference: string | null;
  held_reason: string | null;
  last_error: string | null;
}

export function requestOf(svc: TestService, gatewayReference: string): Promise<RequestRow | null> {
  return svc.services.db.oneOrNone<RequestRow>(
    `SELECT p.* FROM processor_requests p JOIN collections c ON c.id = p.collection_id WHERE c.gateway_reference = $1`,
    [gatewayReference],
  );
}

/** Ledger journals of a collection: 1 once credited, never more. */
export async function journalsOf(svc: TestService, gatewayReference: string): Promise<number> {
  const { n } = await svc.services.db.one<{ n: number }>(
    'SELECT count(*)::int AS n FROM journals j JOIN collections c ON c.id = j.collection_id WHERE c.gateway_reference = $1',
    [gatewayReference],
  );
  return n;
}

/** The webhook bodies received for a collection, in arrival order. */
export function hooksFor(received: { body: string }[], gatewayReference: string): { transaction_status: string; sequence: number }[] {
  return received.map((r) => JSON.parse(r.body)).filter((b) => b.gateway_reference === gatewayReference);
}

/** The Secret-Key header every disbursement call of the merchant carries. */
export function secretOf(m: Pick<LiveMerchant, 'apiSecret'>): { headers: Record<string, string> } {
  return { headers: { 'secret-key': m.apiSecret } };
}

/** The merchant's wallet balance in `currency`, read through the merchant API. */
export async function walletOf(m: Pick<LiveMerchant, 'client'>, currency: string): Promise<{ balance: number; available_balance: number; disbursement_held_balance: number }> {
  return expectOk(await m.client.get(`/v1/data/wallets/${currency}/balance`));
}
