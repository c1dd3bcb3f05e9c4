// Proves the SDK's disbursement calls: the client sends the API secret in Secret-Key on every disbursement call (besides the token request; not on other calls), so a payout through the typed client is accepted, read and listed; the same call without the secret is refused 401.
import { createPayCollect, PayCollectError, unwrap } from '../../sdk/src';
import { mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000' } });
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(() => svc?.close());

it('pays out through the typed client, which sends the secret on disbursement calls (besides the token request), not on others', async () => {
  const m = await setupMerchant(svc);
  await svc.services.db.none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [m.businessId]);
  const funded = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 50000, account_number: '256700000009' }));
  expect((await m.client.post(`/v1/sandbox/collections/${funded.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);

  const sent: [string, boolean][] = [];
  const recording = (request: Request) => {
    sent.push([new URL(request.url).pathname, request.headers.get('secret-key') === m.apiSecret]);
    return fetch(request);
  };
  const pay = createPayCollect({ baseUrl: svc.url, apiKey: m.apiKey, apiSecret: m.apiSecret, fetch: recording });
  const body = { amount: 1000, currency: 'UGX', payment_method: 'MOBILE_MONEY' as const, account_number: '256772123456', account_name: 'Okello', merchant_reference: ref('SDK') };
  const { data: payout } = await unwrap(pay.api.POST('/v1/disbursements', { body }));
  expect(payout).toMatchObject({ amount: 1000, transaction_type: 'disbursement' });
  expect((await unwrap(pay.api.GET('/v1/disbursements/{gateway_reference}', { params: { path: { gateway_reference: payout.gateway_reference } } }))).data.gateway_reference).toBe(payout.gateway_reference);
  expect((await unwrap(pay.api.GET('/v1/disbursements', {}))).data.map((d) => d.gateway_reference)).toEqual([payout.gateway_reference]);
  await unwrap(pay.api.GET('/v1/data/wallets/{currency}/balance', { params: { path: { currency: 'UGX' } } }));
  expect(sent.filter(([p]) => p.startsWith('/v1/disbursements')).map(([, s]) => s)).toEqual([true, true, true]);
  expect(sent.filter(([p]) => p === '/v1/data/wallets/UGX/balance')).toEqual([['/v1/data/wallets/UGX/balance', false]]);

  // without the secret (a client that does not add it), the API refuses the call
  const bare = await fetch(`${svc.url}/v1/disbursements`, { headers: { authorization: (await pay.accessToken()).token } });
  expect(bare.status).toBe(401);
  // and the typed client turns a refusal into PayCollectError with the API's code
  const refused = await unwrap(pay.api.POST('/v1/disbursements', { body: { ...body, merchant_reference: ref('SDK'), amount: 10_000_000 } })).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(PayCollectError);
  expect((refused as PayCollectError).body.code).toBe('INSUFFICIENT_FUNDS');
});
