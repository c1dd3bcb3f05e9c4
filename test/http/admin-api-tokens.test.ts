// Proves the API token operations: at most 2 per business (also under concurrency on real PostgreSQL), secrets shown once and kept as argon2id hashes, regeneration and deletion revoking at once.
import { open } from '../../src/crypto/secretbox';
import { openPostgres } from '../../src/db';
import { validationError } from '../../src/errors';
import { createRealDatabase, REAL_PG_URL, SHARED_PG_URL } from '../helpers/db';
import { needsRealServer } from '../helpers/requires';
import { accessToken, createBusiness, errorFields, expectOk, issueToken, requestToken, snapshot, tokenBody } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
/** every secret this file saw; none may appear in a later response or in the logs */
const secrets: string[] = [];
const laterResponses: string[] = [];

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

async function issue(businessId: number, overrides: Record<string, unknown> = {}) {
  const t = await issueToken(svc, businessId, overrides);
  secrets.push(t.api_secret);
  return t;
}

const balances = (token: string) => svc.merchant(token).get('/v1/data/wallets/balances');

describe('createApiToken', () => {
  it('issues a sandbox key and a secret shown once, storing an argon2id hash and the sealed webhook hash', async () => {
    const b = await createBusiness(svc);
    const body = tokenBody({ email_merchant: true });
    const res = await svc.admin.post(`/v1/admin/businesses/${b.id}/api-tokens`, body);
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/^API token created/);
    const t = res.body.data;
    secrets.push(t.api_secret);
    expect(t).toEqual({
      id: expect.any(Number),
      business_id: b.id,
      api_key: expect.stringMatching(/^pk_sandbox_[A-Za-z0-9_-]{20,}$/),
      api_secret: expect.stringMatching(/^sk_sandbox_[A-Za-z0-9_-]{40,}$/),
      notification_email: body.notification_email,
      webhook_url: body.webhook_url,
      email_merchant: true,
      email_user: false,
      ip_allowlist: null,
      scheduled_changes: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.text).not.toContain(body.webhook_hash);
    const row = await svc.services.db.one('SELECT * FROM api_tokens WHERE id = $1', [t.id]);
    expect(row.secret_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(JSON.stringify(row)).not.toContain(t.api_secret);
    expect(row.webhook_hash_enc).not.toContain(body.webhook_hash);
    expect(open(svc.config.masterKey, row.webhook_hash_enc)).toBe(body.webhook_hash);
    expect(row.generation).toBe(1);
  });

  it('refuses a third token with 400 API_TOKEN_LIMIT, changing nothing', async () => {
    const b = await createBusiness(svc);
    await issue(b.id);
    await issue(b.id);
    const before = await snapshot(svc);
    const res = await svc.admin.post(`/v1/admin/businesses/${b.id}/api-tokens`, tokenBody());
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'API_TOKEN_LIMIT', status: 'error', message: expect.any(String), data: null });
    expect(await snapshot(svc)).toEqual(before);
  });

  it('allows a new token once one of two is deleted', async () => {
    const b = await createBusiness(svc);
    const first = await issue(b.id);
    await issue(b.id);
    expectOk(await svc.admin.delete(`/v1/admin/api-tokens/${first.id}`));
    await issue(b.id);
  });

  it.each([
    ['no notification_email', { notification_email: undefined }, ['notification_email']],
    ['a bad email', { notification_email: 'not-an-email' }, ['notification_email']],
    ['a non-http webhook_url', { webhook_url: 'ftp://shop.example/hook' }, ['webhook_url']],
    ['a relative webhook_url', { webhook_url: '/hook' }, ['webhook_url']],
    ['a webhook_hash of 15 characters', { webhook_hash: 'x'.repeat(15) }, ['webhook_hash']],
    ['no webhook_hash', { webhook_hash: undefined }, ['webhook_hash']],
    ['a non-boolean email_user', { email_user: 'yes' }, ['email_user']],
    ['an api_key chosen by the caller', { api_key: 'pk_sandbox_mine' }, ['api_key']],
  ])('refuses %s with 400 naming the field, changing nothing', async (_what, overrides, fields) => {
    const b = await createBusiness(svc);
    const before = await snapshot(svc);
    const res = await svc.admin.post(`/v1/admin/businesses/${b.id}/api-tokens`, tokenBody(overrides));
    expect(errorFields(res)).toEqual(fields);
    expect(await snapshot(svc)).toEqual(before);
  });

  it('accepts a webhook_hash of exactly 16 characters', async () => {
    const b = await createBusiness(svc);
    await issue(b.id, { webhook_hash: 'y'.repeat(16) });
  });

  it('asks the SSRF guard before storing a webhook URL', async () => {
    const b = await createBusiness(svc);
    const seen: string[] = [];
    const guard = jest.spyOn(svc.services.notifications, 'assertWebhookUrlAllowed').mockImplementation(async (url) => {
      seen.push(url);
      throw validationError([{ field: 'webhook_url', message: 'must not resolve to a private address' }]);
    });
    try {
      const before = await snapshot(svc);
      const res = await svc.admin.post(`/v1/admin/businesses/${b.id}/api-tokens`, tokenBody({ webhook_url: 'http://10.0.0.1/hook' }));
      expect(errorFields(res)).toEqual(['webhook_url']);
      expect(seen).toEqual(['http://10.0.0.1/hook']);
      expect(await snapshot(svc)).toEqual(before);
    } finally {
      guard.mockRestore();
    }
  });

  it('answers 404 for an unknown business, changing nothing', async () => {
    const before = await snapshot(svc);
    expect((await svc.admin.post('/v1/admin/businesses/999999/api-tokens', tokenBody())).status).toBe(404);
    expect(await snapshot(svc)).toEqual(before);
  });
});

