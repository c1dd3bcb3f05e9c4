// Proves POST /v1/auth/token and the JWT security handler: claims, lifetime bounds, expiry (the one refusal that says so, in WWW-Authenticate), forged and foreign tokens, a missing or wrong Secret-Key (the same 401), the live verification gate, rate limits and business isolation.
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { accessToken, createBusiness, decodeJwt, errorFields, expectOk, issueToken, requestToken, tokenFrom } from '../helpers/merchants';
import { keyId } from '../../src/merchants/access-tokens';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const JWT_SECRET = 'shared-jwt-secret-for-sandbox-and-live-0123456789';
const key = new TextEncoder().encode(JWT_SECRET);

/** The service clock; every test starts in a fresh minute so failure windows never leak between tests. */
let nowMs = Date.parse('2026-03-02T10:00:00.000Z');
const clock = () => new Date(nowMs);
const iatNow = () => Math.floor(nowMs / 1000);

let svc: TestService;
const secrets: string[] = [];

beforeAll(async () => {
  svc = await startTestService({ now: clock, env: { JWT_SECRET } });
});
afterAll(async () => {
  await svc?.close();
});
beforeEach(() => {
  nowMs += 120_000;
});

async function merchant(s: TestService = svc, currency = 'UGX') {
  const b = await createBusiness(s, { default_currency: currency });
  const t = await issueToken(s, b.id);
  secrets.push(t.api_secret);
  return { businessId: b.id, ...t };
}

const balances = (s: TestService, token: string) => s.merchant(token).get('/v1/data/wallets/balances');

describe('createAccessToken', () => {
  it('issues an HS256 JWT bound to the deployment, with sub, jti, iat and exp = iat + 900 by default', async () => {
    const m = await merchant();
    const res = await requestToken(svc, m.api_key, m.api_secret);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 200, status: 'success', message: 'Access token generated', data: { token: expect.stringMatching(/^JWT /), expires: expect.any(Number) } });
    const { header, payload } = decodeJwt(res.body.data.token.slice(4));
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT', kid: keyId(svc.config.jwtSecret) });
    expect(payload).toMatchObject({ aud: 'sandbox', sub: String(m.id), iat: iatNow(), exp: iatNow() + 900 });
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.data.expires).toBe(payload.exp);
    expect((await balances(svc, res.body.data.token)).status).toBe(200);
  });

  it('gives every token its own jti', async () => {
    const m = await merchant();
    const a = decodeJwt((await accessToken(svc, m.api_key, m.api_secret)).slice(4)).payload;
    const b = decodeJwt((await accessToken(svc, m.api_key, m.api_secret)).slice(4)).payload;
    expect(a.jti).not.toBe(b.jti);
  });

  it.each([60, 86400, 3600])('accepts expires_in %i', async (expiresIn) => {
    const m = await merchant();
    const res = await requestToken(svc, m.api_key, m.api_secret, { expires_in: expiresIn });
    expect(res.status).toBe(200);
    const { payload } = decodeJwt(res.body.data.token.slice(4));
    expect(payload.exp).toBe((payload.iat as number) + expiresIn);
    expect(res.body.data.expires).toBe(iatNow() + expiresIn);
  });

  it.each([
    ['expires_in 59', { expires_in: 59 }, ['expires_in']],
    ['expires_in 86401', { expires_in: 86401 }, ['expires_in']],
    ['expires_in 0', { expires_in: 0 }, ['expires_in']],
    ['a fractional expires_in', { expires_in: 90.5 }, ['expires_in']],
    ['expires_in as a string', { expires_in: '900' }, ['expires_in']],
    ['an unknown field', { scope: 'all' }, ['scope']],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_what, extra, fields) => {
    const m = await merchant();
    expect(errorFields(await requestToken(svc, m.api_key, m.api_secret, extra))).toEqual(fields);
  });

  it('refuses a missing api_key with 400 naming it', async () => {
    const m = await merchant();
    expect(errorFields(await svc.anon.post('/v1/auth/token', {}, { headers: { 'secret-key': m.api_secret } }))).toEqual(['api_key']);
  });

  it('refuses an unknown api_key, a missing, empty or wrong secret and another token secret with the same 401', async () => {
    const m = await merchant();
    const other = await merchant();
    for (const headers of [{}, { 'secret-key': '' }] as Record<string, string>[]) {
      const res = await svc.anon.post('/v1/auth/token', { api_key: m.api_key }, { headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 'UNAUTHORIZED', status: 'error', message: 'The api_key or the Secret-Key is wrong', data: null });
      expect(res.headers.get('www-authenticate')).toBeNull();
    }
    for (const [apiKey, secret] of [
      ['pk_sandbox_doesnotexist000000000000', m.api_secret],
      [m.api_key, m.api_secret + 'x'],
      [m.api_key, other.api_secret],
      [m.api_key.toUpperCase(), m.api_secret],
    ]) {
      const res = await requestToken(svc, apiKey, secret);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 'UNAUTHORIZED', status: 'error', message: expect.any(String), data: null });
    }
  });
});

