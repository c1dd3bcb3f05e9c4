// Proves the SDK (sdk/) carries a merchant through the whole flow against the real service: token handling
// (renewal before expiry, one retry when the API says the token expired and none on any other 401), request-to-pay for each method, reading, iterating a list,
// balances, typed errors, a card encrypted by the SDK and a webhook verified by the SDK's verifier.
import { SignJWT } from 'jose';
import { createPayCollect, PayCollectError, unwrap, verifyWebhook, WebhookVerificationError } from '../../sdk/src';
import { keyId } from '../../src/merchants/access-tokens';
import type { PayCollect } from '../../sdk/src';
import { eventually, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { defaultAjvProblems } from '../helpers/default-ajv';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { merchantFlow, recordingFetch } from './flow';
import type { CollectionRecord, Exchange, FlowResult } from './flow';

let svc: TestService;
let receiver: Receiver;
let m: MerchantSetup;
let pay: PayCollect;
const exchanges: Exchange[] = [];
let flow: FlowResult;

const completed = (read: () => Promise<CollectionRecord>) =>
  eventually(async () => {
    const r = await read();
    return r.transaction_status === 'PENDING' ? undefined : r;
  }, 15_000, 'the mobile-money collection to complete');

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '200' } });
  receiver = await startReceiver();
  m = await setupMerchant(svc, { webhookUrl: receiver.url, fees: [{ payment_method: 'MOBILE_MONEY', percent: 2.5, fixed: 0 }], rollingReservePercent: 10, rollingReserveMonths: 6 });
  pay = createPayCollect({ baseUrl: svc.url, apiKey: m.apiKey, apiSecret: m.apiSecret, fetch: recordingFetch(exchanges) });
  flow = await merchantFlow(pay, { reference: () => ref('SDK'), settle: completed, perPage: 2 });
});
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

const row = (gatewayReference: string) => svc.database.db.one('SELECT * FROM collections WHERE gateway_reference = $1', [gatewayReference]);

describe('the merchant flow through the SDK', () => {
  it('obtains one access token and reuses it for every call', async () => {
    const token = await pay.accessToken();
    expect(token.token).toMatch(/^JWT /);
    expect(token.expires).toBeGreaterThan(Date.now() / 1000 + 800);
    expect(exchanges.filter((e) => e.url.endsWith('/v1/auth/token'))).toHaveLength(1);
    expect(exchanges.filter((e) => e.status !== 200)).toEqual([]);
  });

  it('requests a payment by each method and the service records each one', async () => {
    const { accepted } = flow;
    for (const record of Object.values(accepted)) expect(record.transaction_status).toBe('PENDING');
    expect(accepted.MOBILE_MONEY).toMatchObject({ payment_method: 'MOBILE_MONEY', payment_url: null, transaction_fee: 1250, total_credit: 48750 });
    expect(accepted.MOBILE_MONEY.instructions?.length).toBeGreaterThan(0);
    for (const r of [accepted.CARD_HOSTED, accepted.CARD_DIRECT, accepted.BANK, accepted.CRYPTO]) expect(r.payment_url).toMatch(`${svc.url}/pay/${r.gateway_reference}`);
    expect(accepted.BANK.request_amount).toBe(19.99);
    expect(accepted.CRYPTO.request_amount).toBe(1.15);
    const direct = await row(accepted.CARD_DIRECT.gateway_reference);
    expect(direct).toMatchObject({ payment_method: 'CARD', card_masked: '400000******3006', business_id: m.businessId });
    expect((await row(accepted.CARD_HOSTED.gateway_reference)).card_masked).toBeNull();
    expect((await row(accepted.BANK.gateway_reference)).request_amount_minor).toBe(1999n);
  });

  it('reads the mobile-money collection once the designated number has paid', async () => {
    expect(flow.read).toMatchObject({ gateway_reference: flow.accepted.MOBILE_MONEY.gateway_reference, transaction_status: 'COMPLETED' });
    expect((await row(flow.read.gateway_reference)).status).toBe('COMPLETED');
  });

  it('iterates the whole list page by page, newest first, each collection once', async () => {
    const refs = flow.listed.map((r) => r.gateway_reference);
    const inDb = await svc.database.db.map('SELECT gateway_reference FROM collections WHERE business_id = $1 ORDER BY created_at DESC, id DESC', [m.businessId], (r) => r.gateway_reference);
    expect(refs).toEqual(inDb);
    expect(refs).toHaveLength(5);
    const pages = exchanges.filter((e) => e.method === 'GET' && new URL(e.url).pathname === '/v1/collections');
    expect(pages).toHaveLength(3);
    expect(pages.map((p) => new URL(p.url).searchParams.has('cursor'))).toEqual([false, true, true]);
  });

  it('reads balances that add up to the credit, as the ledger holds them', async () => {
    const credit = flow.read.total_credit;
    expect(flow.balance).toEqual({ currency: 'UGX', balance: credit, available_balance: 43875, pending_balance: 0, reserved_balance: 4875, refund_held_balance: 0, disbursement_held_balance: 0, dispute_held_balance: 0 });
    expect(flow.balances).toEqual([flow.balance]);
    const ledger = await svc.database.db.one(
      `SELECT sum(p.amount_minor) AS minor FROM postings p JOIN ledger_accounts a ON a.id = p.account_id
       WHERE a.business_id = $1 AND a.currency = 'UGX' AND a.kind IN ('available', 'pending', 'reserved')`,
      [m.businessId],
    );
    expect(Math.abs(Number(ledger.minor))).toBe(credit * 100);
  });

  it('verifies the webhook of the completion with the SDK, and refuses it altered', async () => {
    const gatewayReference = flow.read.gateway_reference;
    const delivery = await eventually(async () => receiver.received.find((r) => r.body.includes(gatewayReference)), 15_000, 'the webhook');
    const notification = verifyWebhook(m.webhookHash, delivery.body, delivery.headers);
    expect(notification).toMatchObject({ gateway_reference: gatewayReference, transaction_status: 'COMPLETED', sequence: 1, total_credit: 48750 });
    expect(() => verifyWebhook(m.webhookHash, delivery.body.replace('48750', '98750'), delivery.headers)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook('whsec-another-hash-0123456789', delivery.body, delivery.headers)).toThrow(WebhookVerificationError);
    const later = Number(delivery.headers['webhook-timestamp']) * 1000 + 6 * 60_000;
    expect(() => verifyWebhook(m.webhookHash, delivery.body, delivery.headers, { now: () => later })).toThrow(/too far/);
  });
});

