// Proves disbursements through the public API in live against M-Pesa's B2C (the project's fake Daraja over real HTTP): our reference as the OriginatorConversationID and COMPLETED by the asynchronous Result on the disbursement's own callback URL; a failure Result returns amount and fee; a lost Result is settled by the Transaction Status query; a callback to a COMPLETED payout prompts the query that finds it reversed, which credits amount and fee back with its own journal.
import { FakeMpesa } from '../fakes/mpesa';
import { FAST_PROCESSORS, liveMerchant, secretOf, walletOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let fake: FakeMpesa;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;
let seq = 0;

beforeAll(async () => {
  fake = new FakeMpesa({ answerAfterMs: 10 });
  await fake.start();
  hooks = await startReceiver();
  svc = await startTestService({ env: { APP_ENV: 'live', MPESA_BASE_URL: fake.url, ...FAST_PROCESSORS } });
  m = await liveMerchant(svc, { serviceType: 'mpesa', currency: 'KES', credentials: fake.payoutCredentials(), webhookUrl: hooks.url });
  await svc.services.db.none('UPDATE mids SET disburses = true WHERE id = $1', [m.midId]);
  await svc.services.db.none('UPDATE businesses SET disbursement_fee_fixed_minor = 1000 WHERE id = $1', [m.businessId]);
  await svc.services.db.none("UPDATE api_tokens SET ip_allowlist = '{127.0.0.1/32, ::1/128}' WHERE id = $1", [m.apiTokenId]);
  for (let i = 0; i < 2; i++) {
    const res = await m.client.post('/v1/collections/request-to-pay', {
      currency: 'KES', amount: 1500, payment_method: 'MOBILE_MONEY', account_number: '254708374149', merchant_reference: `MPD-FUND-${process.pid}-${i}`, narration: 'Order for live goods',
    });
    const reference = expectOk(res).gateway_reference;
    await eventually(async () => expectOk(await m.client.get(`/v1/collections/${reference}`)).transaction_status === 'COMPLETED', 15_000, 'funded');
  }
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

const secret = () => secretOf(m);
const wallet = () => walletOf(m, 'KES');

function payout(amount: number) {
  seq += 1;
  return { amount, currency: 'KES', payment_method: 'MOBILE_MONEY', account_number: '254708374149', account_name: 'Jane Driver', merchant_reference: `PAY-MP-${process.pid}-${seq}`, narration: 'Weekly earnings' };
}

async function ended(reference: string, status: string) {
  return eventually(async () => {
    const d = expectOk(await m.client.get(`/v1/disbursements/${reference}`, secret()));
    return d.transaction_status === status ? d : undefined;
  }, 15_000, `disbursement ${status}`);
}

const rowOf = async (id: string) => svc.services.db.one('SELECT reference, callback_token FROM disbursements WHERE id = $1', [id]);

it('pays by B2C under our reference and completes on the Result posted to its own callback URL', async () => {
  const before = await wallet();
  const d = expectOk(await m.client.post('/v1/disbursements', payout(500), secret()));
  await ended(d.gateway_reference, 'COMPLETED');
  const { reference } = await rowOf(d.id);
  expect(fake.payments.get(reference)).toMatchObject({ amount: 500, partyB: '254708374149' });
  expect(await wallet()).toMatchObject({ balance: before.balance - 510, disbursement_held_balance: 0 });
});

it('returns amount and fee on a failure Result', async () => {
  const before = await wallet();
  fake.failNextPayout('1');
  const d = expectOk(await m.client.post('/v1/disbursements', payout(300), secret()));
  expect((await ended(d.gateway_reference, 'FAILED')).failure_reason).toEqual(expect.any(String));
  expect(await wallet()).toEqual(before);
});

it('settles a lost Result with the Transaction Status query', async () => {
  const before = await wallet();
  const queries = () => fake.calls.filter((c) => c.path === '/mpesa/transactionstatus/v1/query').length;
  const asked = queries();
  // the next Result (the B2C one) never arrives; the query's Result comes to the same URL afterwards
  fake.dropResults = 1;
  const d = expectOk(await m.client.post('/v1/disbursements', payout(200), secret()));
  await ended(d.gateway_reference, 'COMPLETED');
  expect(fake.dropResults).toBe(0);
  expect(queries()).toBeGreaterThan(asked);
  expect((await wallet()).balance).toBe(before.balance - 210);
});

it('credits amount and fee back when a callback prompts the query that finds a completed payout reversed', async () => {
  const d = expectOk(await m.client.post('/v1/disbursements', payout(400), secret()));
  await ended(d.gateway_reference, 'COMPLETED');
  const afterPaid = await wallet();
  const { reference, callback_token: token } = await rowOf(d.id);
  fake.reversePayout(reference);
  // any call to the payout's callback URL is a prompt to ask M-Pesa, never proof by itself
  const prompt = await fetch(`${svc.url}/callbacks/mpesa/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(prompt.status).toBe(200);
  const reversed = await ended(d.gateway_reference, 'REVERSED');
  expect(reversed.failure_reason).toBe('M-Pesa reversed the payout');
  expect(await wallet()).toMatchObject({ balance: afterPaid.balance + 410, available_balance: afterPaid.available_balance + 410 });
  const kinds = (await svc.services.db.any('SELECT kind FROM journals WHERE disbursement_id = $1 ORDER BY id', [d.id])).map((j: { kind: string }) => j.kind);
  expect(kinds).toEqual(['disbursement_hold', 'disbursement_out', 'disbursement_reversal']);
});
