// Proves FX quotes through the public API: a quote carries the reference rate, the markup (exactly applied - reference, direct and through EUR), the applied rate, its source and as_of, the fee, the credit and an expiry FX_QUOTE_TTL_SECONDS on; a request-to-pay naming it while valid is converted exactly as quoted, to the minor unit, after the rate moved, and may name it again; past its expiry (a replay of a request accepted in time still answers its collection), or for another amount, currency or business, the request is refused with QUOTE_EXPIRED or QUOTE_MISMATCH and creates nothing; no quote is given at a stale rate (RATE_UNAVAILABLE) or for bad input, and neither writes anything; the ledger stays sound once quoted payments complete.
import { ledgerDrift } from '../../src/ledger/ledger';
import { eventually, mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { accessToken, errorFields, expectOk, snapshot } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';

const MINUTE = 60_000;
let offsetMs = 0;
let svc: TestService;
let m: MerchantSetup;
let other: MerchantSetup;

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '50', OPERATOR_RATE_MAX_AGE_HOURS: '1' }, now: () => new Date(Date.now() + offsetMs) });
  const mids = ['UGX', 'KES', 'USD'].map((currency) => ({ payment_method: 'MOBILE_MONEY', currency }));
  m = await setupMerchant(svc, { defaultCurrency: 'UGX', mids, fees: [{ payment_method: 'MOBILE_MONEY', percent: 1, fixed: 0 }] });
  other = await setupMerchant(svc, { defaultCurrency: 'UGX', mids });
  expectOk(await svc.admin.patch(`/v1/admin/businesses/${m.businessId}`, { fx_markup_percent: 2.5 }));
  expectOk(await svc.admin.put('/v1/admin/fx-rates', { base: 'USD', quote: 'UGX', rate: 3700 }));
  expectOk(await svc.admin.put('/v1/admin/fx-rates', { base: 'EUR', quote: 'KES', rate: 140.5 }));
  expectOk(await svc.admin.put('/v1/admin/fx-rates', { base: 'EUR', quote: 'UGX', rate: 4100.25 }));
});
afterAll(async () => {
  await svc?.close();
});

/** The merchant's client with a token issued at the service's clock. */
async function merchant(who = m): Promise<Client> {
  return svc.merchant(await accessToken(svc, who.apiKey, who.apiSecret));
}

const usd10 = { amount: 10, currency: 'USD', account_currency: 'UGX', payment_method: 'MOBILE_MONEY' };

/** What a refused request must leave as it was: quotes, the money tables, notifications and set-up. */
async function state() {
  const counts = await svc.services.db.one(
    `SELECT (SELECT count(*) FROM fx_quotes) AS quotes, (SELECT count(*) FROM collections) AS collections,
       (SELECT count(*) FROM notifications) AS notifications, (SELECT count(*) FROM journals) AS journals,
       (SELECT count(*) FROM processor_requests) AS requests`,
  );
  return { counts, setup: await snapshot(svc) };
}

function collectionRow(gatewayReference: string) {
  return svc.services.db.one(
    `SELECT account_amount_minor, fee_minor, total_credit_minor, fx_rate::text, fx_reference_rate::text, fx_markup::text, fx_source, fx_as_of
     FROM collections WHERE gateway_reference = $1`,
    [gatewayReference],
  );
}

async function completed(client: Client, gatewayReference: string) {
  await eventually(async () => ((await client.get(`/v1/collections/${gatewayReference}`)).body.data.transaction_status === 'COMPLETED' ? true : undefined), 10_000, 'completion');
}