describe('the JWT security handler', () => {
  it('refuses a missing or malformed Authorization with 401', async () => {
    const m = await merchant();
    const jwt = (await accessToken(svc, m.api_key, m.api_secret)).slice(4);
    for (const authorization of [undefined, `Bearer ${jwt}`, `jwt ${jwt}`, `JWT`, `JWT ${jwt}x.y`, 'JWT not-a-token']) {
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      const res = await svc.anon.get('/v1/data/wallets/balances', { headers });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('refuses an expired token', async () => {
    const m = await merchant();
    const token = await accessToken(svc, m.api_key, m.api_secret, 60);
    nowMs += 59_000;
    expect((await balances(svc, token)).status).toBe(200);
    nowMs += 1_000;
    // the one refusal a new token cures says so (RFC 6750's challenge), checked and cached alike
    for (const later of [0, 3_600_000]) {
      nowMs += later;
      const res = await balances(svc, token);
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('The access token expired; request a new one');
      expect(res.headers.get('www-authenticate')).toBe('JWT error="invalid_token", error_description="The access token expired"');
    }
  });

  it('refuses forged tokens: alg none, another key, another algorithm, missing claims, unknown subject, old generation', async () => {
    const m = await merchant();
    const claims = { gen: 1 };
    const base = (c: Record<string, unknown> = claims) =>
      new SignJWT(c).setSubject(String(m.id)).setAudience('sandbox').setIssuer('paycollect').setJti(randomUUID()).setIssuedAt(iatNow()).setExpirationTime(iatNow() + 600);
    const good = await base().setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(key);
    expect((await balances(svc, `JWT ${good}`)).status).toBe(200);

    const [, payload] = good.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    const noneSigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.${good.split('.')[2]}`;
    const forged = [
      none,
      noneSigned,
      await base().setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('another-secret-of-the-same-length-0123456789')),
      await base().setProtectedHeader({ alg: 'HS512' }).sign(key),
      await base().setProtectedHeader({ alg: 'HS384' }).sign(key),
      await base({ gen: 2 }).setProtectedHeader({ alg: 'HS256' }).sign(key),
      await base({}).setProtectedHeader({ alg: 'HS256' }).sign(key),
      await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(String(m.id)).setAudience('sandbox').setIssuer('paycollect').setIssuedAt(iatNow()).setExpirationTime(iatNow() + 600).sign(key),
      await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject('999999').setAudience('sandbox').setIssuer('paycollect').setJti(randomUUID()).setIssuedAt(iatNow()).setExpirationTime(iatNow() + 600).sign(key),
      await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(String(m.id)).setAudience('sandbox').setIssuer('paycollect').setJti(randomUUID()).setIssuedAt(iatNow()).sign(key),
      await base().setAudience('live').setProtectedHeader({ alg: 'HS256' }).sign(key),
      await base().setIssuer('someone-else').setProtectedHeader({ alg: 'HS256' }).sign(key),
      `${good.split('.')[0]}.${Buffer.from(JSON.stringify({ ...decodeJwt(good).payload, sub: '1' })).toString('base64url')}.${good.split('.')[2]}`,
    ];
    for (const [i, jwt] of forged.entries()) {
      const res = await balances(svc, `JWT ${jwt}`);
      if (res.status !== 401) throw new Error(`forged token #${i} was accepted: ${res.status}`);
      // never told apart from any other refusal: only an authentic token is said to have expired
      if (res.headers.get('www-authenticate') !== null) throw new Error(`forged token #${i} was answered with a challenge`);
    }
  });
});

describe('live deployment', () => {
  let live: TestService;
  beforeAll(async () => {
    live = await startTestService({ now: clock, env: { APP_ENV: 'live', JWT_SECRET } });
  });
  afterAll(async () => {
    await live?.close();
  });

  it('issues live keys, and no access token before the go-live verification is recorded', async () => {
    const m = await merchant(live);
    expect(m.api_key).toMatch(/^pk_live_/);
    expect(m.api_secret).toMatch(/^sk_live_/);
    const refused = await requestToken(live, m.api_key, m.api_secret);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('UNAUTHORIZED');
    expectOk(await live.admin.post(`/v1/admin/businesses/${m.businessId}/verify`, { verified_by: 'ops.jane' }));
    const granted = await requestToken(live, m.api_key, m.api_secret);
    expect(granted.status).toBe(200);
    expect(decodeJwt(granted.body.data.token.slice(4)).payload.aud).toBe('live');
    expect((await balances(live, granted.body.data.token)).status).toBe(200);
  });

  it('refuses a sandbox token although both deployments share JWT_SECRET, and the other way round', async () => {
    const m = await merchant(live);
    expectOk(await live.admin.post(`/v1/admin/businesses/${m.businessId}/verify`, { verified_by: 'ops.jane' }));
    const claims = (aud: string) =>
      new SignJWT({ gen: 1 }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(String(m.id)).setAudience(aud).setIssuer('paycollect').setJti(randomUUID()).setIssuedAt(iatNow()).setExpirationTime(iatNow() + 600).sign(key);
    expect((await balances(live, `JWT ${await claims('live')}`)).status).toBe(200);
    expect((await balances(live, `JWT ${await claims('sandbox')}`)).status).toBe(401);

    const sandboxMerchant = await merchant(svc);
    const sandboxToken = await accessToken(svc, sandboxMerchant.api_key, sandboxMerchant.api_secret);
    expect((await balances(live, sandboxToken)).status).toBe(401);
    const liveToken = await accessToken(live, m.api_key, m.api_secret);
    expect((await balances(svc, liveToken)).status).toBe(401);
    expect((await requestToken(live, sandboxMerchant.api_key, sandboxMerchant.api_secret)).status).toBe(401);
  });
});

describe('failed token requests are rate limited', () => {
  it('per api_key: the 11th request in a minute gets 429 with Retry-After, from any address, right secret or not', async () => {
    const m = await merchant();
    for (let i = 0; i < 10; i++) expect((await tokenFrom(svc, '127.0.0.1', m.api_key, 'sk_sandbox_wrong')).status).toBe(401);
    const limited = await tokenFrom(svc, '127.0.0.1', m.api_key, m.api_secret);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await tokenFrom(svc, '127.0.0.2', m.api_key, m.api_secret)).status).toBe(429);
    nowMs += 60_000;
    expect((await tokenFrom(svc, '127.0.0.2', m.api_key, m.api_secret)).status).toBe(200);
  });

  it('per client address: after 10 failures any key from that address gets 429, other addresses are served', async () => {
    const m = await merchant();
    for (let i = 0; i < 10; i++) expect((await tokenFrom(svc, '127.0.0.3', `pk_sandbox_guess${i}`, 'sk_sandbox_guess')).status).toBe(401);
    const rows = await svc.services.db.any("SELECT bucket, failures FROM auth_failures WHERE bucket = 'addr:127.0.0.3'");
    expect(rows).toEqual([{ bucket: 'addr:127.0.0.3', failures: 10 }]);
    const limited = await tokenFrom(svc, '127.0.0.3', m.api_key, m.api_secret);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await tokenFrom(svc, '127.0.0.4', m.api_key, m.api_secret)).status).toBe(200);
  });

  it('holds under a burst: of 30 parallel wrong guesses only 10 are checked, the rest get 429', async () => {
    const m = await merchant();
    const results = await Promise.all(Array.from({ length: 30 }, () => tokenFrom(svc, '127.0.0.6', m.api_key, 'sk_sandbox_wrong')));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  });

  it('does not count successful requests', async () => {
    const m = await merchant();
    for (let i = 0; i < 12; i++) expect((await tokenFrom(svc, '127.0.0.5', m.api_key, m.api_secret)).status).toBe(200);
  });
});

