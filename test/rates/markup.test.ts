// Proves a business's FX markup through the public API: set by the operator on the business, taken off the reference rate (direct and through EUR), recorded on the collection as reference rate, markup (exactly applied - reference), applied rate, source and as_of, shown in the merchant's record and its webhook body; refused values change nothing; the ledger stays sound once the payment completes.
import { ledgerDrift } from '../../src/ledger/ledger';
import { eventually, mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { errorFields, expectOk, snapshot } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let m: MerchantSetup;

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '50' } });
  const mids = ['UGX', 'KES', 'USD'].map((currency) => ({ payment_method: 'MOBILE_MONEY', currency }));
  m = await setupMerchant(svc, { defaultCurrency: 'UGX', mids, fees: [{ payment_method: 'MOBILE_MONEY', percent: 1, fixed: 0 }] });
  expectOk(await svc.admin.put('/v1/admin/fx-rates', { base: 'USD', quote: 'UGX', rate: 3700 }));
  expectOk(await svc.admin.put('/v1/admin/fx-rates', { base: 'EUR', quote: 'KES', rate: 140.5 }));
  expectOk(await svc.admin.put('/v1/admin/fx-rates', { base: 'EUR', quote: 'UGX', rate: 4100.25 }));
});
afterAll(async () => {
  await svc?.close();
});

async function adminView(gatewayReference: string) {
  return expectOk(await svc.admin.get(`/v1/admin/collections/${gatewayReference}`));
}

it('is set on the business by the operator, and refused out of range changing nothing', async () => {
  const b = expectOk(await svc.admin.patch(`/v1/admin/businesses/${m.businessId}`, { fx_markup_percent: 2.5 }));
  expect(b.fx_markup_percent).toBe(2.5);
  const before = await snapshot(svc);
  for (const bad of [100, -1, 1.234, '2']) {
    expect(errorFields(await svc.admin.patch(`/v1/admin/businesses/${m.businessId}`, { fx_markup_percent: bad }))).toEqual(['fx_markup_percent']);
  }
  expect(await snapshot(svc)).toEqual(before);
});

it('takes the markup off a direct rate and records reference, markup, applied rate, source and as_of', async () => {
  const res = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ currency: 'USD', amount: 10 }));
  // 10 USD x 3700 x 0.975 = 36075 UGX; fee 1 %
  expect(res.body.data).toMatchObject({ account_currency: 'UGX', account_amount: 36075, transaction_fee: 360.75 });
  const view = await adminView(res.body.data.gateway_reference);
  expect(view).toMatchObject({ fx_reference_rate: 3700, fx_rate: 3607.5, fx_markup: -92.5, fx_source: 'operator', fx_as_of: expect.stringMatching(/Z$/) });
  const row = await svc.services.db.one('SELECT fx_rate::text, fx_reference_rate::text, fx_markup::text, fx_rate - fx_reference_rate = fx_markup AS exact FROM collections WHERE gateway_reference = $1', [res.body.data.gateway_reference]);
  expect(row).toEqual({ fx_rate: '3607.500000000000', fx_reference_rate: '3700.000000000000', fx_markup: '-92.500000000000', exact: true });
  await eventually(async () => ((await adminView(res.body.data.gateway_reference)).transaction_status === 'COMPLETED' ? true : undefined), 10_000, 'completion');
  expect(await ledgerDrift(svc.services.db)).toEqual([]);
  const shown = { fx_reference_rate: 3700, fx_rate: 3607.5, fx_markup: -92.5, fx_source: 'operator', fx_as_of: view.fx_as_of };
  expect(expectOk(await m.client.get(`/v1/collections/${res.body.data.gateway_reference}`))).toMatchObject(shown);
  const hooks = await svc.services.db.any('SELECT n.body FROM notifications n JOIN collections c ON c.id = n.collection_id WHERE c.gateway_reference = $1 ORDER BY n.sequence', [res.body.data.gateway_reference]);
  expect(hooks.length).toBeGreaterThan(0);
  for (const h of hooks) expect(JSON.parse(h.body)).toMatchObject(shown);
});

it('takes it off a cross rate through EUR, the markup still exactly applied - reference', async () => {
  const res = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ currency: 'KES', amount: 1000 }));
  // 1000 KES x 4100.25 / 140.5 x 0.975 = 28453.692... UGX, rounded once from the exact fraction
  expect(res.body.data).toMatchObject({ account_amount: 28453.69 });
  const row = await svc.services.db.one('SELECT fx_rate::text, fx_reference_rate::text, fx_markup::text, fx_rate - fx_reference_rate = fx_markup AS exact, fx_source FROM collections WHERE gateway_reference = $1', [res.body.data.gateway_reference]);
  expect(row).toEqual({ fx_rate: '28.453692170819', fx_reference_rate: '29.183274021352', fx_markup: '-0.729581850533', exact: true, fx_source: 'operator' });
  await eventually(async () => ((await adminView(res.body.data.gateway_reference)).transaction_status === 'COMPLETED' ? true : undefined), 10_000, 'completion');
  expect(await ledgerDrift(svc.services.db)).toEqual([]);
});

it('leaves a payment needing no conversion alone', async () => {
  const res = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ currency: 'UGX', amount: 5000 }));
  expect(res.body.data).toMatchObject({ account_amount: 5000 });
  expect(await adminView(res.body.data.gateway_reference)).toMatchObject({ fx_rate: null, fx_reference_rate: null, fx_markup: null, fx_source: null, fx_as_of: null });
});
