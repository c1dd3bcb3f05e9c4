// Helpers for the merchant set-up tests: a snapshot of every set-up table (to prove a refused request
// changed nothing), small operator calls, token requests, and a JWT reader.
import http from 'node:http';
import { checkResponse } from './spec';
import type { ApiResponse, TestService } from './service';

const TABLES: Record<string, string> = {
  businesses: 'id',
  business_fees: 'business_id, payment_method',
  wallets: 'id',
  mids: 'id',
  api_tokens: 'id',
  fx_rates: 'base, quote',
};

/** Every row of the set-up tables, in a stable order. */
export async function snapshot(svc: TestService): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of Object.entries(TABLES)) {
    out[table] = await svc.services.db.any(`SELECT * FROM ${table} ORDER BY ${order}`);
  }
  return out;
}

export function expectOk<T = any>(res: ApiResponse, what = 'request'): T {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body.data as T;
}

/** The fields named by a VALIDATION_ERROR, each once, sorted. */
export function errorFields(res: ApiResponse): string[] {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('VALIDATION_ERROR');
  return [...new Set((res.body.data as { field: string }[]).map((e) => e.field))].sort();
}

let seq = 0;

export async function createBusiness(svc: TestService, body: Record<string, unknown> = {}): Promise<any> {
  seq += 1;
  return expectOk(await svc.admin.post('/v1/admin/businesses', { name: `Shop ${seq}`, default_currency: 'UGX', ...body }), 'createBusiness');
}

export function tokenBody(overrides: Record<string, unknown> = {}) {
  seq += 1;
  return {
    notification_email: `payments${seq}@shop.example`,
    webhook_url: 'https://8.8.8.8/paycollect-hooks',
    webhook_hash: `whsec-${seq}-0123456789abcdef`,
    ...overrides,
  };
}

export interface IssuedToken {
  id: number;
  api_key: string;
  api_secret: string;
  business_id: number;
}

export async function issueToken(svc: TestService, businessId: number, overrides: Record<string, unknown> = {}): Promise<IssuedToken> {
  return expectOk(await svc.admin.post(`/v1/admin/businesses/${businessId}/api-tokens`, tokenBody(overrides)), 'createApiToken');
}

export function requestToken(svc: TestService, apiKey: string, secret: string, extra: Record<string, unknown> = {}) {
  return svc.anon.post('/v1/auth/token', { api_key: apiKey, ...extra }, { headers: { 'secret-key': secret } });
}

export async function accessToken(svc: TestService, apiKey: string, secret: string, expiresIn?: number): Promise<string> {
  const res = await requestToken(svc, apiKey, secret, expiresIn === undefined ? {} : { expires_in: expiresIn });
  return expectOk<{ token: string }>(res, 'createAccessToken').token;
}

/** A token request sent from a chosen loopback address (127.0.0.x), to act as different clients. */
export async function tokenFrom(svc: TestService, localAddress: string, apiKey: string, secret: string): Promise<ApiResponse> {
  const payload = JSON.stringify({ api_key: apiKey });
  const res = await new Promise<{ status: number; headers: Headers; text: string }>((resolve, reject) => {
    const req = http.request(
      `${svc.url}/v1/auth/token`,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', accept: 'application/json', 'secret-key': secret, 'content-length': Buffer.byteLength(payload) },
      },
      (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(r.headers)) if (typeof v === 'string') headers.set(k, v);
          resolve({ status: r.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
  const body = JSON.parse(res.text);
  await checkResponse('POST', '/v1/auth/token', res.status, body);
  return { ...res, body };
}

/** Header and payload of a JWT, without checking anything. */
export function decodeJwt(jwt: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [h, p] = jwt.split('.');
  const part = (s: string) => JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
  return { header: part(h), payload: part(p) };
}

/**
 * The notice of every loosened guard of money out that waits, over (its effective time moved to the past in
 * the database), and the guard-changes worker's run that then applies them, called so a test need not wait.
 */
export async function noticeOver(svc: TestService): Promise<void> {
  await svc.services.db.none("UPDATE guard_changes SET effective_at = now() - interval '1 second' WHERE applied_at IS NULL AND withdrawn_at IS NULL");
  await svc.services.guards.applyDue();
}
