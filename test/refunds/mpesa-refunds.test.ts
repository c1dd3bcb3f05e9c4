// Proves M-Pesa refunds through the public API against the project's fake Daraja over real HTTP: the receipt the STK callback gave is kept with the collection and confirmed with the Transaction Status query (short code, amount, customer) before the Reversal names it; a forged callback naming another customer's receipt, or a receipt M-Pesa never issued, fails the refund with its reason and returns the money, and no reversal is sent; a payment whose callback was lost (completed by STK Push Query, so no receipt) fails its refund as "M-Pesa receipt unknown" without asking M-Pesa anything.
import { RECEIPT_UNKNOWN } from '../../src/processors/mpesa/transformers';
import { FakeMpesa } from '../fakes/mpesa';
import { FAST_PROCESSORS, liveMerchant, requestOf } from '../helpers/live';
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
  m = await liveMerchant(svc, { serviceType: 'mpesa', currency: 'KES', credentials: fake.refundCredentials(), webhookUrl: hooks.url });
}, 180_000); // a service start is over a minute on a loaded machine

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

afterEach(() => {
  fake.o.callbacks = 'once';
});

/** A COMPLETED collection of KES 1,500 from `phone`. */
async function collected(phone = '254708374149'): Promise<string> {
  seq += 1;
  const res = await m.client.post('/v1/collections/request-to-pay', {
    currency: 'KES', amount: 1500, payment_method: 'MOBILE_MONEY', account_number: phone,
    merchant_reference: `MPR-${process.pid}-${seq}-${Date.now().toString(36)}`, narration: 'Order for live goods',
  });
  const reference = expectOk(res).gateway_reference;
  await eventually(async () => expectOk(await m.client.get(`/v1/collections/${reference}`)).transaction_status === 'COMPLETED', 15_000, 'collected');
  return reference;
}

async function refund(collection: string) {
  seq += 1;
  return expectOk(await m.client.post(`/v1/collections/${collection}/refunds`, { merchant_reference: `RFD-MP-${process.pid}-${seq}`, reason: 'Order cancelled' }));
}

async function ended(reference: string, status: string) {
  return eventually(async () => {
    const r = expectOk(await m.client.get(`/v1/refunds/${reference}`));
    return r.transaction_status === status ? r : undefined;
  }, 15_000, `refund ${status}`);
}

const balance = async () => expectOk(await m.client.get('/v1/data/wallets/KES/balance'));
const receiptOf = async (collection: string) => (await svc.services.db.one<{ receipt: string | null }>('SELECT p.receipt FROM processor_requests p JOIN collections c ON c.id = p.collection_id WHERE c.gateway_reference = $1', [collection])).receipt;
const refundUrl = async (gatewayReference: string) => {
  const { callback_token: token } = await svc.services.db.one<{ callback_token: string }>('SELECT callback_token FROM refunds WHERE gateway_reference = $1', [gatewayReference]);
  return `${svc.config.publicBaseUrl}/callbacks/mpesa/${token}`;
};

/** A callback nobody at Safaricom sent: a success naming `receipt`, posted to the collection's own callback URL. */
async function forgeCallback(collection: string, receipt: string): Promise<void> {
  const request = (await requestOf(svc, collection))!;
  const body = {
    Body: {
      stkCallback: {
        MerchantRequestID: '1234-5678-1', CheckoutRequestID: request.vendor_reference, ResultCode: 0, ResultDesc: 'The service request is processed successfully.',
        CallbackMetadata: { Item: [{ Name: 'Amount', Value: 1500 }, { Name: 'MpesaReceiptNumber', Value: receipt }, { Name: 'PhoneNumber', Value: 254708374149 }] },
      },
    },
  };
  const res = await fetch(`${svc.config.publicBaseUrl}/callbacks/mpesa/${request.callback_token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBeLessThan(300);
}

it('keeps the receipt of the callback (a later one cannot replace it), confirms it with Transaction Status, then reverses that receipt', async () => {
  const collection = await collected();
  const push = fake.byAccountReference(collection)!;
  expect(await receiptOf(collection)).toBe(push.receipt);
  // once the completion is confirmed, a later callback cannot replace the receipt
  await forgeCallback(collection, 'ZZZ1111111');
  expect(await receiptOf(collection)).toBe(push.receipt);
  const before = await balance();
  const r = await refund(collection);
  await ended(r.gateway_reference, 'COMPLETED');
  const url = await refundUrl(r.gateway_reference);
  const reversals = [...fake.reversals.values()].filter((x) => x.resultUrl === url);
  expect(reversals).toEqual([expect.objectContaining({ transactionId: push.receipt, amount: 1500, resultCode: '0' })]);
  expect(fake.statusQueries.filter((q) => q.resultUrl === url)[0]).toEqual({ transactionId: push.receipt, originalConversationId: null, resultUrl: url });
  expect(await balance()).toMatchObject({ available_balance: before.available_balance - 1500, refund_held_balance: 0 });
  expect(expectOk(await m.client.get(`/v1/collections/${collection}`)).refunded_amount).toBe(1500);
});

it.each([
  ["another customer's receipt", 'it was paid from another phone'],
  ['a receipt M-Pesa never issued', 'the receipt query answered ResultCode R000002'],
])('a forged callback naming %s fails the refund, returns the money and reverses nothing', async (what, why) => {
  const other = what.startsWith('another') ? fake.byAccountReference(await collected('254722000111'))!.receipt! : 'ZZZ9999999';
  fake.o.callbacks = 'drop';
  const collection = await collected();
  await forgeCallback(collection, other);
  await eventually(async () => (await receiptOf(collection)) === other, 10_000, 'forged receipt kept');
  const before = await balance();
  const r = await refund(collection);
  const failed = await ended(r.gateway_reference, 'FAILED');
  expect(failed.failure_reason).toMatch(new RegExp(`^M-Pesa does not confirm receipt ${other} as this payment: .*${why}`));
  const url = await refundUrl(r.gateway_reference);
  expect(fake.statusQueries.filter((q) => q.resultUrl === url).map((q) => q.transactionId)).toContain(other);
  expect([...fake.reversals.values()].filter((x) => x.resultUrl === url || x.transactionId === other)).toEqual([]);
  expect(await balance()).toMatchObject({ available_balance: before.available_balance, refund_held_balance: 0 });
  expect(expectOk(await m.client.get(`/v1/collections/${collection}`)).refunded_amount).toBe(0);
});

it('a payment completed without its callback has no receipt: the refund fails "M-Pesa receipt unknown" and M-Pesa is asked nothing', async () => {
  fake.o.callbacks = 'drop';
  const collection = await collected();
  expect(await receiptOf(collection)).toBeNull();
  const before = await balance();
  const r = await refund(collection);
  const failed = await ended(r.gateway_reference, 'FAILED');
  expect(failed.failure_reason).toBe(RECEIPT_UNKNOWN);
  const url = await refundUrl(r.gateway_reference);
  expect(fake.statusQueries.filter((q) => q.resultUrl === url)).toEqual([]);
  expect([...fake.reversals.values()].filter((x) => x.resultUrl === url)).toEqual([]);
  expect(await balance()).toMatchObject({ available_balance: before.available_balance, refund_held_balance: 0 });
});
