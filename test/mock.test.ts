// Proves `npm run mock` (Prism on the merchant document) answers every merchant operation with a response that
// validates against the spec: the zero-logic sandbox never contradicts the contract.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { checkResponse, specApis } from './helpers/spec';

const ROOT = path.resolve(__dirname, '..');
let prism: ChildProcess;
let base: string;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  prism = spawn(path.join(ROOT, 'node_modules', '.bin', 'prism'), ['mock', 'openapi/openapi.yaml', '-p', String(port), '-h', '127.0.0.1'], {
    cwd: ROOT,
    stdio: 'ignore',
    detached: true,
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await fetch(base + '/v1/public-key');
      return;
    } catch {
      if (Date.now() > deadline) throw new Error('Prism did not start');
      await new Promise((r) => setTimeout(r, 250));
    }
  }
});
afterAll(() => {
  if (prism?.pid) process.kill(-prism.pid, 'SIGTERM');
});

const REF = 'PCK7M2QX9D4W8N3R6T5Y2Z';
const bodies: Record<string, unknown> = {
  createAccessToken: { api_key: 'pk_sandbox_Xk2e9QmV4tLr8WbN1cYh7Gs', expires_in: 900 },
  requestToPay: { currency: 'UGX', amount: 50000, payment_method: 'MOBILE_MONEY', account_number: '256777000001', merchant_reference: 'ORD-20251125-0001', narration: 'Order 20251125-0001' },
  simulateCollection: { outcome: 'COMPLETED' },
};

it('answers every merchant operation with a response that validates', async () => {
  const { merchant } = await specApis();
  const operations = merchant.getOperations();
  expect(operations.length).toBeGreaterThanOrEqual(11);
  for (const op of operations) {
    const urlPath = op.path.replace('{gateway_reference}', REF).replace('{currency}', 'UGX');
    const body = bodies[op.operationId ?? ''];
    const res = await fetch(base + urlPath, {
      method: op.method.toUpperCase(),
      headers: {
        accept: op.operationId === 'getPublicKey' ? 'application/x-pem-file' : 'application/json',
        authorization: 'JWT eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
        'secret-key': 'sk_sandbox_secret',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const parsed = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
    expect({ op: op.operationId, status: res.status }).toEqual({ op: op.operationId, status: 200 });
    await checkResponse(op.method, urlPath, res.status, parsed);
  }
});