describe('typed errors', () => {
  it('narrows data to the field list on VALIDATION_ERROR, and nothing is written', async () => {
    const before = await svc.database.db.one('SELECT count(*)::int AS n FROM collections');
    const body = { currency: 'UGX', amount: 10.005, payment_method: 'MOBILE_MONEY' as const, account_number: '256777000001', merchant_reference: ref('SDK'), narration: 'Order for test goods' };
    const e = await unwrap(pay.api.POST('/v1/collections/request-to-pay', { body })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PayCollectError);
    if (!(e instanceof PayCollectError) || e.code !== 'VALIDATION_ERROR') throw new Error('expected VALIDATION_ERROR');
    expect(e.data.map((f) => f.field)).toEqual(['amount']);
    expect(e.status).toBe(400);
    expect(e.requestId).toBeTruthy();
    expect(await svc.database.db.one('SELECT count(*)::int AS n FROM collections')).toEqual(before);
  });

  it('answers NOT_FOUND for a collection that does not exist', async () => {
    const call = pay.api.GET('/v1/collections/{gateway_reference}', { params: { path: { gateway_reference: 'PCAAAAAAAAAAAAAAAAAAAA' } } });
    await expect(unwrap(call)).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404, data: null });
  });
});

describe('token handling', () => {
  const tokenCalls = (log: Exchange[]) => log.filter((e) => e.url.endsWith('/v1/auth/token')).length;

  it('renews the token before it expires, without a refused call', async () => {
    const log: Exchange[] = [];
    let clock = Date.now();
    const p = createPayCollect({ baseUrl: svc.url, apiKey: m.apiKey, apiSecret: m.apiSecret, tokenLifetimeSeconds: 600, fetch: recordingFetch(log), now: () => clock });
    await unwrap(p.api.GET('/v1/data/wallets/balances'));
    clock += 500_000;
    await unwrap(p.api.GET('/v1/data/wallets/balances'));
    expect(tokenCalls(log)).toBe(1);
    clock += 50_000; // 50 s before expiry: inside the default 60 s margin
    await unwrap(p.api.GET('/v1/data/wallets/balances'));
    expect(tokenCalls(log)).toBe(2);
    expect(log.map((e) => e.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('asks for one token when several calls start at once', async () => {
    const log: Exchange[] = [];
    const p = createPayCollect({ baseUrl: svc.url, apiKey: m.apiKey, apiSecret: m.apiSecret, fetch: recordingFetch(log) });
    await Promise.all([1, 2, 3, 4].map(() => unwrap(p.api.GET('/v1/data/wallets/balances'))));
    expect(tokenCalls(log)).toBe(1);
    expect(log).toHaveLength(5);
  });

  /** An access token of the merchant's API token, signed as the service signs, that expired a minute ago. */
  async function expiredToken() {
    const { generation } = await svc.database.db.one<{ generation: number }>('SELECT generation FROM api_tokens WHERE id = $1', [m.apiTokenId]);
    const exp = Math.floor(Date.now() / 1000) - 60;
    const jwt = await new SignJWT({ gen: generation })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: keyId(svc.config.jwtSecret) })
      .setSubject(String(m.apiTokenId)).setAudience('sandbox').setIssuer('paycollect').setJti('expired-in-test').setIssuedAt(exp - 900).setExpirationTime(exp)
      .sign(new TextEncoder().encode(svc.config.jwtSecret));
    return { token: `JWT ${jwt}`, expires: exp };
  }

  it('fetches a new token and retries once when the API says the one it holds expired', async () => {
    const expired = await expiredToken();
    const refused = await fetch(`${svc.url}/v1/data/wallets/balances`, { headers: { authorization: expired.token, accept: 'application/json' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('JWT error="invalid_token", error_description="The access token expired"');
    const log: Exchange[] = [];
    // the SDK's clock runs two minutes behind, so it believes the token good and sends it
    const p = createPayCollect({ baseUrl: svc.url, apiKey: m.apiKey, apiSecret: m.apiSecret, token: { ...expired, expires: expired.expires + 3600 }, fetch: recordingFetch(log) });
    const balances = await unwrap(p.api.GET('/v1/data/wallets/balances'));
    expect(balances.data).toEqual(flow.balances);
    expect(log.map((e) => `${e.status} ${new URL(e.url).pathname}`)).toEqual(['401 /v1/data/wallets/balances', '200 /v1/auth/token', '200 /v1/data/wallets/balances']);
    expect((await p.accessToken()).token).not.toBe(expired.token);
  });

  it('answers any other 401 as it is: a revoked token is not renewed, and neither is a call whose Secret-Key was refused', async () => {
    const spare = await svc.admin.post(`/v1/admin/businesses/${m.businessId}/api-tokens`, {
      notification_email: 'spare@example.org', webhook_url: receiver.url, webhook_hash: 'whsec-spare-0123456789', email_merchant: false, email_user: false,
    });
    const dead = await svc.anon.post('/v1/auth/token', { api_key: spare.body.data.api_key }, { headers: { 'secret-key': spare.body.data.api_secret } });
    expect((await svc.admin.delete(`/v1/admin/api-tokens/${spare.body.data.id}`)).status).toBe(200);
    const log: Exchange[] = [];
    const p = createPayCollect({ baseUrl: svc.url, apiKey: m.apiKey, apiSecret: m.apiSecret, token: dead.body.data, fetch: recordingFetch(log) });
    await expect(unwrap(p.api.GET('/v1/data/wallets/balances'))).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(log.map((e) => `${e.status} ${new URL(e.url).pathname}`)).toEqual(['401 /v1/data/wallets/balances']);
    // a good access token with a Secret-Key the disbursement call refuses: no token is asked for again
    const good = (await svc.anon.post('/v1/auth/token', { api_key: m.apiKey }, { headers: { 'secret-key': m.apiSecret } })).body.data;
    const wrongSecret: Exchange[] = [];
    const q = createPayCollect({ baseUrl: svc.url, apiKey: m.apiKey, apiSecret: m.apiSecret + 'x', token: good, fetch: recordingFetch(wrongSecret) });
    await expect(unwrap(q.listDisbursements())).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(wrongSecret.map((e) => `${e.status} ${new URL(e.url).pathname}`)).toEqual(['401 /v1/disbursements']);
  });

  it('gives up after one retry when the credentials themselves are refused', async () => {
    const log: Exchange[] = [];
    const p = createPayCollect({ baseUrl: svc.url, apiKey: m.apiKey, apiSecret: 'sk_sandbox_wrong_secret', fetch: recordingFetch(log) });
    await expect(unwrap(p.api.GET('/v1/data/wallets/balances'))).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(log.map((e) => e.status)).toEqual([401]);
  });
});

describe('every answer of the flow under a default Ajv', () => {
  it('validates each response against its schema with new Ajv2020() and ajv-formats', async () => {
    expect(exchanges.length).toBeGreaterThanOrEqual(12);
    expect(new Set(exchanges.map((e) => e.status))).toEqual(new Set([200, 400, 404]));
    expect(await defaultAjvProblems(exchanges)).toEqual([]);
  });
});
