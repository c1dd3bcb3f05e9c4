// Proves collection queries: one by gateway_reference, lists newest first with filters, cursor paging in the body that
// neither repeats nor skips under concurrent inserts, paging headers and Link on the first, a middle and the last page,
// and that a merchant never sees another's collections.
import LinkHeader from 'http-link-header';
import { mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let m: MerchantSetup;
let other: MerchantSetup;
const made: { gateway_reference: string; merchant_reference: string; payment_method: string }[] = [];

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  m = await setupMerchant(svc);
  other = await setupMerchant(svc);
  for (let i = 0; i < 23; i++) {
    const body =
      i % 5 === 4
        ? { currency: 'UGX', amount: 100 + i, payment_method: 'BANK', account_number: '0123456789', redirect_url: 'https://x.example/d', merchant_reference: ref(), narration: 'Bank order number' }
        : mobileMoney({ amount: 100 + i, account_number: '256700000' + String(100 + i) });
    const res = await m.client.post('/v1/collections/request-to-pay', body);
    made.push(res.body.data);
  }
  await other.client.post('/v1/collections/request-to-pay', mobileMoney());
});
afterAll(async () => {
  await svc?.close();
});

const links = (res: { headers: Headers }) => {
  const parsed = LinkHeader.parse(res.headers.get('link') ?? '');
  return Object.fromEntries(parsed.refs.map((r) => [r.rel, r.uri]));
};

