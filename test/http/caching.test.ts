// Proves the caching rule of docs/contract/errors.md: no answer of the API or of the payment pages carries an ETag, a POST's included, and a conditional request still gets the whole answer (never 304); the served files keep Last-Modified and answer 304 to a matching If-Modified-Since.
import { mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let m: MerchantSetup;
beforeAll(async () => {
  svc = await startTestService();
  m = await setupMerchant(svc);
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

// fetch adds `Cache-Control: no-cache` to a conditional request that names no Cache-Control, and a server
// never answers 304 to that: each request says max-age=0 (revalidate), as a browser's reload does.
const REVALIDATE = { 'cache-control': 'max-age=0' };

/** Conditional headers a client or a proxy may send; none of them may turn an answer into a 304. */
const CONDITIONS: Record<string, string>[] = [
  { ...REVALIDATE, 'if-none-match': '*' },
  { ...REVALIDATE, 'if-none-match': 'W/"anything"' },
  { ...REVALIDATE, 'if-modified-since': new Date(Date.now() + 86_400_000).toUTCString() },
];

it('answers a request-to-pay, a replay of it and an error without an ETag', async () => {
  const body = mobileMoney();
  const first = await m.client.post('/v1/collections/request-to-pay', body);
  const replay = await m.client.post('/v1/collections/request-to-pay', body, { headers: CONDITIONS[0] });
  const refused = await m.client.post('/v1/collections/request-to-pay', { ...body, amount: -1, merchant_reference: ref() });
  expect([first.status, replay.status, refused.status]).toEqual([200, 200, 400]);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  for (const res of [first, replay, refused]) expect(res.headers.get('etag')).toBeNull();
});

it('answers every read whole, without an ETag, whatever conditional headers it carries', async () => {
  const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney());
  const reference = created.body.data.gateway_reference as string;
  for (const p of [`/v1/collections/${reference}`, '/v1/collections?per_page=1', '/v1/data/wallets/balances', '/v1/nowhere']) {
    const plain = await m.client.get(p);
    expect([p, plain.headers.get('etag')]).toEqual([p, null]);
    for (const headers of CONDITIONS) {
      const res = await m.client.get(p, { headers });
      expect({ p, headers, status: res.status, etag: res.headers.get('etag') }).toEqual({ p, headers, status: plain.status, etag: null });
      expect(res.text.length).toBeGreaterThan(0);
    }
  }
});

it('answers a payment page whole, without an ETag', async () => {
  const bank = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ payment_method: 'BANK', account_number: 'acct-0042', redirect_url: 'https://shop.example.org/done' }));
  expect(bank.status).toBe(200);
  const page = new URL(bank.body.data.payment_url as string);
  for (const headers of [{}, ...CONDITIONS]) {
    const res = await fetch(svc.url + page.pathname + page.search, { headers, redirect: 'manual' });
    expect({ headers, status: res.status, etag: res.headers.get('etag') }).toEqual({ headers, status: 200, etag: null });
    expect(await res.text()).toContain('<html');
  }
});

it('keeps Last-Modified on the served files, and their 304 to a matching If-Modified-Since', async () => {
  for (const p of ['/openapi.yaml', '/docs', '/dashboard/']) {
    const whole = await fetch(svc.url + p);
    const lastModified = whole.headers.get('last-modified');
    expect([p, whole.status, whole.headers.get('etag'), typeof lastModified]).toEqual([p, 200, null, 'string']);
    const again = await fetch(svc.url + p, { headers: { ...REVALIDATE, 'if-modified-since': lastModified! } });
    expect([p, again.status]).toEqual([p, 304]);
  }
});
