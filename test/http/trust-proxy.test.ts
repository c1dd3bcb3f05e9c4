// Proves TRUST_PROXY with a real HAProxy in front of the service: a client on the token's IP allowlist reaches the disbursements through the proxy and is allowed; a client that sends X-Forwarded-For (or Forwarded) naming an allowlisted address, directly from an address not trusted or through the proxy, is refused and audited under its own address; the sign-in throttle counts the client behind the proxy, not the proxy; and without TRUST_PROXY the same forwarded header is never read.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { eventually, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { freePort } from '../helpers/notify-fixtures';
import { HAPROXY, needsHaproxy } from '../helpers/requires';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser } from '../helpers/users';

// Loopback is 127.0.0.0/8 on Linux: each party takes its own address, so the service can tell them apart.
const PROXY_SOURCE = '127.0.0.3'; // HAProxy's address towards the service: the one trusted
const ALLOWED = '127.0.0.5'; // the client on the allowlist
const STRANGER = '127.0.0.6'; // a client not on it

interface Answer {
  status: number;
  body: { code?: unknown; data?: unknown };
}

/** One request from `from` (the socket's local address) to `port`, as any HTTP client sends it. */
function call(port: number, from: string, method: string, urlPath: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path: urlPath, localAddress: from, headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** HAProxy in HTTP mode, adding X-Forwarded-For, reaching the service from PROXY_SOURCE. */
async function startHaproxy(servicePort: number): Promise<{ port: number; stop(): Promise<void> }> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paycollect-haproxy-'));
  const cfg = path.join(dir, 'haproxy.cfg');
  writeFileSync(cfg, [
    'global', '  maxconn 64',
    'defaults', '  mode http', '  timeout connect 5s', '  timeout client 30s', '  timeout server 30s',
    'frontend api', `  bind 127.0.0.1:${port}`, '  option forwardfor', '  default_backend service',
    'backend service', `  server s1 127.0.0.1:${servicePort} source ${PROXY_SOURCE}`,
    '',
  ].join('\n'));
  const child: ChildProcess = spawn(HAPROXY, ['-f', cfg, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`haproxy stopped: ${stderr}`);
    return (await call(port, '127.0.0.1', 'GET', '/livez', {}).catch(() => ({ status: 0 }))).status === 200 ? true : undefined;
  }, 15_000, 'HAProxy to answer');
  return {
    port,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

needsHaproxy().describe('behind HAProxy (TRUST_PROXY)', () => {
  let svc: TestService;
  let proxy: { port: number; stop(): Promise<void> };
  let m: MerchantSetup;
  let jwt: string;
  beforeAll(async () => {
    svc = await startTestService({ env: { TRUST_PROXY: `${PROXY_SOURCE}/32` } });
    proxy = await startHaproxy(Number(new URL(svc.url).port));
    m = await setupMerchant(svc);
    await svc.database.db.none('UPDATE api_tokens SET ip_allowlist = $2::cidr[] WHERE id = $1', [m.apiTokenId, [`${ALLOWED}/32`]]);
    jwt = (await svc.anon.post('/v1/auth/token', { api_key: m.apiKey }, { headers: { 'secret-key': m.apiSecret } })).body.data.token;
  }, 180_000); // a service start is over a minute on a loaded machine
  afterAll(async () => {
    await proxy?.stop();
    await svc?.close();
  });

  const list = (port: number, from: string, extra: Record<string, string> = {}) => call(port, from, 'GET', '/v1/disbursements', { authorization: jwt, 'secret-key': m.apiSecret, ...extra });
  const servicePort = () => Number(new URL(svc.url).port);
  const refusals = () => svc.database.db.any("SELECT after->>'client_address' AS address FROM audit_log WHERE action = 'disbursementAddressRefused' AND business_id = $1 ORDER BY id", [m.businessId]);

  it('lets the allowlisted client in through the proxy', async () => {
    const res = await list(proxy.port, ALLOWED);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it('refuses a client naming an allowlisted address itself, directly or through the proxy, and audits its own address', async () => {
    const before = (await refusals()).length;
    const spoofs: [number, string, Record<string, string>][] = [
      [servicePort(), STRANGER, { 'x-forwarded-for': ALLOWED }],
      [servicePort(), STRANGER, { forwarded: `for=${ALLOWED}` }],
      [servicePort(), STRANGER, { 'x-forwarded-for': `${ALLOWED}, ${PROXY_SOURCE}` }],
      // through the proxy: HAProxy appends the peer it saw, and only the addresses right of it are read
      [proxy.port, STRANGER, { 'x-forwarded-for': ALLOWED }],
      [proxy.port, STRANGER, { forwarded: `for=${ALLOWED}` }],
    ];
    for (const [port, from, headers] of spoofs) {
      const res = await list(port, from, headers);
      expect({ port, headers, status: res.status, code: res.body.code }).toEqual({ port, headers, status: 403, code: 'IP_NOT_ALLOWED' });
    }
    expect((await refusals()).slice(before).map((r) => r.address)).toEqual(spoofs.map(() => STRANGER));
  });

  it('counts failed sign-ins per client behind the proxy, and audits the client address', async () => {
    const user = await createUser(svc, { role: 'merchant_viewer', business_id: m.businessId });
    const login = (from: string, email: string) => call(proxy.port, from, 'POST', '/v1/admin/session', {}, { email, password: 'not the password' });
    // ten a minute per client address: the eleventh from one client is refused, another client behind the same proxy is not
    for (let i = 0; i < 10; i++) expect((await login('127.0.0.7', `nobody-${i}@people.example`)).status).toBe(401);
    expect((await login('127.0.0.7', 'nobody-10@people.example')).status).toBe(429);
    expect((await login('127.0.0.8', user.email)).status).toBe(401);
    const entry = await svc.database.db.one("SELECT after->>'client_address' AS address FROM audit_log WHERE action = 'loginFailed' AND target_id = $1 ORDER BY id DESC LIMIT 1", [String(user.id)]);
    expect(entry.address).toBe('127.0.0.8');
  });
});

needsHaproxy().describe('without TRUST_PROXY', () => {
  let svc: TestService;
  let proxy: { port: number; stop(): Promise<void> };
  beforeAll(async () => {
    svc = await startTestService();
    proxy = await startHaproxy(Number(new URL(svc.url).port));
  }, 180_000);
  afterAll(async () => {
    await proxy?.stop();
    await svc?.close();
  });

  it('reads no forwarded header: behind the proxy every client is the proxy', async () => {
    const m = await setupMerchant(svc);
    await svc.database.db.none('UPDATE api_tokens SET ip_allowlist = $2::cidr[] WHERE id = $1', [m.apiTokenId, [`${ALLOWED}/32`]]);
    const jwt = (await svc.anon.post('/v1/auth/token', { api_key: m.apiKey }, { headers: { 'secret-key': m.apiSecret } })).body.data.token;
    const res = await call(proxy.port, ALLOWED, 'GET', '/v1/disbursements', { authorization: jwt, 'secret-key': m.apiSecret });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 'IP_NOT_ALLOWED' });
    const entry = await svc.database.db.one("SELECT after->>'client_address' AS address FROM audit_log WHERE action = 'disbursementAddressRefused' AND business_id = $1", [m.businessId]);
    expect(entry.address).toBe(PROXY_SOURCE);
  });
});
