// Proves request-to-pay for the four methods, every validation rule (refused and nothing written), the sandbox
// simulator's designated numbers, expiry, idempotency and the routing errors.
import { eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let m: MerchantSetup;
const count = async () => Number((await svc.database.db.one('SELECT count(*) AS n FROM collections')).n);
const rtp = (body: unknown) => m.client.post('/v1/collections/request-to-pay', body);

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '300', PENDING_TTL_SECONDS: '600' } });
  m = await setupMerchant(svc, { wallets: ['UGX', 'USD'], fees: [{ payment_method: 'MOBILE_MONEY', percent: 2.5, fixed: 0 }] });
  await svc.admin.put('/v1/admin/fx-rates', { base: 'USD', quote: 'UGX', rate: 3700 });
  await svc.admin.put('/v1/admin/fx-rates', { base: 'EUR', quote: 'UGX', rate: 4000 });
});
afterAll(async () => {
  await svc?.close();
});

describe('request-to-pay: accepted', () => {
  it('accepts mobile money with instructions and no payment_url', async () => {
    const body = mobileMoney({ amount: 50000.5, account_number: '256777000009' });
    const res = await rtp(body);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('accepted');
    expect(res.body.code).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({
      request_amount: 50000.5,
      request_currency: 'UGX',
      account_amount: 50000.5,
      account_currency: 'UGX',
      transaction_fee: 1250.01,
      total_credit: 48750.49,
      merchant_reference: body.merchant_reference,
      transaction_status: 'PENDING',
      transaction_type: 'collection',
      customer_charged: false,
      payment_method: 'MOBILE_MONEY',
      payment_url: null,
      account_name: null,
      account_email: null,
      institution_name: 'PayCollect Sandbox Mobile Money',
    });
    expect(d.id).toMatch(/^\d+$/);
    expect(d.gateway_reference).toMatch(/^PC[A-Z2-9]{20}$/);
    expect(d.instructions.length).toBeGreaterThan(0);
    expect(d.instructions[0]).toEqual({ step: '1', description: expect.stringContaining('256777000009') });
    const row = await svc.database.db.one('SELECT * FROM collections WHERE gateway_reference = $1', [d.gateway_reference]);
    expect(row.request_amount_minor).toBe(5000050n);
    expect(row.status).toBe('PENDING');
    expect(row.api_token_id).toBe(m.apiTokenId);
  });

  it("tells the customer the amount in the currency's own decimals (the sandbox's prompt)", async () => {
    const whole = await rtp(mobileMoney({ amount: 25000 }));
    expect(whole.body.data.instructions[0].description).toContain('A payment prompt for 25,000 UGX has been sent');
    const cents = await rtp(mobileMoney({ amount: 25000.5 }));
    expect(cents.body.data.instructions[0].description).toContain('A payment prompt for 25,000.50 UGX has been sent');
  });

  it('converts a currency without a wallet to the default wallet at the market rate', async () => {
    const res = await rtp(mobileMoney({ currency: 'EUR', amount: 10.25 }));
    // no EUR MID exists for this merchant: routing needs a MID in the request currency
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('NO_ROUTE');
    await svc.admin.post(`/v1/admin/businesses/${m.businessId}/mids`, {
      business_name: 'Test Shop', service_type: 'sandbox', payment_method: 'MOBILE_MONEY', currency: 'EUR',
    });
    const ok = await rtp(mobileMoney({ currency: 'EUR', amount: 10.25 }));
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ request_amount: 10.25, request_currency: 'EUR', account_amount: 41000, account_currency: 'UGX' });
  });

  it('uses the wallet of the request currency when there is one', async () => {
    await svc.admin.post(`/v1/admin/businesses/${m.businessId}/mids`, {
      business_name: 'Test Shop', service_type: 'sandbox', payment_method: 'MOBILE_MONEY', currency: 'USD',
    });
    const res = await rtp(mobileMoney({ currency: 'USD', amount: 12 }));
    expect(res.body.data).toMatchObject({ account_amount: 12, account_currency: 'USD' });
  });

  it.each([
    ['CARD', { account_name: 'Amina Nakato', account_email: 'amina@example.org', redirect_url: 'https://shop.example.org/done' }],
    ['BANK', { account_number: '0123456789', redirect_url: 'http://shop.example.org/done' }],
    ['CRYPTO', { account_number: 'bc1qcustomerwallet', redirect_url: 'https://shop.example.org/done' }],
  ])('accepts %s with a payment_url on the hosted pages', async (method, extra) => {
    const res = await rtp({ currency: 'UGX', amount: 1000, payment_method: method, merchant_reference: ref(), narration: 'Order for test goods', ...extra });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.transaction_status).toBe('PENDING');
    expect(d.payment_url).toMatch(new RegExp(`^${svc.url}/pay/${d.gateway_reference}\\?token=[A-Za-z0-9_-]+$`));
    const page = await fetch(d.payment_url);
    expect(page.status).toBe(200);
  });

  it('answers NO_ROUTE when every MID is inactive, and UNSUPPORTED_CURRENCY without wallet or rate', async () => {
    const before = await count();
    const noRate = await rtp(mobileMoney({ currency: 'JPY' }));
    expect(noRate.status).toBe(400);
    expect(noRate.body.code).toBe('UNSUPPORTED_CURRENCY');
    const other = await setupMerchant(svc, { mids: [{ payment_method: 'MOBILE_MONEY', currency: 'UGX', active: false }] });
    const noRoute = await other.client.post('/v1/collections/request-to-pay', mobileMoney());
    expect(noRoute.status).toBe(400);
    expect(noRoute.body.code).toBe('NO_ROUTE');
    expect(await count()).toBe(before);
  });
});

