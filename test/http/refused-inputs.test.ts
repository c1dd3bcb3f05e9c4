// Proves that the five inputs that once answered 500 (undecodable bodies, NUL, paging beyond range, impossible dates, ranks past INTEGER), lone surrogates and floods of unknown keys get a clear 4xx and change nothing.
import { gzipSync } from 'node:zlib';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { ApiResponse, Client, TestService } from '../helpers/service';
import { databaseState } from '../helpers/state';
import { MAX_FIELD_ERRORS } from '../../src/http/validation';

let svc: TestService;
let m: MerchantSetup;
let gatewayReference: string;
let midId: number;

// 180 s: a start-up budget for a loaded machine (a service, a merchant with its MIDs, an argon2 token)
beforeAll(async () => {
  // 256700000009 is no designated number: the collection stays PENDING and no worker touches it.
  svc = await startTestService({ env: { PENDING_TTL_SECONDS: '86400' } });
  m = await setupMerchant(svc);
  const accepted = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700000009' }));
  expect(accepted.status).toBe(200);
  gatewayReference = accepted.body.data.gateway_reference;
  midId = Object.values(m.midIds)[0];
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

/** Sends a request and proves it was refused with a 4xx error envelope and that no table changed. */
async function refused(send: () => Promise<ApiResponse>, status = 400, code = 'VALIDATION_ERROR'): Promise<ApiResponse> {
  const before = await databaseState(svc.services.db);
  const res = await send();
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.body.status).toBe('error');
  expect(await databaseState(svc.services.db)).toEqual(before);
  return res;
}

function fieldsOf(res: ApiResponse): string[] {
  return (res.body.data as { field: string }[]).map((e) => e.field);
}

describe('a body that does not decode with its Content-Encoding', () => {
  const garbage = Buffer.from('this is not compressed at all');
  const cases: [string, () => Client, string][] = [
    ['request-to-pay', () => m.client, '/v1/collections/request-to-pay'],
    ['the unauthenticated token endpoint', () => svc.anon, '/v1/auth/token'],
    ['an operator operation', () => svc.admin, '/v1/admin/businesses'],
  ];
  for (const encoding of ['gzip', 'deflate', 'br']) {
    it.each(cases)(`is INVALID_JSON (${encoding}) on %s`, async (_name, client, path) => {
      const res = await refused(
        () => client().post(path, undefined, { raw: garbage, headers: { 'content-type': 'application/json', 'content-encoding': encoding } }),
        400,
        'INVALID_JSON',
      );
      expect(res.body.message).toMatch(/Content-Encoding/);
    });
  }

  it('is still read when it does decode', async () => {
    const res = await m.client.post('/v1/collections/request-to-pay', undefined, {
      raw: gzipSync(JSON.stringify(mobileMoney({ account_number: '256700000009' }))),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(200);
  });
});

describe('NUL (U+0000) in a string that would reach PostgreSQL', () => {
  const NUL = 'Order\u0000 for goods';
  it.each([
    ['narration', { narration: NUL }],
    ['account_name', { payment_method: 'CARD', redirect_url: 'https://shop.example/done', account_name: 'Amina\u0000', account_email: 'a@shop.example' }],
    ['account_number', { payment_method: 'BANK', redirect_url: 'https://shop.example/done', account_number: '12\u000034' }],
  ])('is refused in %s', async (field, overrides) => {
    const res = await refused(() => m.client.post('/v1/collections/request-to-pay', mobileMoney(overrides)));
    expect(fieldsOf(res)).toContain(field);
    expect(res.body.data.find((e: { field: string }) => e.field === field).message).toBe('must not contain U+0000 or an unpaired surrogate');
  });

  it('is refused in api_key on the unauthenticated token endpoint', async () => {
    const res = await refused(() => svc.anon.post('/v1/auth/token', { api_key: 'pk_\u0000' }, { headers: { 'secret-key': m.apiSecret } }));
    expect(fieldsOf(res)).toEqual(['api_key']);
  });

  it('is refused in a gateway_reference in the path (%00)', async () => {
    for (const path of [`/v1/collections/%00`, `/v1/collections/PC%00X/notifications`]) {
      const res = await refused(() => m.client.get(path));
      expect(fieldsOf(res)).toEqual(['gateway_reference']);
    }
    await refused(() => svc.admin.get('/v1/admin/collections/%00'));
  });

  it('is refused in business and MID text fields', async () => {
    await refused(() => svc.admin.post('/v1/admin/businesses', { name: 'Shop\u0000', default_currency: 'UGX' }));
    await refused(() => svc.admin.patch(`/v1/admin/businesses/${m.businessId}`, { name: '\u0000' }));
    for (const field of ['business_name', 'service_type', 'merchant_operator', 'merchant_username', 'merchant_password']) {
      const res = await refused(() =>
        svc.admin.post(`/v1/admin/businesses/${m.businessId}/mids`, {
          business_name: 'Shop',
          service_type: 'sandbox',
          payment_method: 'CARD',
          currency: 'USD',
          [field]: 'x\u0000y',
        }),
      );
      expect(fieldsOf(res)).toContain(field);
      await refused(() => svc.admin.patch(`/v1/admin/mids/${midId}`, { [field]: 'x\u0000y' }));
    }
    await refused(() => svc.admin.post(`/v1/admin/businesses/${m.businessId}/verify`, { verified_by: 'ops\u0000', note: 'checked' }));
  });

  it('is refused in a query filter', async () => {
    const res = await refused(() => m.client.get('/v1/collections?merchant_reference=ORD-0001%00X'));
    expect(fieldsOf(res)).toEqual(['merchant_reference']);
  });
});

describe('a path that is not percent-encoded UTF-8', () => {
  it.each(['/v1/collections/%FF', '/v1/collections/%ED%A0%80/notifications', '/v1/admin/collections/%C0%80', '/pay/%FF', '/pay/%E0%A4%A'])(
    '%s is a VALIDATION_ERROR naming the path',
    async (path) => {
      const client = path.startsWith('/v1/admin') ? svc.admin : m.client;
      const res = await refused(() => client.get(path, { unchecked: path.startsWith('/pay') }));
      expect(res.body.data).toEqual([{ field: 'path', message: 'is not percent-encoded UTF-8' }]);
    },
  );
});

describe('a lone surrogate (invalid UTF-16) is refused, not stored as U+FFFD', () => {
  it('in a JSON body string', async () => {
    const raw = JSON.stringify(mobileMoney({ account_number: '256700000009' })).replace('Order for test goods', 'Order \\ud800 test goods');
    const res = await refused(() => m.client.post('/v1/collections/request-to-pay', undefined, { raw, headers: { 'content-type': 'application/json' } }));
    expect(fieldsOf(res)).toEqual(['narration']);
  });

  it('in a business name, while a real astral character (a surrogate pair) is kept', async () => {
    await refused(() =>
      svc.admin.post('/v1/admin/businesses', undefined, { raw: '{"name":"Shop \\udc00","default_currency":"UGX"}', headers: { 'content-type': 'application/json' } }),
    );
    const ok = await svc.admin.post('/v1/admin/businesses', { name: 'Shop \u{1F600}', default_currency: 'UGX' });
    expect(ok.status).toBe(200);
    expect(ok.body.data.name).toBe('Shop \u{1F600}');
  });
});

describe('paging beyond what can be computed', () => {
  const lists: [string, () => Client, () => string][] = [
    ['listCollections', () => m.client, () => '/v1/collections'],
    ['listCollectionNotifications', () => m.client, () => `/v1/collections/${gatewayReference}/notifications`],
    ['listBusinesses', () => svc.admin, () => '/v1/admin/businesses'],
    ['listWallets', () => svc.admin, () => `/v1/admin/businesses/${m.businessId}/wallets`],
    ['listWalletPostings', () => svc.admin, () => `/v1/admin/businesses/${m.businessId}/wallets/UGX/postings`],
    ['listMids', () => svc.admin, () => `/v1/admin/businesses/${m.businessId}/mids`],
    ['listApiTokens', () => svc.admin, () => `/v1/admin/businesses/${m.businessId}/api-tokens`],
    ['listFxRates', () => svc.admin, () => '/v1/admin/fx-rates'],
    ['listAdminCollections', () => svc.admin, () => '/v1/admin/collections'],
    ['listAdminDisbursements', () => svc.admin, () => '/v1/admin/disbursements'],
    ['listFailingWebhooks', () => svc.admin, () => '/v1/admin/webhooks/failing'],
  ];
  for (const query of ['offset=9223372036854775807', 'page=99999999999999999999', 'page=1e308', 'per_page=1e308']) {
    it.each(lists)(`${query} is a VALIDATION_ERROR on %s`, async (_op, client, path) => {
      const res = await client().get(`${path()}?${query}`, { unchecked: true });
      // listCollectionNotifications takes no paging parameters: an unknown parameter is refused too.
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    });
  }

  it('answers the largest allowed page and offset with an empty page', async () => {
    for (const query of ['offset=2147483647', 'page=21474837']) {
      const res = await m.client.get(`/v1/collections?${query}&per_page=100`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([]);
    }
  });
});

describe('impossible dates that look like timestamps', () => {
  it.each(['2025-13-45T99:99:99', '0000-00-00T00:00:00', '2025-02-30T00:00:00', '2025-02-29T00:00:00', '0000-01-01T00:00:00', '2025-01-01T24:00:00'])(
    '%s is a VALIDATION_ERROR in from and to',
    async (value) => {
      for (const name of ['from', 'to']) {
        const res = await refused(() => m.client.get(`/v1/collections?${name}=${value}`));
        expect(fieldsOf(res)).toEqual([name]);
        await refused(() => svc.admin.get(`/v1/admin/collections?${name}=${value}`));
      }
    },
  );

  it('a leap day is a date', async () => {
    expect((await m.client.get('/v1/collections?from=2024-02-29T23:59:59')).status).toBe(200);
  });
});

describe('processing_rank is bounded by its INTEGER column', () => {
  const mid = { business_name: 'Shop', service_type: 'sandbox', payment_method: 'CARD', currency: 'USD' };
  it.each([2147483648, 9007199254740993, 1e308])('%d is a VALIDATION_ERROR on create and update', async (rank) => {
    const created = await refused(() => svc.admin.post(`/v1/admin/businesses/${m.businessId}/mids`, { ...mid, processing_rank: rank }));
    expect(fieldsOf(created)).toEqual(['processing_rank']);
    const updated = await refused(() => svc.admin.patch(`/v1/admin/mids/${midId}`, { processing_rank: rank }));
    expect(fieldsOf(updated)).toEqual(['processing_rank']);
  });

  it('2147483647 is taken', async () => {
    const res = await svc.admin.post(`/v1/admin/businesses/${m.businessId}/mids`, { ...mid, processing_rank: 2147483647 });
    expect(res.status).toBe(200);
    expect(res.body.data.processing_rank).toBe(2147483647);
  });
});

describe('a validation error names a bounded number of fields', () => {
  it(`4,000 unknown keys give at most ${MAX_FIELD_ERRORS} field errors and a small answer`, async () => {
    const body: Record<string, unknown> = mobileMoney({ account_number: '256700000009' });
    for (let i = 0; i < 4000; i++) body[`k${i}`] = 0;
    const res = await refused(() => m.client.post('/v1/collections/request-to-pay', body));
    expect(res.body.data).toHaveLength(MAX_FIELD_ERRORS);
    expect(res.text.length).toBeLessThan(4096);
  });
});
