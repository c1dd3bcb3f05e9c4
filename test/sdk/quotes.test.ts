// Proves the SDK's quote calls against the real service: createQuote answers the quote the service stored, getQuote reads it back, a request-to-pay naming its quote_id is converted exactly as quoted and completes with the ledger sound, and a refused quote or a request not matching its quote throws a typed PayCollectError and writes nothing.
import { createPayCollect, PayCollectError, unwrap } from '../../sdk/src';
import type { PayCollect } from '../../sdk/src';
import { ledgerDrift } from '../../src/ledger/ledger';
import { eventually, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { expectOk } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let m: MerchantSetup;
let pay: PayCollect;

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '50' } });
  const mids = ['UGX', 'USD'].map((currency) => ({ payment_method: 'MOBILE_MONEY', currency }));
  m = await setupMerchant(svc, { defaultCurrency: 'UGX', mids, fees: [{ payment_method: 'MOBILE_MONEY', percent: 3, fixed: 0 }] });
  expectOk(await svc.admin.patch(`/v1/admin/businesses/${m.businessId}`, { fx_markup_percent: 2.5 }));
  expectOk(await svc.admin.put('/v1/admin/fx-rates', { base: 'USD', quote: 'UGX', rate: 3700 }));
  pay = createPayCollect({ baseUrl: svc.url, apiKey: m.apiKey, apiSecret: m.apiSecret });
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

const quotes = async () => (await svc.database.db.one('SELECT count(*)::int AS n FROM fx_quotes')).n as number;
const payment = (quoteId: string, amount = 10) => ({
  currency: 'USD', amount, narration: 'Order from the SDK', payment_method: 'MOBILE_MONEY' as const, account_number: '256777000001', merchant_reference: ref('SDKQ'), quote_id: quoteId,
});

it('asks for a quote, reads it back, and pays naming it at exactly the quoted credit', async () => {
  const { data: quote } = await unwrap(pay.createQuote({ amount: 10, currency: 'USD', account_currency: 'UGX', payment_method: 'MOBILE_MONEY' }));
  // 10 USD x 3700 x 0.975 = 36075 UGX, fee 3 %
  expect(quote).toMatchObject({ fx_reference_rate: 3700, fx_markup: -92.5, fx_rate: 3607.5, account_amount: 36075, transaction_fee: 1082.25, total_credit: 34992.75 });
  const stored = await svc.database.db.one('SELECT total_credit_minor, expires_at FROM fx_quotes WHERE quote_id = $1', [quote.quote_id]);
  expect(stored).toEqual({ total_credit_minor: 3499275n, expires_at: new Date(quote.expires_at) });
  expect((await unwrap(pay.getQuote(quote.quote_id))).data).toEqual(quote);
  const { data: paid } = await unwrap(pay.api.POST('/v1/collections/request-to-pay', { body: payment(quote.quote_id) }));
  expect(paid).toMatchObject({ account_amount: quote.account_amount, transaction_fee: quote.transaction_fee, total_credit: quote.total_credit, fx_rate: 3607.5, fx_reference_rate: 3700, fx_markup: -92.5 });
  await eventually(async () => {
    const { data } = await unwrap(pay.api.GET('/v1/collections/{gateway_reference}', { params: { path: { gateway_reference: paid.gateway_reference } } }));
    return data.transaction_status === 'COMPLETED' ? true : undefined;
  }, 10_000, 'completion');
  expect(await ledgerDrift(svc.database.db)).toEqual([]);
});

it('throws a typed error for a refused quote and for a request not matching its quote, writing nothing', async () => {
  const before = await quotes();
  const same = await unwrap(pay.createQuote({ amount: 10, currency: 'UGX', account_currency: 'UGX', payment_method: 'MOBILE_MONEY' })).catch((e: unknown) => e);
  expect(same).toBeInstanceOf(PayCollectError);
  if (!(same instanceof PayCollectError) || same.code !== 'VALIDATION_ERROR') throw new Error('expected VALIDATION_ERROR');
  expect(same.data.map((f) => f.field)).toEqual(['account_currency']);
  expect(await quotes()).toBe(before);
  const { data: quote } = await unwrap(pay.createQuote({ amount: 10, currency: 'USD', account_currency: 'UGX', payment_method: 'MOBILE_MONEY' }));
  const collections = (await svc.database.db.one('SELECT count(*)::int AS n FROM collections')).n;
  const other = await unwrap(pay.api.POST('/v1/collections/request-to-pay', { body: payment(quote.quote_id, 12) })).catch((e: unknown) => e);
  expect(other).toMatchObject({ status: 400, code: 'QUOTE_MISMATCH', data: { quote_id: quote.quote_id, fields: ['amount'] } });
  expect((await svc.database.db.one('SELECT count(*)::int AS n FROM collections')).n).toBe(collections);
});
