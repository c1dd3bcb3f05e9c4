// The collection lists' and exports' `held` filter: the merchant's own held payments and, for operators, every business's
// (or one's), counted exactly and paged like any list; `held=false` lists every collection; a value that is no
// boolean is refused at the field and changes nothing. Against a fake MTN over HTTP (it confirms one unit less
// than asked for SHORT_PAYER, which holds the payment for an operator).
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { FAST_PROCESSORS, liveMerchant, requestOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { errorFields, expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { databaseState } from '../helpers/state';
import { parseCsv } from '../reports/csv';

/** the fake's number that succeeds for one unit less than asked (test/fakes/mtn-momo.ts) */
const SHORT_PAYER = '46733123459';
let fake: FakeMtnMomo;
let hooks: Receiver;
let svc: TestService;
let shop: LiveMerchant;
let other: LiveMerchant;
let seq = 0;
const heldOfShop: string[] = [];
let heldOfOther: string;
let settled: string;

async function pay(m: LiveMerchant, phone: string, state: 'held' | 'settled'): Promise<string> {
  seq += 1;
  const asked = { currency: 'UGX', amount: 50000, payment_method: 'MOBILE_MONEY', account_number: phone, merchant_reference: `HLIST-${process.pid}-${seq}`, narration: 'Held list' };
  const ref = expectOk(await m.client.post('/v1/collections/request-to-pay', asked)).gateway_reference as string;
  await eventually(async () => (await requestOf(svc, ref))?.state === state, 15_000, state);
  return ref;
}

beforeAll(async () => {
  fake = new FakeMtnMomo();
  await fake.start();
  hooks = await startReceiver();
  svc = await startTestService({ env: { APP_ENV: 'live', MTN_MOMO_BASE_URL: fake.url, ...FAST_PROCESSORS } });
  shop = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.credentials(), webhookUrl: hooks.url });
  other = await liveMerchant(svc, { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.credentials(), webhookUrl: hooks.url });
  heldOfShop.push(await pay(shop, SHORT_PAYER, 'held'), await pay(shop, SHORT_PAYER, 'held'));
  settled = await pay(shop, '256772000123', 'settled'); // any other number succeeds
  heldOfOther = await pay(other, SHORT_PAYER, 'held');
}, 180_000);

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

const refsOf = (body: { data: { gateway_reference: string }[] }) => body.data.map((c) => c.gateway_reference);

it('lists a merchant its own held payments only, newest first, counted exactly', async () => {
  const res = await shop.client.get('/v1/collections?held=true');
  expect(res.status).toBe(200);
  expect(refsOf(res.body)).toEqual([...heldOfShop].reverse());
  expect(res.headers.get('x-ph-total')).toBe('2');
  expect(res.body.data.every((c: { transaction_status: string }) => c.transaction_status === 'PENDING')).toBe(true);

  const all = await shop.client.get('/v1/collections?held=false');
  expect(all.headers.get('x-ph-total')).toBe('3');
  expect(refsOf(all.body).sort()).toEqual([settled, ...heldOfShop].sort());

  // with the other filters, as every filter combines
  const completed = await shop.client.get('/v1/collections?held=true&status=COMPLETED');
  expect([completed.body.data.length, completed.headers.get('x-ph-total')]).toEqual([0, '0']);
  const paged = await shop.client.get('/v1/collections?held=true&per_page=1');
  expect(refsOf(paged.body)).toEqual([heldOfShop[1]]);
});

it('lists operators every business’s held payments, or one business’s, with why each is held', async () => {
  const res = await svc.admin.get('/v1/admin/collections?held=true');
  expect(res.status).toBe(200);
  expect(refsOf(res.body)).toEqual([heldOfOther, heldOfShop[1], heldOfShop[0]]);
  expect(res.headers.get('x-ph-total')).toBe('3');
  for (const c of res.body.data) expect(c.processor_request).toMatchObject({ state: 'held', held_reason: expect.stringContaining('4999900') });

  const one = await svc.admin.get(`/v1/admin/collections?held=true&business_id=${other.businessId}`);
  expect(refsOf(one.body)).toEqual([heldOfOther]);
  expect(one.headers.get('x-ph-total')).toBe('1');
});

it('exports the held payments only, as the lists do: a merchant its own, operators every business or one', async () => {
  const csvRefs = async (res: { status: number; text: string }) => {
    expect(res.status).toBe(200);
    return parseCsv(res.text).map((r) => r.gateway_reference);
  };
  expect(await csvRefs(await shop.client.get('/v1/exports/collections?held=true', { headers: { accept: 'text/csv' } }))).toEqual([...heldOfShop].reverse());
  expect((await csvRefs(await shop.client.get('/v1/exports/collections?held=false', { headers: { accept: 'text/csv' } }))).sort()).toEqual([settled, ...heldOfShop].sort());
  expect(await csvRefs(await svc.admin.get('/v1/admin/exports/collections?held=true'))).toEqual([heldOfOther, heldOfShop[1], heldOfShop[0]]);
  expect(await csvRefs(await svc.admin.get(`/v1/admin/exports/collections?held=true&business_id=${other.businessId}`))).toEqual([heldOfOther]);
});

it('refuses a held that is no boolean at the field, changing nothing', async () => {
  const state = await databaseState(svc.services.db);
  for (const res of [
    await shop.client.get('/v1/collections?held=maybe'),
    await svc.admin.get('/v1/admin/collections?held=1x'),
    await shop.client.get('/v1/exports/collections?held=maybe'),
    await svc.admin.get('/v1/admin/exports/collections?held=1x'),
  ]) {
    expect(res.status).toBe(400);
    expect(errorFields(res)).toContain('held');
  }
  expect(await databaseState(svc.services.db)).toEqual(state);
});
