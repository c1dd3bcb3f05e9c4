// Proves PricingService: wallet choice, direct and inverse market rates, fees of the business under both bearers, UNSUPPORTED_CURRENCY, limits.
import { AppError } from '../../src/errors';
import type { PriceRequest } from '../../src/merchants/pricing';
import { createBusiness, moneyServices, setRate } from '../helpers/money-fixtures';
import type { ServicesFixture } from '../helpers/money-fixtures';

let fx: ServicesFixture;
beforeAll(async () => {
  fx = await moneyServices();
  await setRate(fx.services.db, 'USD', 'UGX', '3700');
  await setRate(fx.services.db, 'EUR', 'USD', '1.085');
});
afterAll(() => fx.close());

/** As request-to-pay prices: the inputs the configuration cache reads (no API token here), then priceFrom. */
async function price(r: Omit<PriceRequest, 'paymentMethod' | 'now'> & { paymentMethod?: PriceRequest['paymentMethod'] }) {
  const q = { paymentMethod: 'MOBILE_MONEY' as const, now: fx.services.now(), ...r };
  const { pricing } = await fx.services.configCache.forRequest(0, q.businessId, q.paymentMethod, q.requestCurrency);
  return fx.services.pricing.priceFrom(pricing, q);
}

async function errorOf(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

it('uses the wallet in the request currency without conversion', async () => {
  const b = await createBusiness(fx.services.db, { wallets: ['USD'], fees: [{ method: 'MOBILE_MONEY', percent: '3', fixedMinor: 50n }] });
  expect(await price({ businessId: b.businessId, requestCurrency: 'USD', requestAmountMinor: 10000n })).toEqual({
    accountCurrency: 'USD',
    accountAmountMinor: 10000n,
    fxRate: null,
    fxReferenceRate: null,
    fxMarkup: null,
    fxSource: null,
    fxAsOf: null,
    feeMinor: 350n,
    totalCreditMinor: 9650n,
    customerCharged: false,
  });
});

it('converts to the default wallet at the direct rate and keeps the stored rate text', async () => {
  const b = await createBusiness(fx.services.db, { defaultCurrency: 'UGX', fees: [{ method: 'CARD', percent: '2.5', fixedMinor: 0n }] });
  const p = await price({ businessId: b.businessId, requestCurrency: 'USD', requestAmountMinor: 1234n, paymentMethod: 'CARD' });
  expect(p).toEqual({
    accountCurrency: 'UGX',
    accountAmountMinor: 4565800n,
    fxRate: '3700.000000000000',
    fxReferenceRate: '3700.000000000000',
    fxMarkup: '0.000000000000',
    fxSource: 'operator',
    fxAsOf: expect.any(Date),
    feeMinor: 114145n,
    totalCreditMinor: 4451655n,
    customerCharged: false,
  });
});

it('converts with the exact inverse of the reverse rate and shows it to 12 decimals', async () => {
  const b = await createBusiness(fx.services.db, { defaultCurrency: 'USD' });
  const p = await price({ businessId: b.businessId, requestCurrency: 'UGX', requestAmountMinor: 1850n });
  expect(p).toMatchObject({ accountCurrency: 'USD', accountAmountMinor: 1n, fxRate: '0.000270270270', feeMinor: 0n, totalCreditMinor: 1n });
  const q = await price({ businessId: b.businessId, requestCurrency: 'EUR', requestAmountMinor: 10n });
  expect(q).toMatchObject({ accountAmountMinor: 11n, fxRate: '1.085000000000' });
});

it('charges the customer when the business has the customer bear the fee', async () => {
  const b = await createBusiness(fx.services.db, { feeBearer: 'customer', fees: [{ method: 'BANK', percent: '1', fixedMinor: 100n }] });
  const p = await price({ businessId: b.businessId, requestCurrency: 'UGX', requestAmountMinor: 50n, paymentMethod: 'BANK' });
  expect(p).toMatchObject({ accountAmountMinor: 50n, feeMinor: 101n, totalCreditMinor: 50n, customerCharged: true });
});

it('caps a merchant fee at the amount so the credit is never negative', async () => {
  const b = await createBusiness(fx.services.db, { fees: [{ method: 'MOBILE_MONEY', percent: '0', fixedMinor: 500n }] });
  const p = await price({ businessId: b.businessId, requestCurrency: 'UGX', requestAmountMinor: 300n });
  expect(p).toMatchObject({ accountAmountMinor: 300n, feeMinor: 300n, totalCreditMinor: 0n, customerCharged: false });
});

it('charges no fee for a payment method without a fee rule', async () => {
  const b = await createBusiness(fx.services.db, { fees: [{ method: 'CARD', percent: '5', fixedMinor: 0n }] });
  expect(await price({ businessId: b.businessId, requestCurrency: 'UGX', requestAmountMinor: 1000n, paymentMethod: 'CRYPTO' })).toMatchObject({
    feeMinor: 0n,
    totalCreditMinor: 1000n,
  });
});

it('refuses a currency with neither a wallet nor a rate with UNSUPPORTED_CURRENCY', async () => {
  const b = await createBusiness(fx.services.db, { defaultCurrency: 'UGX', wallets: ['KES'] });
  const err = await errorOf(price({ businessId: b.businessId, requestCurrency: 'EUR', requestAmountMinor: 100n }));
  expect(err.code).toBe('UNSUPPORTED_CURRENCY');
});

it('refuses a business without any wallet with UNSUPPORTED_CURRENCY', async () => {
  const { id } = await fx.services.db.one("INSERT INTO businesses (name, default_currency) VALUES ('No Wallet', 'UGX') RETURNING id");
  const err = await errorOf(price({ businessId: id, requestCurrency: 'UGX', requestAmountMinor: 100n }));
  expect(err.code).toBe('UNSUPPORTED_CURRENCY');
});

it('refuses an amount that converts to less than one cent or beyond the exact range', async () => {
  const usd = await createBusiness(fx.services.db, { defaultCurrency: 'USD' });
  const small = await errorOf(price({ businessId: usd.businessId, requestCurrency: 'UGX', requestAmountMinor: 1849n }));
  expect(small.code).toBe('VALIDATION_ERROR');
  expect(small.data).toEqual([{ field: 'amount', message: expect.stringContaining('less than 0.01 USD') }]);
  const ugx = await createBusiness(fx.services.db, { defaultCurrency: 'UGX' });
  const large = await errorOf(price({ businessId: ugx.businessId, requestCurrency: 'USD', requestAmountMinor: 100000000000000n }));
  expect(large.code).toBe('VALIDATION_ERROR');
  expect(large.data).toEqual([{ field: 'amount', message: expect.stringContaining('too large') }]);
});

it('prices 10^12 in the wallet currency exactly', async () => {
  const b = await createBusiness(fx.services.db, { fees: [{ method: 'MOBILE_MONEY', percent: '2.75', fixedMinor: 100n }] });
  expect(await price({ businessId: b.businessId, requestCurrency: 'UGX', requestAmountMinor: 100000000000000n })).toMatchObject({
    feeMinor: 2750000000100n,
    totalCreditMinor: 97249999999900n,
  });
});