describe('collections queries', () => {
  it('gets one collection by gateway_reference', async () => {
    const res = await m.client.get(`/v1/collections/${made[0].gateway_reference}`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.data.merchant_reference).toBe(made[0].merchant_reference);
  });

  it('answers 404 for an unknown reference and for another merchant\'s collection', async () => {
    expect((await m.client.get('/v1/collections/PCNOSUCHREFERENCE000000')).status).toBe(404);
    const res = await other.client.get(`/v1/collections/${made[0].gateway_reference}`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('pages newest first with X-PH headers and links on the first page', async () => {
    const res = await m.client.get('/v1/collections');
    expect(res.body.data).toHaveLength(10);
    expect(res.body.data[0].gateway_reference).toBe(made[22].gateway_reference);
    expect(res.headers.get('x-ph-total')).toBe('23');
    expect(res.headers.get('x-ph-totalpages')).toBe('3');
    const l = links(res);
    expect(Object.keys(l).sort()).toEqual(['first', 'last', 'next']);
    expect(l.next).toBe(`${svc.url}/v1/collections?per_page=10&page=2`);
    expect(l.last).toBe(`${svc.url}/v1/collections?per_page=10&page=3`);
  });

  it('has prev and next on a middle page, and no next on the last', async () => {
    const middle = await m.client.get('/v1/collections?page=2');
    expect(Object.keys(links(middle)).sort()).toEqual(['first', 'last', 'next', 'prev']);
    expect(middle.body.data[0].gateway_reference).toBe(made[12].gateway_reference);
    const last = await m.client.get('/v1/collections?page=3');
    expect(last.body.data).toHaveLength(3);
    expect(Object.keys(links(last)).sort()).toEqual(['first', 'last', 'prev']);
    const following = await m.client.get(links(middle).next.replace(svc.url, ''));
    expect(following.body.data).toEqual(last.body.data);
  });

  it('takes per_page and offset (offset wins over page)', async () => {
    const res = await m.client.get('/v1/collections?per_page=5&offset=20&page=1');
    expect(res.body.data.map((d: { gateway_reference: string }) => d.gateway_reference)).toEqual(
      made.slice(0, 3).reverse().map((d) => d.gateway_reference),
    );
    expect(res.headers.get('x-ph-totalpages')).toBe('5');
  });

  it('filters, and keeps the filters in the links', async () => {
    const res = await m.client.get('/v1/collections?payment_method=BANK&per_page=2');
    expect(res.headers.get('x-ph-total')).toBe('4');
    expect(res.body.data.every((d: { payment_method: string }) => d.payment_method === 'BANK')).toBe(true);
    expect(links(res).next).toBe(`${svc.url}/v1/collections?payment_method=BANK&per_page=2&page=2`);
    const byRef = await m.client.get(`/v1/collections?merchant_reference=${made[3].merchant_reference}`);
    expect(byRef.body.data.map((d: { gateway_reference: string }) => d.gateway_reference)).toEqual([made[3].gateway_reference]);
    const none = await m.client.get('/v1/collections?status=COMPLETED');
    expect(none.body.data).toEqual([]);
    expect(none.headers.get('x-ph-total')).toBe('0');
    const future = await m.client.get('/v1/collections?from=2099-01-01T00:00:00Z');
    expect(future.body.data).toEqual([]);
    const all = await m.client.get('/v1/collections?from=2000-01-01T00:00:00&to=2099-01-01T00:00:00&currency=UGX&status=PENDING');
    expect(all.headers.get('x-ph-total')).toBe('23');
  });

  it('refuses bad list parameters', async () => {
    for (const q of ['per_page=101', 'per_page=0', 'page=0', 'offset=-1', 'status=DONE', 'from=yesterday', 'colour=red', 'cursor=a%2Bb']) {
      const res = await m.client.get(`/v1/collections?${q}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
  });

  it('refuses a cursor it did not give out, and a cursor with page or offset, naming cursor', async () => {
    const forged = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const at = '2025-01-01T00:00:00+00:00';
    const bad = [
      'bm90LWpzb24',
      forged([1]),
      forged([at, 'x']),
      forged(['yesterday', 1]),
      forged({ a: 1 }),
      forged(['2025-01-01T00:00:00Z', 1, 2]),
      // ids past PostgreSQL's bigint, as 19 digits and longer: refused before they reach SQL
      forged([at, '9223372036854775808']),
      forged([at, '-9223372036854775809']),
      forged([at, '99999999999999999999']),
      forged([at, 1e20]),
    ];
    for (const cursor of bad) {
      const res = await m.client.get(`/v1/collections?cursor=${cursor}`);
      expect(res.status).toBe(400);
      expect(res.body.data).toEqual([{ field: 'cursor', message: 'is not a cursor this list gave out' }]);
    }
    // the largest id there can be is a cursor like any other: nothing after it in this list
    const last = await m.client.get(`/v1/collections?cursor=${forged([at, '9223372036854775807'])}`);
    expect([last.status, last.body.paging.next_cursor]).toEqual([200, null]);
    const first = await m.client.get('/v1/collections?per_page=5');
    for (const extra of ['page=2', 'offset=5']) {
      const res = await m.client.get(`/v1/collections?cursor=${first.body.paging.next_cursor}&${extra}`);
      expect(res.status).toBe(400);
      expect(res.body.data).toEqual([{ field: 'cursor', message: 'cannot be combined with page or offset' }]);
    }
  });

  it('follows paging.next_cursor through every page, keeping filters, with a cursor link in Link', async () => {
    const seen: string[] = [];
    let res = await m.client.get('/v1/collections?per_page=4&status=PENDING');
    expect(res.body.paging).toEqual({ per_page: 4, next_cursor: expect.any(String), total: 23 });
    for (;;) {
      seen.push(...res.body.data.map((d: { gateway_reference: string }) => d.gateway_reference));
      const next = res.body.paging.next_cursor;
      if (next === null) break;
      const following = await m.client.get(`/v1/collections?per_page=4&status=PENDING&cursor=${next}`);
      expect(res.headers.get('link') ?? '').toContain('rel="next"');
      if (seen.length > 4) expect(links(res).next).toBe(`${svc.url}/v1/collections?status=PENDING&per_page=4&cursor=${next}`);
      res = following;
    }
    expect(seen).toEqual([...made].reverse().map((d) => d.gateway_reference));
    expect(Object.keys(links(res))).toEqual(['first']);
  });

  it('neither repeats nor skips a collection when new ones arrive between pages (offset paging would)', async () => {
    const mine = await setupMerchant(svc);
    const create = (i: number) => mine.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 10 + i, account_number: '256711000' + String(100 + i) }));
    const before: string[] = [];
    for (let i = 0; i < 6; i++) before.push((await create(i)).body.data.gateway_reference);
    const first = await mine.client.get('/v1/collections?per_page=3');
    const arrivals = await Promise.all([6, 7, 8].map(create));
    expect(arrivals.every((r) => r.status === 200)).toBe(true);
    const second = await mine.client.get(`/v1/collections?per_page=3&cursor=${first.body.paging.next_cursor}`);
    const refs = (r: { body: { data: { gateway_reference: string }[] } }) => r.body.data.map((d) => d.gateway_reference);
    expect([...refs(first), ...refs(second)]).toEqual([...before].reverse());
    expect(second.body.paging.next_cursor).toBeNull();
    const byOffset = await mine.client.get('/v1/collections?per_page=3&page=2');
    expect(refs(byOffset)).toEqual(refs(first));
  });

  it('never lists another merchant\'s collections', async () => {
    const res = await other.client.get('/v1/collections?per_page=100');
    expect(res.body.data).toHaveLength(1);
    expect(res.headers.get('x-ph-total')).toBe('1');
  });
});