it('quotes the reference rate, the markup, the applied rate, its source and as_of, the fee, the credit and an expiry', async () => {
  const client = await merchant();
  const quote = expectOk(await client.post('/v1/quotes', usd10));
  // 10 USD x 3700 x 0.975 = 36075 UGX; fee 1 %
  expect(quote).toEqual({
    quote_id: expect.stringMatching(/^qt_[A-Za-z0-9_-]{24}$/),
    amount: 10, currency: 'USD', payment_method: 'MOBILE_MONEY', account_currency: 'UGX',
    account_amount: 36075, fx_reference_rate: 3700, fx_markup: -92.5, fx_rate: 3607.5, fx_source: 'operator', fx_as_of: expect.stringMatching(/Z$/),
    transaction_fee: 360.75, total_credit: 35714.25, customer_charged: false,
    created_at: expect.stringMatching(/Z$/), expires_at: expect.stringMatching(/Z$/),
  });
  expect(Date.parse(quote.expires_at) - Date.parse(quote.created_at)).toBe(5 * MINUTE);
  expect(expectOk(await client.get(`/v1/quotes/${quote.quote_id}`))).toEqual(quote);
  // another business's quote is not found; a malformed id is refused
  expect((await (await merchant(other)).get(`/v1/quotes/${quote.quote_id}`)).status).toBe(404);
  expect(errorFields(await client.get('/v1/quotes/not-a-quote'))).toEqual(['quote_id']);
});

it('converts a request-to-pay naming a valid quote exactly as quoted after the rate moved, as often as it is named, and the ledger stays sound', async () => {
  const client = await merchant();
  const quote = expectOk(await client.post('/v1/quotes', usd10));
  const firstPaid = expectOk(await client.post('/v1/collections/request-to-pay', mobileMoney({ currency: 'USD', amount: 10, quote_id: quote.quote_id })));
  const quoted = await collectionRow(firstPaid.gateway_reference);
  expectOk(await svc.admin.put('/v1/admin/fx-rates', { base: 'USD', quote: 'UGX', rate: 3800 }));
  offsetMs += 4 * MINUTE;
  const later = await merchant();
  const paid = [];
  for (let i = 0; i < 2; i++) {
    const res = expectOk(await later.post('/v1/collections/request-to-pay', mobileMoney({ currency: 'USD', amount: 10, quote_id: quote.quote_id })));
    expect(res).toMatchObject({ account_currency: 'UGX', account_amount: 36075, transaction_fee: 360.75, total_credit: 35714.25 });
    expect(await collectionRow(res.gateway_reference)).toEqual(quoted);
    paid.push(res.gateway_reference);
  }
  expect(quoted).toMatchObject({
    account_amount_minor: 3607500n, fee_minor: 36075n, total_credit_minor: 3571425n,
    fx_rate: '3607.500000000000', fx_reference_rate: '3700.000000000000', fx_markup: '-92.500000000000', fx_source: 'operator',
  });
  expect(expectOk(await later.get(`/v1/collections/${paid[0]}`))).toMatchObject({ fx_reference_rate: 3700, fx_markup: -92.5, fx_rate: 3607.5, fx_source: 'operator', fx_as_of: quote.fx_as_of });
  // without a quote, the rate at acceptance: 10 x 3800 x 0.975
  const now = expectOk(await later.post('/v1/collections/request-to-pay', mobileMoney({ currency: 'USD', amount: 10 })));
  expect(now).toMatchObject({ account_amount: 37050, fx_reference_rate: 3800, fx_rate: 3705 });
  for (const ref of [firstPaid.gateway_reference, ...paid, now.gateway_reference]) await completed(later, ref);
  expect(await ledgerDrift(svc.services.db)).toEqual([]);
});

it('refuses a request-to-pay naming an expired quote with QUOTE_EXPIRED, creating nothing', async () => {
  const quote = expectOk(await (await merchant()).post('/v1/quotes', usd10));
  const paidInTime = mobileMoney({ currency: 'USD', amount: 10, quote_id: quote.quote_id });
  const first = expectOk(await (await merchant()).post('/v1/collections/request-to-pay', paidInTime));
  offsetMs += 5 * MINUTE;
  const client = await merchant();
  await completed(client, first.gateway_reference);
  const before = await state();
  // a replay of a request accepted in time answers its collection, as every replay does
  const replay = await client.post('/v1/collections/request-to-pay', paidInTime);
  expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body.data.gateway_reference]).toEqual([200, 'true', first.gateway_reference]);
  const res = await client.post('/v1/collections/request-to-pay', mobileMoney({ currency: 'USD', amount: 10, quote_id: quote.quote_id }));
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    code: 'QUOTE_EXPIRED', status: 'error',
    message: `quote ${quote.quote_id} expired at ${quote.expires_at}; ask for a new quote`,
    data: { quote_id: quote.quote_id, expires_at: quote.expires_at },
  });
  expect(await state()).toEqual(before);
});

