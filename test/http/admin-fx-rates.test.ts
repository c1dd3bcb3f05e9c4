// Proves setFxRate (upsert, exact NUMERIC storage, base <> quote, rate > 0) and listFxRates (paged by page and by a cursor on the text pair).
import { errorFields, expectOk, snapshot } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

describe('setFxRate', () => {
  it('creates a rate, stored exactly, returned as a JSON number', async () => {
    const res = await svc.admin.put('/v1/admin/fx-rates', { base: 'USD', quote: 'UGX', rate: 3725.5 });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Market rate set');
    const time = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(res.body.data).toEqual({ base: 'USD', quote: 'UGX', rate: 3725.5, source: 'operator', as_of: time, updated_at: time });
    expect(res.body.data.as_of).toBe(res.body.data.updated_at);
    const row = await svc.services.db.one("SELECT rate FROM fx_rates WHERE base = 'USD' AND quote = 'UGX'");
    expect(row.rate).toBe('3725.500000000000');
  });

  it('replaces the rate of an existing pair', async () => {
    expectOk(await svc.admin.put('/v1/admin/fx-rates', { base: 'EUR', quote: 'USD', rate: 1.08 }));
    const res = await svc.admin.put('/v1/admin/fx-rates', { base: 'EUR', quote: 'USD', rate: 1.0825 });
    expect(res.body.data.rate).toBe(1.0825);
    const rows = await svc.services.db.any("SELECT rate FROM fx_rates WHERE base = 'EUR' AND quote = 'USD'");
    expect(rows).toEqual([{ rate: '1.082500000000' }]);
  });

  it('keeps small rates with 12 decimals', async () => {
    const res = await svc.admin.put('/v1/admin/fx-rates', { base: 'UGX', quote: 'BTC', rate: 0.000000002702 });
    expect(res.body.data.rate).toBe(0.000000002702);
  });

  it.each([
    ['the same base and quote', { base: 'USD', quote: 'USD', rate: 1 }, ['quote']],
    ['a zero rate', { base: 'USD', quote: 'KES', rate: 0 }, ['rate']],
    ['a negative rate', { base: 'USD', quote: 'KES', rate: -129.5 }, ['rate']],
    ['a rate with 13 decimals', { base: 'USD', quote: 'KES', rate: 1.0000000000001 }, ['rate']],
    ['a rate below 1e-12', { base: 'USD', quote: 'KES', rate: 0.0000000000001 }, ['rate']],
    ['an absurd rate', { base: 'USD', quote: 'KES', rate: 1e20 }, ['rate']],
    ['a rate as a string', { base: 'USD', quote: 'KES', rate: '129.5' }, ['rate']],
    ['a lower-case base', { base: 'usd', quote: 'KES', rate: 129.5 }, ['base']],
    ['no quote', { base: 'USD', rate: 129.5 }, ['quote']],
    ['an unknown field', { base: 'USD', quote: 'KES', rate: 129.5, source: 'ecb' }, ['source']],
  ])('refuses %s with 400 naming the field, changing nothing', async (_what, body, fields) => {
    const before = await snapshot(svc);
    expect(errorFields(await svc.admin.put('/v1/admin/fx-rates', body))).toEqual(fields);
    expect(await snapshot(svc)).toEqual(before);
  });
});

describe('listFxRates', () => {
  it('pages the rates ordered by pair with the paging headers', async () => {
    const list = await startTestService();
    try {
      for (const [base, quote, rate] of [
        ['USD', 'UGX', 3700],
        ['USD', 'KES', 129.5],
        ['EUR', 'USD', 1.08],
      ] as const) {
        expectOk(await list.admin.put('/v1/admin/fx-rates', { base, quote, rate }));
      }
      const res = await list.admin.get('/v1/admin/fx-rates?per_page=2');
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Market rates retrieved');
      expect(res.body.data.map((r: { base: string; quote: string; rate: number }) => [r.base, r.quote, r.rate])).toEqual([
        ['EUR', 'USD', 1.08],
        ['USD', 'KES', 129.5],
      ]);
      expect(res.headers.get('x-ph-total')).toBe('3');
      expect(res.headers.get('x-ph-totalpages')).toBe('2');
      expect(res.headers.get('link')).toContain(`${list.config.publicBaseUrl}/v1/admin/fx-rates?per_page=2&page=2`);
      const second = await list.admin.get('/v1/admin/fx-rates?per_page=2&page=2');
      expect(second.body.data.map((r: { quote: string }) => r.quote)).toEqual(['UGX']);
      expect(res.body.paging).toEqual({ per_page: 2, next_cursor: expect.any(String), total: 3 });
      expectOk(await list.admin.put('/v1/admin/fx-rates', { base: 'AAA', quote: 'USD', rate: 2 }));
      const following = await list.admin.get(`/v1/admin/fx-rates?per_page=2&cursor=${res.body.paging.next_cursor}`);
      expect(following.body.data).toEqual(second.body.data);
      expect(following.body.paging).toEqual({ per_page: 2, next_cursor: null, total: 4 });
    } finally {
      await list.close();
    }
  });

  it('needs the operator key', async () => {
    expect((await svc.anon.get('/v1/admin/fx-rates')).status).toBe(401);
    expect((await svc.anon.put('/v1/admin/fx-rates', { base: 'USD', quote: 'KES', rate: 1 })).status).toBe(401);
  });
});
