// Proves every answer of the SDK's merchant flow, errors included, and of its disbursement calls passes Prism's validating proxy
// (`prism proxy openapi/openapi.yaml <service> --errors`) in front of the real service: any violation of the
// contract, in the request or the response, would come back as an error with an `sl-violations` header.
import { createPayCollect, unwrap } from '../../sdk/src';
import type { PayCollect } from '../../sdk/src';
import { eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startPrism } from '../helpers/prism';
import type { Prism } from '../helpers/prism';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { merchantFlow, recordingFetch } from './flow';
import type { CollectionRecord, Exchange } from './flow';

let svc: TestService;
let prism: Prism;
let pay: PayCollect;
let m: MerchantSetup;
const exchanges: Exchange[] = [];

beforeAll(async () => {
  // the short check schedule: the simulator's payout is read back at the first status query
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '200', PROCESSOR_CHECK_SCHEDULE: '100ms,200ms' } });
  prism = await startPrism(['proxy', 'openapi/openapi.yaml', svc.url, '--errors']);
  m = await setupMerchant(svc, { rollingReservePercent: 10, rollingReserveMonths: 6, cardSettlementDays: 2 });
  pay = createPayCollect({ baseUrl: prism.url, apiKey: m.apiKey, apiSecret: m.apiSecret, fetch: recordingFetch(exchanges) });
});
afterAll(async () => {
  prism?.stop();
  await svc?.close();
});

const violations = () => exchanges.filter((e) => e.headers.has('sl-violations')).map((e) => `${e.method} ${e.url} ${e.status}: ${e.headers.get('sl-violations')}`);
const final = (read: () => Promise<CollectionRecord>) =>
  eventually(async () => {
    const r = await read();
    return r.transaction_status === 'PENDING' ? undefined : r;
  }, 15_000, 'the mobile-money collection to complete');

it('passes the whole merchant flow through the proxy without a violation', async () => {
  const flow = await merchantFlow(pay, { reference: () => ref('PRX'), settle: final, perPage: 2 });
  expect(violations()).toEqual([]);
  expect(flow.read.transaction_status).toBe('COMPLETED');
  expect(flow.listed).toHaveLength(5);
  expect(flow.balance.balance).toBe(flow.read.total_credit);
  expect(flow.balance.reserved_balance).toBeGreaterThan(0);
  expect(exchanges.map((e) => e.status)).toEqual(exchanges.map(() => 200));
  expect(exchanges.length).toBeGreaterThanOrEqual(12);
});

it('passes the service error answers through the proxy without a violation', async () => {
  const order = { currency: 'UGX', amount: 10.005, payment_method: 'MOBILE_MONEY' as const, account_number: '256777000001', narration: 'Order for test goods' };
  await expect(unwrap(pay.api.POST('/v1/collections/request-to-pay', { body: { ...order, merchant_reference: ref('PRX') } }))).rejects.toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
  await expect(unwrap(pay.api.POST('/v1/collections/request-to-pay', { body: { ...order, amount: 10, currency: 'JPY', merchant_reference: ref('PRX') } }))).rejects.toMatchObject({ code: 'UNSUPPORTED_CURRENCY' });
  const missing = { params: { path: { gateway_reference: 'PCAAAAAAAAAAAAAAAAAAAA' } } };
  await expect(unwrap(pay.api.GET('/v1/collections/{gateway_reference}', missing))).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
  await expect(unwrap(pay.api.GET('/v1/data/wallets/{currency}/balance', { params: { path: { currency: 'EUR' } } }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  const stranger = createPayCollect({ baseUrl: prism.url, apiKey: 'pk_sandbox_nobody', apiSecret: 'sk_sandbox_nobody', fetch: recordingFetch(exchanges) });
  await expect(stranger.accessToken()).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  expect(violations()).toEqual([]);
});

it('passes disbursements through the proxy, Secret-Key and all, without a violation', async () => {
  await svc.database.db.none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [m.businessId]);
  const funds = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 20000, account_number: '256700000009' }));
  expect((await m.client.post(`/v1/sandbox/collections/${funds.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  const from = exchanges.length;
  const body = { amount: 1000, currency: 'UGX', payment_method: 'MOBILE_MONEY' as const, account_number: '256772123456', account_name: 'Okello Transport Ltd', merchant_reference: ref('PRXPAY'), narration: 'Driver payout' };
  const { data: payout } = await unwrap(pay.createDisbursement(body));
  expect((await unwrap(pay.createDisbursement(body))).data.gateway_reference).toBe(payout.gateway_reference);
  const done = await eventually(async () => {
    const { data } = await unwrap(pay.getDisbursement(payout.gateway_reference));
    return data.transaction_status === 'COMPLETED' ? data : undefined;
  }, 15_000, 'the disbursement to complete');
  expect(done.fee).toBe(0);
  expect((await unwrap(pay.listDisbursements({ status: 'COMPLETED' }))).data.map((d) => d.gateway_reference)).toEqual([payout.gateway_reference]);
  await expect(unwrap(pay.createDisbursement({ ...body, amount: 10_000_000, merchant_reference: ref('PRXPAY') }))).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS', status: 400 });
  await expect(unwrap(pay.getDisbursement('DBAAAAAAAAAAAAAAAAAAAA'))).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
  const bare = await fetch(`${prism.url}/v1/disbursements`, { headers: { accept: 'application/json', authorization: (await pay.accessToken()).token } });
  expect(bare.status).toBe(401);
  expect(bare.headers.has('sl-violations')).toBe(false);
  expect(exchanges.slice(from).map((e) => `${e.method} ${new URL(e.url).pathname.replace(payout.gateway_reference, '{ref}')} ${e.status}`)).toEqual([
    'POST /v1/disbursements 200', 'POST /v1/disbursements 200', ...exchanges.slice(from + 2, -3).map(() => 'GET /v1/disbursements/{ref} 200'),
    'GET /v1/disbursements 200', 'POST /v1/disbursements 400', 'GET /v1/disbursements/DBAAAAAAAAAAAAAAAAAAAA 404',
  ]);
  expect(violations()).toEqual([]);
});
