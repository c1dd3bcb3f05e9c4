// Proves disbursements through the public API in live against a real connector, MTN MoMo's (the project's fake MTN over real HTTP): refused until the API token has an IP allowlist, then paid as a Transfer under our own reference and COMPLETED with amount out and fee to revenue; a failure MTN reports returns amount and fee; a lost answer is settled by the status query with one transfer at MTN, never a second under a new reference.
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { FAST_PROCESSORS, liveMerchant, secretOf, walletOf } from '../helpers/live';
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
  await svc.services.db.none('UPDATE mids SET disburses = true WHERE id = $1', [m.midId]);
  await svc.services.db.none('UPDATE businesses SET disbursement_fee_fixed_minor = 50000 WHERE id = $1', [m.businessId]);
  // funds: one collection of 200,000 through MTN
  const res = await m.client.post('/v1/collections/request-to-pay', {
    currency: 'UGX', amount: 200000, payment_method: 'MOBILE_MONEY', account_number: '256772123456', merchant_reference: `MTND-FUND-${process.pid}`, narration: 'Order for live goods',
  });
  const reference = expectOk(res).gateway_reference;
  await eventually(async () => expectOk(await m.client.get(`/v1/collections/${reference}`)).transaction_status === 'COMPLETED', 15_000, 'funded');
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

const secret = () => secretOf(m);
const wallet = () => walletOf(m, 'UGX');

function payout(amount: number) {
  seq += 1;
  return { amount, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Jane Driver', merchant_reference: `PAY-MTN-${process.pid}-${seq}`, narration: 'Weekly earnings' };
}

async function ended(reference: string, status: string) {
  return eventually(async () => {
    const d = expectOk(await m.client.get(`/v1/disbursements/${reference}`, secret()));
    return d.transaction_status === status ? d : undefined;
  }, 15_000, `disbursement ${status}`);
}

const ourReference = async (gatewayReference: string) => (await svc.services.db.one('SELECT reference FROM disbursements WHERE gateway_reference = $1', [gatewayReference])).reference as string;

it('is refused in live until the API token has an IP allowlist, then is a Transfer under our reference, COMPLETED', async () => {
  const before = await wallet();
  const refused = await m.client.post('/v1/disbursements', payout(30000), secret());
  expect(refused.status).toBe(403);
  expect(refused.body.code).toBe('IP_NOT_ALLOWED');
  expect(await wallet()).toEqual(before);
  await svc.services.db.none("UPDATE api_tokens SET ip_allowlist = '{127.0.0.1/32, ::1/128}' WHERE id = $1", [m.apiTokenId]);

  const d = expectOk(await m.client.post('/v1/disbursements', payout(30000), secret()));
  expect(d).toMatchObject({ amount: 30000, fee: 500 });
  await ended(d.gateway_reference, 'COMPLETED');
  const reference = await ourReference(d.gateway_reference);
  expect(fake.transfers.get(reference)).toMatchObject({ amount: '30000', currency: 'UGX', externalId: d.gateway_reference, partyId: '256772123456', payeeNote: 'Weekly earnings' });
  expect(await wallet()).toMatchObject({ balance: before.balance - 30500, available_balance: before.available_balance - 30500, disbursement_held_balance: 0 });
});

it('returns amount and fee when MTN fails the transfer, with its reason', async () => {
  const before = await wallet();
  fake.failNextTransfer('NOT_ENOUGH_FUNDS');
  const d = expectOk(await m.client.post('/v1/disbursements', payout(20000), secret()));
  const failed = await ended(d.gateway_reference, 'FAILED');
  expect(failed.failure_reason).toBe("The merchant's disbursement account at the processor has too little money");
  expect(await wallet()).toEqual(before);
});

it('settles a lost answer with the status query: one transfer at MTN under the one reference', async () => {
  const before = await wallet();
  fake.swallowTransfer = 1;
  fake.holdNextTransfer = 1;
  const d = expectOk(await m.client.post('/v1/disbursements', payout(10000), secret()));
  const reference = await ourReference(d.gateway_reference);
  await eventually(async () => (fake.transfers.has(reference) ? true : undefined), 10_000, 'transfer at MTN');
  expect(await wallet()).toMatchObject({ available_balance: before.available_balance - 10500, disbursement_held_balance: 10500 });
  fake.settleTransfer(reference, 'SUCCESSFUL');
  await ended(d.gateway_reference, 'COMPLETED');
  expect([...fake.transfers.values()].filter((t) => t.externalId === d.gateway_reference)).toHaveLength(1);
  const row = await svc.services.db.one('SELECT reference, send_state FROM disbursements WHERE id = $1', [d.id]);
  expect(row).toEqual({ reference, send_state: 'settled' });
  expect(await wallet()).toMatchObject({ balance: before.balance - 10500, disbursement_held_balance: 0 });
});