it('refuses a request-to-pay not matching its quote with QUOTE_MISMATCH, creating nothing', async () => {
  const client = await merchant();
  const quote = expectOk(await client.post('/v1/quotes', usd10));
  const before = await state();
  const cases: [Record<string, unknown>, Client, string[]][] = [
    [{ currency: 'USD', amount: 11 }, client, ['amount']],
    [{ currency: 'KES', amount: 10 }, client, ['currency']],
    [{ currency: 'KES', amount: 11 }, client, ['amount', 'currency']],
    [{ currency: 'USD', amount: 10 }, await merchant(other), ['quote_id']],
  ];
  for (const [body, who, fields] of cases) {
    const res = await who.post('/v1/collections/request-to-pay', mobileMoney({ ...body, quote_id: quote.quote_id }));
    expect({ body, status: res.status, code: res.body.code, data: res.body.data }).toEqual({ body, status: 400, code: 'QUOTE_MISMATCH', data: { quote_id: quote.quote_id, fields } });
  }
  const unknown = await client.post('/v1/collections/request-to-pay', mobileMoney({ currency: 'USD', amount: 10, quote_id: 'qt_AAAAAAAAAAAAAAAAAAAAAAAA' }));
  expect([unknown.status, unknown.body.code]).toEqual([400, 'QUOTE_MISMATCH']);
  expect(await state()).toEqual(before);
});

it('reports the markup as exactly applied - reference on a cross rate through EUR', async () => {
  const quote = expectOk(await (await merchant()).post('/v1/quotes', { ...usd10, currency: 'KES', amount: 1000 }));
  // 1000 KES x 4100.25 / 140.5 x 0.975 = 28453.692... UGX, rounded once
  expect(quote).toMatchObject({ account_amount: 28453.69, fx_reference_rate: 29.183274021352, fx_rate: 28.453692170819, fx_markup: -0.729581850533 });
  const row = await svc.services.db.one('SELECT fx_rate::text, fx_reference_rate::text, fx_markup::text, fx_rate - fx_reference_rate = fx_markup AS exact FROM fx_quotes WHERE quote_id = $1', [quote.quote_id]);
  expect(row).toEqual({ fx_rate: '28.453692170819', fx_reference_rate: '29.183274021352', fx_markup: '-0.729581850533', exact: true });
});

it('refuses bad input with a clear 4xx and writes nothing', async () => {
  const client = await merchant();
  const before = await state();
  expect(errorFields(await client.post('/v1/quotes', { ...usd10, account_currency: 'USD' }))).toEqual(['account_currency']);
  const wrongWallet = await client.post('/v1/quotes', { ...usd10, account_currency: 'KES' });
  expect(errorFields(wrongWallet)).toEqual(['account_currency']);
  expect(wrongWallet.body.data[0].message).toBe('a payment in USD is credited to the UGX wallet, not KES');
  for (const amount of [0, -5, 1.234, '10']) expect(errorFields(await client.post('/v1/quotes', { ...usd10, amount }))).toEqual(['amount']);
  expect(errorFields(await client.post('/v1/quotes', { ...usd10, currency: 'usd' }))).toEqual(['currency']);
  expect(errorFields(await client.post('/v1/quotes', { ...usd10, payment_method: 'CHEQUE' }))).toEqual(['payment_method']);
  expect(errorFields(await client.post('/v1/quotes', { ...usd10, rate: 4000 }))).toEqual(['rate']);
  const unknown = await client.post('/v1/quotes', { ...usd10, currency: 'XYZ' });
  expect([unknown.status, unknown.body.code]).toEqual([400, 'UNSUPPORTED_CURRENCY']);
  expect((await svc.anon.post('/v1/quotes', usd10)).status).toBe(401);
  expect(await state()).toEqual(before);
});

it('gives no quote at a stale rate: RATE_UNAVAILABLE with Retry-After, nothing written', async () => {
  offsetMs += 61 * MINUTE; // past OPERATOR_RATE_MAX_AGE_HOURS
  const client = await merchant();
  const before = await state();
  const res = await client.post('/v1/quotes', usd10);
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('300');
  expect(res.body).toMatchObject({ code: 'RATE_UNAVAILABLE', data: { from: 'USD', to: 'UGX' } });
  expect(await state()).toEqual(before);
});