describe('request-to-pay: every rule refused, nothing written', () => {
  const card = { payment_method: 'CARD', account_name: 'A N', account_email: 'a@example.org', redirect_url: 'https://x.example/d' };
  it.each([
    ['amount missing', { amount: undefined }, ['amount']],
    ['amount zero', { amount: 0 }, ['amount']],
    ['amount negative', { amount: -5 }, ['amount']],
    ['amount with 3 decimals', { amount: 10.005 }, ['amount']],
    ['amount as a string', { amount: '100' }, ['amount']],
    ['amount above 10^12', { amount: 1e12 + 1 }, ['amount']],
    ['currency lower case', { currency: 'ugx' }, ['currency']],
    ['currency missing', { currency: undefined }, ['currency']],
    ['unknown payment method', { payment_method: 'CHEQUE' }, ['payment_method']],
    ['mobile money without account_number', { account_number: undefined }, ['account_number']],
    ['mobile money number with plus', { account_number: '+256777000001' }, ['account_number']],
    ['mobile money number too short', { account_number: '256777' }, ['account_number']],
    ['merchant_reference too short', { merchant_reference: 'ABC12345' }, ['merchant_reference']],
    ['merchant_reference too long', { merchant_reference: 'A'.repeat(37) }, ['merchant_reference']],
    ['merchant_reference with spaces', { merchant_reference: 'order 123456' }, ['merchant_reference']],
    ['narration too short', { narration: 'Short' }, ['narration']],
    ['narration too long', { narration: 'N'.repeat(65) }, ['narration']],
    ['unknown field', { tip: 5 }, ['tip']],
    ['card without name, email, redirect', { payment_method: 'CARD', account_number: undefined }, ['account_email', 'account_name', 'redirect_url']],
    ['card with http redirect', { ...card, redirect_url: 'http://x.example/d' }, ['redirect_url']],
    ['card with a bad email', { ...card, account_email: 'not-an-email' }, ['account_email']],
    ['bank without redirect_url', { payment_method: 'BANK', account_number: '0123456789' }, ['redirect_url']],
    ['crypto without account_number', { payment_method: 'CRYPTO', account_number: undefined, redirect_url: 'https://x.example/d' }, ['account_number']],
    ['redirect_url not a URL', { payment_method: 'BANK', account_number: '0123', redirect_url: 'shop/done' }, ['redirect_url']],
    ['encrypted_card with mobile money', { encrypted_card: 'abc' }, ['encrypted_card']],
    ['payment_method missing', { payment_method: undefined, narration: 'x' }, ['payment_method']],
    ['amount with 3 decimals in exponent form', { amount: 1.5e-7 }, ['amount']],
  ])('%s', async (_name, change, fields) => {
    const before = await count();
    const body: Record<string, unknown> = { ...mobileMoney(), ...change };
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    const res = await rtp(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    const got = [...new Set((res.body.data as { field: string }[]).map((e) => e.field))].sort();
    expect(got).toEqual(fields);
    expect(await count()).toBe(before);
  });

  it('says what is wrong with a third decimal, naming the field', async () => {
    const res = await rtp(mobileMoney({ amount: 19.999 }));
    expect(res.status).toBe(400);
    expect(res.body.data).toEqual([{ field: 'amount', message: 'must have at most 2 decimal places' }]);
  });

  it('lists several broken rules at once', async () => {
    const res = await rtp({ currency: 'usd', amount: 1.234, payment_method: 'MOBILE_MONEY', merchant_reference: 'x', narration: 'y' });
    const fields = (res.body.data as { field: string }[]).map((e) => e.field).sort();
    expect(fields).toEqual(['account_number', 'amount', 'currency', 'merchant_reference', 'narration']);
  });
});

describe('request-to-pay: two-decimal amounts that floating-point multipleOf refuses', () => {
  it.each([19.99, 0.07, 1.15, 4.35, 99.99, 1234567.89])('accepts %p exactly', async (amount) => {
    const res = await rtp(mobileMoney({ amount, account_number: '256777000011' }));
    expect(res.status).toBe(200);
    expect(res.body.data.request_amount).toBe(amount);
  });
});

describe('request-to-pay: idempotency', () => {
  it('replays the same reference and body, refuses it with another body', async () => {
    const body = mobileMoney({ account_number: '256777000010' });
    const first = await rtp(body);
    const before = await count();
    const again = await rtp({ ...body });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    expect((await rtp(reordered)).body.data.gateway_reference).toBe(first.body.data.gateway_reference);
    const changed = await rtp({ ...body, amount: 50001 });
    expect(changed.status).toBe(400);
    expect(changed.body.code).toBe('DUPLICATE_MERCHANT_REFERENCE');
    expect(await count()).toBe(before);
  });

  it('keeps references per business: another merchant may reuse one', async () => {
    const other = await setupMerchant(svc);
    const body = mobileMoney();
    expect((await rtp(body)).status).toBe(200);
    const res = await other.client.post('/v1/collections/request-to-pay', body);
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });

  it('20 simultaneous identical requests make one transaction', async () => {
    const body = mobileMoney({ account_number: '256777000011' });
    const results = await Promise.all(Array.from({ length: 20 }, () => rtp(body)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body.data.gateway_reference)).size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    const rows = await svc.database.db.any('SELECT id FROM collections WHERE merchant_reference = $1', [body.merchant_reference]);
    expect(rows).toHaveLength(1);
  });
});

describe('sandbox simulator', () => {
  const final = (gatewayReference: string) =>
    eventually(async () => {
      const r = await m.client.get(`/v1/collections/${gatewayReference}`);
      return r.body.data.transaction_status === 'PENDING' ? undefined : r.body.data;
    }, 10_000, 'a final state');

  it.each([
    ['256777000001', 'COMPLETED'],
    ['256777000002', 'COMPLETED'],
    ['256777000003', 'FAILED'],
    ['256777000004', 'FAILED'],
  ])('designated number %s ends %s after the delay', async (phone, status) => {
    const res = await rtp(mobileMoney({ account_number: phone }));
    expect(res.body.data.transaction_status).toBe('PENDING');
    const done = await final(res.body.data.gateway_reference);
    expect(done.transaction_status).toBe(status);
    const row = await svc.database.db.one('SELECT status FROM collections WHERE gateway_reference = $1', [res.body.data.gateway_reference]);
    expect(row.status).toBe(status);
  });

  it('leaves any other number PENDING', async () => {
    const res = await rtp(mobileMoney({ account_number: '256700123456' }));
    await new Promise((r) => setTimeout(r, 800));
    const now = await m.client.get(`/v1/collections/${res.body.data.gateway_reference}`);
    expect(now.body.data.transaction_status).toBe('PENDING');
  });
});
