// Proves refunds through the public API against a real connector, MTN MoMo's (the project's fake MTN over real HTTP): the refund goes to MTN's Disbursement product naming the collection's own request reference, under our refund reference; a failure MTN reports returns the money; a lost answer is settled by the status query and MTN holds one refund, never a second under a new reference; a refund a MID without the Disbursement credentials cannot make fails and returns the money.
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { FAST_PROCESSORS, liveMerchant, requestOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let fake: FakeMtnMomo;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;
let seq = 0;

beforeAll(async () => {
  fake = new FakeMtnMomo({ answerAfterMs: 10 });
  await fake.start();
  hooks = await startReceiver();
  svc = await startTestService({ env: { APP_ENV: 'live', MTN_MOMO_BASE_URL: fake.url, ...FAST_PROCESSORS } });
  m = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.refundCredentials(), webhookUrl: hooks.url });
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

async function collected(merchant: LiveMerchant = m): Promise<string> {
  seq += 1;
  const res = await merchant.client.post('/v1/collections/request-to-pay', {
    currency: 'UGX', amount: 50000, payment_method: 'MOBILE_MONEY', account_number: '256772123456',
    merchant_reference: `MTNR-${process.pid}-${seq}-${Date.now().toString(36)}`, narration: 'Order for live goods',
  });
  const reference = expectOk(res).gateway_reference;
  await eventually(async () => expectOk(await merchant.client.get(`/v1/collections/${reference}`)).transaction_status === 'COMPLETED', 15_000, 'collected');
  return reference;
}

async function refund(collection: string, amount: number) {
  seq += 1;
  return expectOk(await m.client.post(`/v1/collections/${collection}/refunds`, { amount, merchant_reference: `RFD-MTN-${process.pid}-${seq}` }));
}

async function ended(reference: string, status: string) {
  return eventually(async () => {
    const r = expectOk(await m.client.get(`/v1/refunds/${reference}`));
    return r.transaction_status === status ? r : undefined;
  }, 15_000, `refund ${status}`);
}

const refundRow = (gatewayReference: string) => svc.services.db.one('SELECT reference, send_attempts FROM refunds WHERE gateway_reference = $1', [gatewayReference]);

it('sends the refund to the Disbursement product naming the collection, under our reference, and completes', async () => {
  const collection = await collected();
  const r = await refund(collection, 20000);
  await ended(r.gateway_reference, 'COMPLETED');
  const { reference } = await refundRow(r.gateway_reference);
  const atMtn = fake.refunds.get(reference);
  expect(atMtn).toMatchObject({ referenceIdToRefund: (await requestOf(svc, collection))!.reference, amount: '20000', currency: 'UGX', status: 'SUCCESSFUL' });
  expect(expectOk(await m.client.get('/v1/data/wallets/UGX/balance'))).toMatchObject({ refund_held_balance: 0 });
});

it('returns the money when MTN reports the refund failed', async () => {
  const collection = await collected();
  const before = expectOk(await m.client.get('/v1/data/wallets/UGX/balance')).available_balance;
  fake.failNextRefund('NOT_ENOUGH_FUNDS');
  const r = await refund(collection, 50000);
  const failed = await ended(r.gateway_reference, 'FAILED');
  expect(failed.failure_reason).toEqual(expect.any(String));
  expect(expectOk(await m.client.get('/v1/data/wallets/UGX/balance'))).toMatchObject({ available_balance: before, refund_held_balance: 0 });
  expect(expectOk(await m.client.get(`/v1/collections/${collection}`)).refunded_amount).toBe(0);
});

it('settles a lost answer with the status query: MTN holds one refund, never a second under a new reference', async () => {
  const collection = await collected();
  fake.swallowRefund = 1;
  const r = await refund(collection, 10000);
  await ended(r.gateway_reference, 'COMPLETED');
  const { reference } = await refundRow(r.gateway_reference);
  const ofCollection = [...fake.refunds.values()].filter((x) => x.referenceIdToRefund === (fake.refunds.get(reference)!.referenceIdToRefund));
  expect(ofCollection.map((x) => x.reference)).toEqual([reference]);
});

it('fails a refund MTN cannot take (the MID has no Disbursement credentials) and returns the money', async () => {
  const plain = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.credentials(), webhookUrl: hooks.url });
  const collection = await collected(plain);
  const res = expectOk(await plain.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: `RFD-MTN-NONE-${process.pid}` }));
  const failed = await eventually(async () => {
    const r = expectOk(await plain.client.get(`/v1/refunds/${res.gateway_reference}`));
    return r.transaction_status === 'FAILED' ? r : undefined;
  }, 15_000, 'refused refund');
  expect(failed.failure_reason).toEqual(expect.any(String));
  expect(expectOk(await plain.client.get('/v1/data/wallets/UGX/balance'))).toMatchObject({ available_balance: 50000, refund_held_balance: 0 });
});