describe('listApiTokens', () => {
  it('lists the business tokens without secret or webhook hash', async () => {
    const b = await createBusiness(svc);
    const hash = 'list-webhook-hash-0123456789';
    const t1 = await issue(b.id, { webhook_hash: hash });
    const t2 = await issue(b.id);
    const res = await svc.admin.get(`/v1/admin/businesses/${b.id}/api-tokens`);
    laterResponses.push(res.text);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('API tokens retrieved');
    expect(res.body.data.map((t: { id: number }) => t.id)).toEqual([t1.id, t2.id]);
    expect(res.body.data[0]).not.toHaveProperty('api_secret');
    expect(res.text).not.toContain(hash);
    expect(res.headers.get('x-ph-total')).toBe('2');
    expect(res.headers.get('x-ph-totalpages')).toBe('1');
    expect(res.headers.get('link')).toContain('rel="first"');
  });

  it('answers 404 for an unknown business', async () => {
    expect((await svc.admin.get('/v1/admin/businesses/999999/api-tokens')).status).toBe(404);
  });
});

describe('updateApiToken', () => {
  it('changes the settings sent and re-seals a new webhook hash; key and secret stay', async () => {
    const b = await createBusiness(svc);
    const t = await issue(b.id);
    const res = await svc.admin.patch(`/v1/admin/api-tokens/${t.id}`, {
      webhook_url: 'https://8.8.4.4/new-hook',
      webhook_hash: 'new-webhook-hash-0123456789',
      email_user: true,
    });
    laterResponses.push(res.text);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('API token updated');
    expect(res.body.data).toMatchObject({ id: t.id, api_key: t.api_key, webhook_url: 'https://8.8.4.4/new-hook', email_user: true });
    expect(res.body.data).not.toHaveProperty('api_secret');
    expect(res.text).not.toContain('new-webhook-hash');
    const row = await svc.services.db.one('SELECT webhook_hash_enc, generation FROM api_tokens WHERE id = $1', [t.id]);
    expect(open(svc.config.masterKey, row.webhook_hash_enc)).toBe('new-webhook-hash-0123456789');
    expect(row.generation).toBe(1);
    await accessToken(svc, t.api_key, t.api_secret);
  });

  it.each([
    ['an empty body', {}, ['body']],
    ['a short webhook_hash', { webhook_hash: 'short' }, ['webhook_hash']],
    ['a bad email', { notification_email: 'nope' }, ['notification_email']],
    ['a new api_secret', { api_secret: 'sk_sandbox_mine' }, ['api_secret']],
  ])('refuses %s with 400, changing nothing', async (_what, body, fields) => {
    const b = await createBusiness(svc);
    const t = await issue(b.id);
    const before = await snapshot(svc);
    expect(errorFields(await svc.admin.patch(`/v1/admin/api-tokens/${t.id}`, body))).toEqual(fields);
    expect(await snapshot(svc)).toEqual(before);
  });

  it('answers 404 for an unknown token', async () => {
    expect((await svc.admin.patch('/v1/admin/api-tokens/999999', { email_user: true })).status).toBe(404);
  });
});

