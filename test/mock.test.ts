// Proves `npm run mock` (Prism on the merchant document) answers every merchant operation with a response that
// validates against the spec, accepts valid requests the old multipleOf refused and `{}` on body-less actions, and
// tells the story through `Prefer: example=` (a collection's, an FX quote's with request-to-pay refused at a stale rate or an expired quote, a refund's and a disbursement's, with the disbursement's refusals by
// `Prefer: code=`; the collections export and the wallet statement under the service's own CSV headers, one converted collection's FX markup the same in both):
// the zero-logic sandbox never contradicts the contract.
import { startPrism } from './helpers/prism';
import type { Prism } from './helpers/prism';
import { checkResponse, specApis } from './helpers/spec';
import { headerOf, parseCsv, rateUnits } from './reports/csv';
import { COLLECTIONS_CSV_HEADER, REFUNDS_CSV_HEADER } from '../src/reports/exports';
import { STATEMENT_CSV_HEADER } from '../src/reports/statement';
import { moneyText } from '../src/domain/currencies';

let prism: Prism;
let base: string;

beforeAll(async () => {
  prism = await startPrism(['mock', 'openapi/openapi.yaml']);
  base = prism.url;
});
afterAll(() => prism?.stop());

const REF = 'PCK7M2QX9D4W8N3R6T5Y2Z';
const QUOTE = 'qt_Vb3k9QmX2LrT8wNc4YhZ7sPa';
const LINK = 'pl_Q7rX2mLk9VbT4nWc8YhZ3sPa';
const bodies: Record<string, unknown> = {
  createAccessToken: { api_key: 'pk_sandbox_Xk2e9QmV4tLr8WbN1cYh7Gs', expires_in: 900 },
  requestToPay: { currency: 'UGX', amount: 50000, payment_method: 'MOBILE_MONEY', account_number: '256777000001', merchant_reference: 'ORD-20251125-0001', narration: 'Order 20251125-0001' },
  simulateCollection: { outcome: 'COMPLETED' },
  createQuote: { amount: 10, currency: 'USD', account_currency: 'UGX', payment_method: 'MOBILE_MONEY' },
  createPaymentLink: { title: 'Tailoring deposit', amount: 50000, currency: 'UGX', payment_methods: ['MOBILE_MONEY', 'CARD'], completed_limit: 1 },
  deactivatePaymentLink: { message: 'Sold out, thank you!' },
  acceptDispute: { message: 'The order was never delivered; we accept the chargeback' },
  submitDisputeEvidence: {
    customer_email: 'adaeze.okafor@example.com', customer_name: 'Adaeze Okafor', customer_phone: '2348012345678',
    service_details: 'Two textbooks, collected at the Marina shop on 24 November', message: 'The customer collected the books in person',
  },
  advanceSandboxClock: { advance_hours: 100 },
  createRefund: { amount: 20000, merchant_reference: 'RFD-20251125-0001', reason: 'Order cancelled by the customer' },
  createDisbursement: { amount: 150000, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello Transport Ltd', merchant_reference: 'PAY-20251125-0001', narration: 'Driver payout week 47' },
};
/** Required query parameters, and media types other than JSON. */
const queries: Record<string, string> = { getWalletStatement: '?from=2025-11-01T00:00:00Z&to=2025-12-01T00:00:00Z' };
const accepts: Record<string, string> = { getPublicKey: 'application/x-pem-file', exportCollections: 'text/csv', exportRefunds: 'text/csv', exportDisbursements: 'text/csv' };

it('answers every merchant operation with a response that validates', async () => {
  const { merchant } = await specApis();
  const operations = merchant.getOperations();
  expect(operations.length).toBeGreaterThanOrEqual(11);
  for (const op of operations) {
    const urlPath = op.path.replace('{gateway_reference}', REF).replace('{currency}', 'UGX').replace('{quote_id}', QUOTE).replace('{link_id}', LINK) + (queries[op.operationId ?? ''] ?? '');
    const body = bodies[op.operationId ?? ''];
    const res = await fetch(base + urlPath, {
      method: op.method.toUpperCase(),
      headers: {
        accept: accepts[op.operationId ?? ''] ?? 'application/json',
        authorization: 'JWT eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
        'secret-key': 'sk_sandbox_secret',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const parsed = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
    expect({ op: op.operationId, status: res.status }).toEqual({ op: op.operationId, status: 200 });
    await checkResponse(op.method, urlPath, res.status, parsed, res.headers.get('content-type') ?? '');
  }
});

const mockHeaders = { accept: 'application/json', authorization: 'JWT eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', 'content-type': 'application/json' };

it('accepts every two-decimal amount and every form of the request, and never claims a replay', async () => {
  const forms = [
    { payment_method: 'MOBILE_MONEY', account_number: '256777000003' },
    { payment_method: 'CARD', redirect_url: 'https://shop.example.org/done', account_name: 'Amina Nakato', account_email: 'amina@example.org' },
    { payment_method: 'BANK', account_number: '0123456789', redirect_url: 'https://shop.example.org/done' },
    { payment_method: 'CRYPTO', account_number: 'bc1qexample', redirect_url: 'https://shop.example.org/done' },
  ];
  for (const [i, amount] of [19.99, 0.07, 1.15, 4.35].entries()) {
    const body = { currency: 'USD', amount, merchant_reference: `ORD-MOCK-000${i}`, narration: 'Order from the mock', ...forms[i] };
    const res = await fetch(base + '/v1/collections/request-to-pay', { method: 'POST', headers: mockHeaders, body: JSON.stringify(body) });
    expect({ amount, status: res.status }).toEqual({ amount, status: 200 });
    expect(res.headers.get('idempotent-replayed')).toBe('false');
    await checkResponse('POST', '/v1/collections/request-to-pay', res.status, await res.json());
  }
});

it('refuses a CARD request without its required fields, as the service does', async () => {
  const body = { currency: 'USD', amount: 10, payment_method: 'CARD', merchant_reference: 'ORD-MOCK-0009', narration: 'Order from the mock' };
  const res = await fetch(base + '/v1/collections/request-to-pay', { method: 'POST', headers: mockHeaders, body: JSON.stringify(body) });
  expect(res.status).toBe(400);
  expect((await res.json()).code).toBe('VALIDATION_ERROR');
  expect(res.headers.get('sl-violations')).toContain('redirect_url');
});

it('tells the quote story: the quote as asked, its markup exactly applied - reference, its credit the amount less the fee, and request-to-pay refused at a stale rate', async () => {
  const res = await fetch(`${base}/v1/quotes`, { method: 'POST', headers: mockHeaders, body: JSON.stringify(bodies.createQuote) });
  const { data } = await res.json();
  expect(data).toMatchObject(bodies.createQuote as Record<string, unknown>);
  expect(data.quote_id).toBe(QUOTE);
  const twelfths = (n: number) => Math.round(n * 1e12); // in units of the rates' 12th decimal
  expect(twelfths(data.fx_rate) - twelfths(data.fx_reference_rate)).toBe(twelfths(data.fx_markup));
  expect(Math.round(data.account_amount * 100) - Math.round(data.transaction_fee * 100)).toBe(Math.round(data.total_credit * 100));
  expect(Date.parse(data.expires_at) - Date.parse(data.created_at)).toBe(5 * 60_000);
  const read = await (await fetch(`${base}/v1/quotes/${QUOTE}`, { headers: mockHeaders })).json();
  expect(read.data).toEqual(data);
  const payment = JSON.stringify({ ...(bodies.requestToPay as object), currency: 'USD', amount: 10, quote_id: QUOTE });
  const stale = await fetch(`${base}/v1/collections/request-to-pay`, { method: 'POST', headers: { ...mockHeaders, prefer: 'code=503, example=rateUnavailable' }, body: payment });
  const refused = await stale.json();
  expect([stale.status, refused.code, refused.data.to]).toEqual([503, 'RATE_UNAVAILABLE', 'UGX']);
  await checkResponse('POST', '/v1/collections/request-to-pay', stale.status, refused);
  const expired = await (await fetch(`${base}/v1/collections/request-to-pay`, { method: 'POST', headers: { ...mockHeaders, prefer: 'code=400, example=quoteExpired' }, body: payment })).json();
  expect(expired).toMatchObject({ code: 'QUOTE_EXPIRED', data: { quote_id: QUOTE, expires_at: data.expires_at } });
});

it('takes {} on an action without input', async () => {
  const res = await fetch(`${base}/v1/collections/${REF}/notify`, { method: 'POST', headers: mockHeaders, body: '{}' });
  expect(res.status).toBe(200);
});

it.each(['pending', 'completed', 'failed', 'expired'])('answers the %s collection with Prefer: example=', async (example) => {
  const res = await fetch(`${base}/v1/collections/${REF}`, { headers: { ...mockHeaders, prefer: `example=${example}` } });
  const body = await res.json();
  expect(body.data.transaction_status).toBe(example.toUpperCase());
  await checkResponse('GET', `/v1/collections/${REF}`, res.status, body);
});

it.each(['processing', 'completed', 'failed'])('answers the %s refund with Prefer: example=', async (example) => {
  const res = await fetch(`${base}/v1/refunds/RFH7KQ2M9XW4TB3NCVE5PA`, { headers: { ...mockHeaders, prefer: `example=${example}` } });
  const body = await res.json();
  expect(body.data.transaction_status).toBe(example.toUpperCase());
  await checkResponse('GET', '/v1/refunds/RFH7KQ2M9XW4TB3NCVE5PA', res.status, body);
});

it.each(['processing', 'completed', 'failed', 'reversed'])('answers the %s disbursement with Prefer: example=', async (example) => {
  const res = await fetch(`${base}/v1/disbursements/DBK3M8Q2WX7RT4NC9VE5PA`, { headers: { ...mockHeaders, prefer: `example=${example}` } });
  const body = await res.json();
  expect(body.data.transaction_status).toBe(example.toUpperCase());
  await checkResponse('GET', '/v1/disbursements/DBK3M8Q2WX7RT4NC9VE5PA', res.status, body);
});

it('shows one disbursement through its story: accepted PENDING, then PROCESSING, COMPLETED; the notification is the completed record', async () => {
  const accepted = await (await fetch(`${base}/v1/disbursements`, { method: 'POST', headers: { ...mockHeaders, 'content-type': 'application/json' }, body: JSON.stringify(bodies.createDisbursement) })).json();
  const completed = await (await fetch(`${base}/v1/disbursements/DBK3M8Q2WX7RT4NC9VE5PA`, { headers: { ...mockHeaders, prefer: 'example=completed' } })).json();
  expect(accepted.data).toMatchObject({ transaction_status: 'PENDING', gateway_reference: completed.data.gateway_reference, merchant_reference: completed.data.merchant_reference, amount: completed.data.amount, fee: completed.data.fee });
  expect(accepted.data.created_at).toBe(completed.data.created_at);
});

it('tells one disbursement story across its examples: accepted or awaiting approval, then processing, completed or failed, and completed then reversed', async () => {
  const DISB = '/v1/disbursements/DBK3M8Q2WX7RT4NC9VE5PA';
  const post = async (prefer?: string) => {
    const res = await fetch(`${base}/v1/disbursements`, { method: 'POST', headers: { ...mockHeaders, 'secret-key': 'sk_sandbox_secret', ...(prefer ? { prefer } : {}) }, body: JSON.stringify(bodies.createDisbursement) });
    const body = await res.json();
    await checkResponse('POST', '/v1/disbursements', res.status, body);
    return body.data;
  };
  const get = async (example: string) => {
    const res = await fetch(base + DISB, { headers: { ...mockHeaders, 'secret-key': 'sk_sandbox_secret', prefer: `example=${example}` } });
    const body = await res.json();
    await checkResponse('GET', DISB, res.status, body);
    return body.data;
  };
  const story = {
    accepted: await post(),
    awaitingApproval: await post('example=awaitingApproval'),
    processing: await get('processing'),
    completed: await get('completed'),
    failed: await get('failed'),
    reversed: await get('reversed'),
  };
  const states = Object.fromEntries(Object.entries(story).map(([k, d]) => [k, [d.transaction_status, d.pending_reason, d.failure_reason === null ? null : 'reason']]));
  expect(states).toEqual({
    accepted: ['PENDING', 'awaiting_processor', null],
    awaitingApproval: ['PENDING_APPROVAL', 'awaiting_approval', null],
    processing: ['PROCESSING', null, null],
    completed: ['COMPLETED', null, null],
    failed: ['FAILED', null, 'reason'],
    reversed: ['REVERSED', null, 'reason'],
  });
  // one disbursement: what was asked for, as sent, in every example, and time only moves forward
  const asked = bodies.createDisbursement as Record<string, unknown>;
  for (const d of Object.values(story)) {
    expect(d).toMatchObject({ ...asked, gateway_reference: story.accepted.gateway_reference, fee: story.accepted.fee, created_at: story.accepted.created_at, transaction_type: 'disbursement' });
  }
  const at = (d: { updated_at: string }) => Date.parse(d.updated_at);
  expect(at(story.accepted)).toBeLessThanOrEqual(at(story.processing));
  for (const end of [story.completed, story.failed]) expect(at(story.processing)).toBeLessThanOrEqual(at(end));
  expect(at(story.completed)).toBeLessThan(at(story.reversed));
});

it('answers the disbursement refusals with Prefer: code=, each the error the service gives', async () => {
  const payout = JSON.stringify(bodies.createDisbursement);
  const cases = [
    { prefer: 'code=401', secret: false, status: 401, code: 'UNAUTHORIZED' },
    { prefer: 'code=403, example=ipNotAllowed', secret: true, status: 403, code: 'IP_NOT_ALLOWED' },
    { prefer: 'code=403, example=frozen', secret: true, status: 403, code: 'DISBURSEMENTS_FROZEN' },
    { prefer: 'code=400, example=insufficientFunds', secret: true, status: 400, code: 'INSUFFICIENT_FUNDS' },
    { prefer: 'code=400, example=limitExceeded', secret: true, status: 400, code: 'LIMIT_EXCEEDED' },
  ];
  for (const c of cases) {
    const res = await fetch(`${base}/v1/disbursements`, { method: 'POST', headers: { ...mockHeaders, prefer: c.prefer, ...(c.secret ? { 'secret-key': 'sk_sandbox_secret' } : {}) }, body: payout });
    const body = await res.json();
    expect({ prefer: c.prefer, status: res.status, code: body.code }).toEqual({ prefer: c.prefer, status: c.status, code: c.code });
    await checkResponse('POST', '/v1/disbursements', res.status, body);
  }
  // the shortfall the example names is the story's own disbursement: amount plus its fee
  const accepted = await (await fetch(`${base}/v1/disbursements`, { method: 'POST', headers: { ...mockHeaders, 'secret-key': 'sk_sandbox_secret' }, body: payout })).json();
  const short = await (await fetch(`${base}/v1/disbursements`, { method: 'POST', headers: { ...mockHeaders, 'secret-key': 'sk_sandbox_secret', prefer: 'code=400, example=insufficientFunds' }, body: payout })).json();
  expect(short.message).toContain(moneyText(BigInt(Math.round((accepted.data.amount + accepted.data.fee) * 100)), accepted.data.currency));
  expect(short.message).toContain(accepted.data.currency);
});

it('shows the completed collection with its refunds in short, counted in refunded_amount unless FAILED or CANCELLED, one of them the refund example', async () => {
  const res = await fetch(`${base}/v1/collections/${REF}`, { headers: { ...mockHeaders, prefer: 'example=completed' } });
  const { data } = await res.json();
  const refunds = data.refunds as { gateway_reference: string; amount: number; transaction_status: string }[];
  expect(refunds.map((r) => r.transaction_status)).toEqual(['FAILED', 'COMPLETED']);
  const counted = refunds.filter((r) => !['FAILED', 'CANCELLED'].includes(r.transaction_status)).reduce((sum, r) => sum + r.amount, 0);
  expect(data.refunded_amount).toBe(counted);
  const refund = await (await fetch(`${base}/v1/refunds/RFH7KQ2M9XW4TB3NCVE5PA`, { headers: { ...mockHeaders, prefer: 'example=completed' } })).json();
  expect(refunds).toContainEqual({
    gateway_reference: refund.data.gateway_reference, merchant_reference: refund.data.merchant_reference, amount: refund.data.amount, transaction_status: 'COMPLETED',
  });
  for (const example of ['pending', 'failed', 'expired']) {
    const other = await (await fetch(`${base}/v1/collections/${REF}`, { headers: { ...mockHeaders, prefer: `example=${example}` } })).json();
    expect([example, other.data.refunds, other.data.refunded_amount]).toEqual([example, [], 0]);
  }
});

it('exports the refunds of the collection example as CSV under the header the service writes, the same refunds newest first', async () => {
  const res = await fetch(`${base}/v1/exports/refunds`, { headers: { ...mockHeaders, accept: 'text/csv' } });
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(headerOf(text)).toEqual(REFUNDS_CSV_HEADER);
  const rows = parseCsv(text);
  const collection = await (await fetch(`${base}/v1/collections/${REF}`, { headers: { ...mockHeaders, prefer: 'example=completed' } })).json();
  const summaries = (collection.data.refunds as { gateway_reference: string; merchant_reference: string; amount: number; transaction_status: string }[]);
  expect(rows.map((r) => ({ gateway_reference: r.gateway_reference, merchant_reference: r.merchant_reference, amount: Number(r.amount), transaction_status: r.status })))
    .toEqual(summaries);
  for (const r of rows) expect(r.collection_gateway_reference).toBe(collection.data.gateway_reference);
  const refund = await (await fetch(`${base}/v1/refunds/RFH7KQ2M9XW4TB3NCVE5PA`, { headers: { ...mockHeaders, prefer: 'example=completed' } })).json();
  const completed = rows.find((r) => r.gateway_reference === refund.data.gateway_reference)!;
  expect([completed.created_at_utc, completed.updated_at_utc, completed.reason]).toEqual([refund.data.created_at, refund.data.updated_at, refund.data.reason]);
});

it('exports collections and answers the statement under the headers the service writes, a converted collection showing the same FX markup in both', async () => {
  const csv = async (url: string) => {
    const res = await fetch(base + url, { headers: { ...mockHeaders, accept: 'text/csv' } });
    expect(res.status).toBe(200);
    return res.text();
  };
  const exported = await csv('/v1/exports/collections');
  expect(headerOf(exported)).toEqual(COLLECTIONS_CSV_HEADER);
  const rows = parseCsv(exported);
  const fx = (r: Record<string, string>) => [r.fx_rate, r.fx_reference_rate, r.fx_markup, r.fx_source, r.fx_as_of_utc];
  const converted = rows.filter((r) => r.fx_rate !== '');
  expect(converted).toHaveLength(1);
  const [c] = converted;
  expect(rateUnits(c.fx_markup)).toBe(rateUnits(c.fx_rate) - rateUnits(c.fx_reference_rate));
  for (const r of rows.filter((r) => r.fx_rate === '')) expect(fx(r)).toEqual(['', '', '', '', '']);
  const period = 'from=2025-11-01T00:00:00Z&to=2025-12-01T00:00:00Z';
  const statement = await csv(`/v1/data/wallets/UGX/statement?${period}&format=csv`);
  expect(headerOf(statement)).toEqual(STATEMENT_CSV_HEADER);
  const records = parseCsv(statement);
  const credit = records.filter((r) => r.fx_rate !== '');
  expect(credit).toEqual([expect.objectContaining({
    kind: 'collection_credit', collection_reference: c.gateway_reference, net: c.total_credit, fee: c.fee, currency: c.account_currency,
    request_amount: c.request_amount, request_currency: c.request_currency, fx_rate: c.fx_rate, fx_reference_rate: c.fx_reference_rate,
    fx_markup: c.fx_markup, fx_source: c.fx_source, fx_as_of_utc: c.fx_as_of_utc,
  })]);
  const json = await (await fetch(`${base}/v1/data/wallets/UGX/statement?${period}`, { headers: mockHeaders })).json();
  const lines = json.data.lines as Record<string, unknown>[];
  expect(lines.filter((l) => l.fx_rate !== null)).toEqual([expect.objectContaining({
    journal_id: Number(credit[0].journal_id), request_amount: Number(c.request_amount), request_currency: c.request_currency, fx_rate: Number(c.fx_rate),
    fx_reference_rate: Number(c.fx_reference_rate), fx_markup: Number(c.fx_markup), fx_source: c.fx_source, fx_as_of: c.fx_as_of_utc,
  })]);
  expect(lines.map((l) => l.journal_id)).toEqual(records.slice(1, -1).map((r) => Number(r.journal_id)));
});

it('gives an access token that has not expired', async () => {
  const res = await fetch(base + '/v1/auth/token', { method: 'POST', headers: { ...mockHeaders, 'secret-key': 'sk_sandbox_secret' }, body: JSON.stringify({ api_key: 'pk_sandbox_x' }) });
  const body = await res.json();
  expect(body.data.expires).toBeGreaterThan(Date.now() / 1000 + 365 * 86400);
});
