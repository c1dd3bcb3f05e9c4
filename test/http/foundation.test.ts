// Proves the dispatcher's own errors (docs/contract/errors.md), X-Request-Id, /healthz, /docs and the served documents.
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

describe('foundation', () => {
  it('answers /healthz once ready', async () => {
    const res = await fetch(svc.url + '/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', database: 'ok' });
  });

  it('gives every response an X-Request-Id, echoing a given one', async () => {
    const fresh = await svc.anon.get('/v1/nowhere');
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await svc.anon.get('/v1/nowhere', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-abc.123');
  });

  it('answers an unknown path with 404 NOT_FOUND in the error envelope', async () => {
    for (const p of ['/v1/nowhere', '/v1/admin/nowhere', '/elsewhere']) {
      const res = await svc.anon.get(p);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'NOT_FOUND', status: 'error', message: expect.any(String), data: null });
    }
  });

  it('answers an unsupported method on a known path with 400 METHOD_NOT_ALLOWED', async () => {
    const res = await svc.anon.request('DELETE', '/v1/auth/token');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('refuses a body that is not JSON with 400 INVALID_JSON', async () => {
    const res = await svc.anon.post('/v1/auth/token', undefined, {
      raw: '{"api_key": "abc",',
      headers: { 'content-type': 'application/json', 'secret-key': 'x' },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_JSON');
  });

  it('refuses a body of another media type with 400 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await svc.anon.post('/v1/auth/token', undefined, {
      raw: 'api_key=abc',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'secret-key': 'x' },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses a body over 64 KiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await svc.anon.post('/v1/auth/token', { api_key: 'k', padding: 'x'.repeat(70 * 1024) }, { headers: { 'secret-key': 'x' } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('lists every broken rule by the request field name', async () => {
    const res = await svc.anon.post('/v1/auth/token', { expires_in: 5, color: 'red' }, { headers: { 'secret-key': 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    const fields = (res.body.data as { field: string }[]).map((e) => e.field).sort();
    expect(fields).toEqual(['api_key', 'color', 'expires_in']);
  });

  it('answers a missing Secret-Key as it answers a wrong one: 401 UNAUTHORIZED, never a 400 naming the header', async () => {
    const missing = await svc.anon.post('/v1/auth/token', { api_key: 'pk_sandbox_x' });
    const wrong = await svc.anon.post('/v1/auth/token', { api_key: 'pk_sandbox_x' }, { headers: { 'secret-key': 'x' } });
    expect([missing.status, missing.body.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(missing.body).toEqual(wrong.body);
  });

  it('answers 401 UNAUTHORIZED before validating a secured operation', async () => {
    const res = await svc.anon.post('/v1/collections/request-to-pay', { nonsense: true });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it('answers an unexpected failure with 500 INTERNAL_ERROR that reveals nothing, and logs the detail', async () => {
    await svc.database.db.none('ALTER TABLE api_tokens RENAME TO api_tokens_gone');
    try {
      const res = await svc.anon.post('/v1/auth/token', { api_key: 'pk_sandbox_x' }, { headers: { 'secret-key': 'x' } });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ code: 'INTERNAL_ERROR', status: 'error', message: expect.any(String), data: null });
      expect(res.text).not.toMatch(/api_tokens|relation|SELECT/i);
      const logged = svc.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
      expect(JSON.stringify(logged)).toMatch(/api_tokens/);
      expect(logged.request_id).toBe(res.headers.get('x-request-id'));
    } finally {
      await svc.database.db.none('ALTER TABLE api_tokens_gone RENAME TO api_tokens');
    }
  });

  it('serves the bundled documents and the HTML reference', async () => {
    const spec = await fetch(svc.url + '/openapi.yaml');
    expect(spec.status).toBe(200);
    const text = await spec.text();
    expect(text).toMatch(/^openapi: 3\.1/m);
    expect(text).toContain('/v1/collections/request-to-pay');
    const adminSpec = await fetch(svc.url + '/admin/openapi.yaml');
    expect(await adminSpec.text()).toContain('/v1/admin/businesses');
    const docs = await fetch(svc.url + '/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
    const html = await docs.text();
    expect(html).toContain('PayCollect merchant API');
    expect(html).toContain('requestToPay');
    expect(html).not.toContain('cdn.redocly.com');
    const script = await fetch(svc.url + '/docs/redoc.standalone.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    const admin = await fetch(svc.url + '/docs/admin');
    expect(await admin.text()).toContain('PayCollect operator API');
  });
});