describe('regenerateApiToken', () => {
  it('replaces key and secret; the old ones and every access token issued before stop at once', async () => {
    const b = await createBusiness(svc);
    const t = await issue(b.id);
    const before = await accessToken(svc, t.api_key, t.api_secret);
    expect((await balances(before)).status).toBe(200);

    const res = await svc.admin.post(`/v1/admin/api-tokens/${t.id}/regenerate`);
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/^API token regenerated/);
    const fresh = res.body.data;
    secrets.push(fresh.api_secret);
    expect(fresh.id).toBe(t.id);
    expect(fresh.api_key).toMatch(/^pk_sandbox_/);
    expect(fresh.api_key).not.toBe(t.api_key);
    expect(fresh.api_secret).not.toBe(t.api_secret);

    expect((await balances(before)).status).toBe(401);
    expect((await requestToken(svc, t.api_key, t.api_secret)).status).toBe(401);
    expect((await requestToken(svc, fresh.api_key, t.api_secret)).status).toBe(401);
    expect((await requestToken(svc, t.api_key, fresh.api_secret)).status).toBe(401);
    const after = await accessToken(svc, fresh.api_key, fresh.api_secret);
    expect((await balances(after)).status).toBe(200);
    const row = await svc.services.db.one('SELECT generation, secret_hash FROM api_tokens WHERE id = $1', [t.id]);
    expect(row.generation).toBe(2);
    expect(row.secret_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('answers 404 for an unknown token', async () => {
    expect((await svc.admin.post('/v1/admin/api-tokens/999999/regenerate')).status).toBe(404);
  });
});

describe('deleteApiToken', () => {
  it('removes the token; its key and its access tokens stop at once', async () => {
    const b = await createBusiness(svc);
    const t = await issue(b.id);
    const jwt = await accessToken(svc, t.api_key, t.api_secret);
    expect((await balances(jwt)).status).toBe(200);
    const res = await svc.admin.delete(`/v1/admin/api-tokens/${t.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, status: 'success', message: 'API token deleted', data: null });
    expect(await svc.services.db.oneOrNone('SELECT id FROM api_tokens WHERE id = $1', [t.id])).toBeNull();
    expect((await balances(jwt)).status).toBe(401);
    expect((await requestToken(svc, t.api_key, t.api_secret)).status).toBe(401);
    expect((await svc.admin.delete(`/v1/admin/api-tokens/${t.id}`)).status).toBe(404);
  });
});

describe('secrets', () => {
  it('never shows a secret after creation, in responses or in the logs', async () => {
    const b = await createBusiness(svc);
    const t = await issue(b.id);
    laterResponses.push((await svc.admin.get(`/v1/admin/businesses/${b.id}/api-tokens`)).text);
    laterResponses.push((await svc.admin.patch(`/v1/admin/api-tokens/${t.id}`, { email_user: true })).text);
    laterResponses.push((await svc.admin.get(`/v1/admin/businesses/${b.id}`)).text);
    laterResponses.push((await requestToken(svc, t.api_key, t.api_secret)).text);
    laterResponses.push((await requestToken(svc, t.api_key, t.api_secret + 'x')).text);
    expect(secrets.length).toBeGreaterThan(5);
    const logs = svc.logs.join('\n');
    for (const secret of secrets) {
      expect(logs).not.toContain(secret);
      for (const text of laterResponses) expect(text).not.toContain(secret);
    }
  });
});

needsRealServer().describe('concurrency (real PostgreSQL)', () => {
  let real: TestService;
  let drop: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    if (REAL_PG_URL) {
      real = svc;
      return;
    }
    const created = await createRealDatabase(SHARED_PG_URL);
    const database = await openPostgres(created.url);
    real = await startTestService({ database });
    drop = async () => {
      await real?.close();
      await database.close();
      await created.drop();
    };
  });
  afterAll(async () => {
    await drop?.();
  });

  it('lets exactly one of two simultaneous creates through on a business that has one token', async () => {
    const s = real;
    for (let round = 0; round < 5; round++) {
      const b = await createBusiness(s);
      await issueToken(s, b.id);
      const results = await Promise.all([1, 2].map(() => s.admin.post(`/v1/admin/businesses/${b.id}/api-tokens`, tokenBody())));
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(results.find((r) => r.status === 400)?.body.code).toBe('API_TOKEN_LIMIT');
      const { n } = await s.services.db.one('SELECT count(*)::int AS n FROM api_tokens WHERE business_id = $1', [b.id]);
      expect(n).toBe(2);
    }
  });

  it('lets exactly two of six simultaneous creates through on a new business', async () => {
    const s = real;
    const b = await createBusiness(s);
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map(() => s.admin.post(`/v1/admin/businesses/${b.id}/api-tokens`, tokenBody())));
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    expect(results.filter((r) => r.status === 400 && r.body.code === 'API_TOKEN_LIMIT')).toHaveLength(4);
  });
});