describe('RATE_LIMIT_RPS', () => {
  let limited: TestService;
  beforeAll(async () => {
    limited = await startTestService({ now: clock, env: { RATE_LIMIT_RPS: '3' } });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('answers the 4th call of one API token within a second with 429 and Retry-After; other tokens are not affected', async () => {
    const a = await merchant(limited);
    const b = await merchant(limited);
    const ta = await accessToken(limited, a.api_key, a.api_secret);
    const tb = await accessToken(limited, b.api_key, b.api_secret);
    for (let i = 0; i < 3; i++) expect((await balances(limited, ta)).status).toBe(200);
    const res = await balances(limited, ta);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('RATE_LIMITED');
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await balances(limited, tb)).status).toBe(200);
    nowMs += 1_000;
    expect((await balances(limited, ta)).status).toBe(200);
  });
});

describe('business isolation', () => {
  it("answers 404 when a merchant asks for another business's wallet", async () => {
    const a = await merchant(svc, 'UGX');
    const b = await merchant(svc, 'KES');
    const ta = await accessToken(svc, a.api_key, a.api_secret);
    const tb = await accessToken(svc, b.api_key, b.api_secret);
    expect((await svc.merchant(tb).get('/v1/data/wallets/KES/balance')).status).toBe(200);
    const res = await svc.merchant(ta).get('/v1/data/wallets/KES/balance');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    const list = await balances(svc, ta);
    expect(list.body.data.map((w: { currency: string }) => w.currency)).toEqual(['UGX']);
  });
});

describe('secrets', () => {
  it('never appear in the logs', () => {
    const logs = svc.logs.join('\n');
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(logs).not.toContain(secret);
  });
});
