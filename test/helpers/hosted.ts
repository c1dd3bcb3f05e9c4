// A live deployment whose card and bank MIDs are at a fake Paystack and whose crypto MID is at a fake
// BTCPay Server, both over real HTTP with their webhooks pointed at the service; a verified merchant
// whose own webhook goes to a local receiver; and what the hosted-checkout tests read back.
import { FakeBtcpay } from '../fakes/btcpay';
import { FakePaystack } from '../fakes/paystack';
import { FAST_PROCESSORS } from './live';
import { expectOk } from './merchants';
import { eventually, startReceiver } from './notify-fixtures';
import type { Receiver } from './notify-fixtures';
import { startTestService } from './service';
import type { Client, TestService } from './service';

export const SHOP = 'https://shop.example.org';


export interface HostedWorld {
  svc: TestService;
  paystack: FakePaystack;
  btcpay: FakeBtcpay;
  /** the merchant's webhook receiver */
  hooks: Receiver;
  client: Client;
  businessId: number;
  mids: { card: number; bank: number; crypto: number };
  close(): Promise<void>;
}

async function mid(svc: TestService, businessId: number, body: Record<string, unknown>): Promise<number> {
  return expectOk<{ id: number }>(await svc.admin.post(`/v1/admin/businesses/${businessId}/mids`, { business_name: 'Lagos Books', ...body }), 'createMid').id;
}

export async function startHostedWorld(env: Record<string, string> = {}): Promise<HostedWorld> {
  const paystack = new FakePaystack();
  const btcpay = new FakeBtcpay();
  await paystack.start();
  await btcpay.start();
  const hooks = await startReceiver();
  const svc = await startTestService({ env: { APP_ENV: 'live', ...FAST_PROCESSORS, PAYSTACK_BASE_URL: paystack.url, ...env } });
  const business = expectOk<{ id: number }>(await svc.admin.post('/v1/admin/businesses', { name: 'Lagos Books', default_currency: 'NGN' }), 'createBusiness');
  expectOk(await svc.admin.post(`/v1/admin/businesses/${business.id}/wallets`, { currency: 'USD' }), 'createWallet');
  const paystackKey = { secret_key: paystack.secretKey };
  const mids = {
    card: await mid(svc, business.id, { service_type: 'paystack', payment_method: 'CARD', currency: 'NGN', credentials: paystackKey }),
    bank: await mid(svc, business.id, { service_type: 'paystack', payment_method: 'BANK', currency: 'NGN', credentials: paystackKey }),
    crypto: await mid(svc, business.id, {
      service_type: 'btcpay', payment_method: 'CRYPTO', currency: 'USD',
      credentials: { server_url: btcpay.url, store_id: btcpay.storeId, api_key: btcpay.apiKey, webhook_secret: btcpay.webhookSecret },
    }),
  };
  // One webhook URL per processor account, as set in Paystack's dashboard and on the BTCPay store.
  paystack.webhookUrl = `${svc.url}/callbacks/paystack/mids/${mids.card}`;
  btcpay.webhookUrl = `${svc.url}/callbacks/btcpay/mids/${mids.crypto}`;
  expectOk(await svc.admin.post(`/v1/admin/businesses/${business.id}/verify`, { verified_by: 'ops.test' }), 'verifyBusiness');
  const token = expectOk<{ api_key: string; api_secret: string }>(
    await svc.admin.post(`/v1/admin/businesses/${business.id}/api-tokens`, {
      notification_email: 'payments@lagosbooks.example',
      webhook_url: hooks.url,
      webhook_hash: 'whsec-hosted-0123456789abcdef',
    }),
    'createApiToken',
  );
  const access = expectOk<{ token: string }>(
    await svc.anon.post('/v1/auth/token', { api_key: token.api_key, expires_in: 3600 }, { headers: { 'secret-key': token.api_secret } }),
    'createAccessToken',
  );
  return {
    svc, paystack, btcpay, hooks, client: svc.merchant(access.token), businessId: business.id, mids,
    async close() {
      await svc.close();
      await hooks.close();
      await paystack.stop();
      await btcpay.stop();
    },
  };
}

let seq = 0;

export interface Payment {
  gateway_reference: string;
  merchant_reference: string;
  payment_url: string;
  transaction_status: string;
}

/** A collection through the merchant API; CARD and BANK in NGN at Paystack, CRYPTO in USD at BTCPay. */
export async function requestPayment(w: HostedWorld, method: 'CARD' | 'BANK' | 'CRYPTO', extra: Record<string, unknown> = {}): Promise<Payment> {
  seq += 1;
  const res = await w.client.post('/v1/collections/request-to-pay', {
    currency: method === 'CRYPTO' ? 'USD' : 'NGN',
    amount: method === 'CRYPTO' ? 12.5 : 25000,
    payment_method: method,
    redirect_url: `${SHOP}/orders/${seq}/done`,
    account_name: 'Adaeze Okafor',
    account_email: 'adaeze@customer.example',
    merchant_reference: `HOSTED-${process.pid}-${seq}-${Date.now().toString(36)}`,
    narration: 'Order of printed books',
    ...(method === 'CARD' ? {} : { account_number: '0123456789' }),
    ...extra,
  });
  return expectOk<Payment>(res, 'requestToPay');
}

/** A USD 12.50 crypto payment through the API that BTCPay settles: its invoice id and our gateway_reference. */
export async function settledCryptoPayment(w: HostedWorld): Promise<{ invoiceId: string; gatewayReference: string }> {
  const p = await requestPayment(w, 'CRYPTO');
  const opened = await fetch(p.payment_url, { redirect: 'manual' });
  const invoiceId = new URL(opened.headers.get('location')!).pathname.split('/').pop()!;
  w.btcpay.pay(invoiceId, 1250);
  await eventually(async () => (await w.client.get(`/v1/collections/${p.gateway_reference}`)).body.data.transaction_status === 'COMPLETED', 15_000, 'settled');
  return { invoiceId, gatewayReference: p.gateway_reference };
}

/** The collection, its ledger journals and the merchant webhooks it produced. */
export async function stateOf(w: HostedWorld, gatewayReference: string) {
  const row = await w.svc.services.db.one<{ id: bigint; status: string; message: string }>('SELECT id, status, message FROM collections WHERE gateway_reference = $1', [gatewayReference]);
  const { journals } = await w.svc.services.db.one<{ journals: number }>('SELECT count(*)::int AS journals FROM journals WHERE collection_id = $1', [row.id]);
  const hooks = w.hooks.received.map((r) => JSON.parse(r.body)).filter((b) => b.gateway_reference === gatewayReference);
  return { status: row.status, message: row.message, journals, hooks: hooks.map((h) => h.transaction_status as string) };
}

/** The wallet balance of a currency, as the merchant reads it. */
export async function balance(w: HostedWorld, currency: string): Promise<number> {
  return expectOk<{ balance: number }>(await w.client.get(`/v1/data/wallets/${currency}/balance`), 'walletGetBalance').balance;
}
