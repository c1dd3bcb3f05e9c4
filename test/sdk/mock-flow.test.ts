// Proves the SDK's merchant flow runs against the Prism mock (`npm run mock`) as far as a mock can: Prism
// accepts every request the SDK sends, and every answer validates (the spec's own checks and a default Ajv);
// its disbursement calls get the disbursement story's examples.
import { createPayCollect, unwrap } from '../../sdk/src';
import { defaultAjvProblems } from '../helpers/default-ajv';
import { startPrism } from '../helpers/prism';
import type { Prism } from '../helpers/prism';
import { checkResponse } from '../helpers/spec';
import { merchantFlow, recordingFetch } from './flow';
import type { Exchange } from './flow';

let prism: Prism;
beforeAll(async () => {
  prism = await startPrism(['mock', 'openapi/openapi.yaml']);
});
afterAll(() => prism?.stop());

it('runs the merchant flow against the mock, every answer documented and valid', async () => {
  const exchanges: Exchange[] = [];
  let n = 0;
  const pay = createPayCollect({ baseUrl: prism.url, apiKey: 'pk_sandbox_mock_key', apiSecret: 'sk_sandbox_mock_secret', fetch: recordingFetch(exchanges) });
  const flow = await merchantFlow(pay, { reference: () => `ORD-MOCK-SDK-${++n}`, perPage: 2 });
  for (const record of Object.values(flow.accepted)) expect(record.transaction_status).toBe('PENDING');
  expect(flow.read.transaction_status).toBe('PENDING');
  expect(flow.listed.length).toBeGreaterThan(0);
  expect(flow.balances.map((b) => b.currency)).toContain(flow.balance.currency);
  // the example token lasts until 2100, so the SDK never asks twice
  expect(exchanges.filter((e) => e.url.endsWith('/v1/auth/token'))).toHaveLength(1);
  expect(exchanges.map((e) => e.status)).toEqual(exchanges.map(() => 200));
  for (const e of exchanges) await checkResponse(e.method, new URL(e.url).pathname, e.status, JSON.parse(e.text), e.contentType);
  expect(await defaultAjvProblems(exchanges)).toEqual([]);
});

it('pays out against the mock with the disbursement calls: the accepted, processing and listed examples, all valid', async () => {
  const exchanges: Exchange[] = [];
  const pay = createPayCollect({ baseUrl: prism.url, apiKey: 'pk_sandbox_mock_key', apiSecret: 'sk_sandbox_mock_secret', fetch: recordingFetch(exchanges) });
  const body = { amount: 150000, currency: 'UGX', payment_method: 'MOBILE_MONEY' as const, account_number: '256772123456', account_name: 'Okello Transport Ltd', merchant_reference: 'PAY-MOCK-SDK-1', narration: 'Driver payout' };
  const { data: accepted } = await unwrap(pay.createDisbursement(body));
  expect(accepted.transaction_status).toBe('PENDING');
  const { data: read } = await unwrap(pay.getDisbursement(accepted.gateway_reference));
  expect([read.gateway_reference, read.transaction_status]).toEqual([accepted.gateway_reference, 'PROCESSING']);
  expect(Array.isArray((await unwrap(pay.listDisbursements({ status: 'COMPLETED' }))).data)).toBe(true);
  expect(exchanges.map((e) => `${e.method} ${new URL(e.url).pathname} ${e.status}`)).toEqual([
    'POST /v1/auth/token 200', 'POST /v1/disbursements 200', `GET /v1/disbursements/${accepted.gateway_reference} 200`, 'GET /v1/disbursements 200',
  ]);
  for (const e of exchanges) await checkResponse(e.method, new URL(e.url).pathname, e.status, JSON.parse(e.text), e.contentType);
  expect(await defaultAjvProblems(exchanges)).toEqual([]);
});
