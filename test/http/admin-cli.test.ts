// Proves scripts/admin.ts (npm run admin): each set-up command calls the operator API over HTTP and prints JSON; bad input gets usage.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OPERATOR_KEY, startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { accessToken } from '../helpers/merchants';

const ROOT = path.resolve(__dirname, '..', '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function admin(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PAYCOLLECT_URL: svc.url, OPERATOR_API_KEY: OPERATOR_KEY };
  return new Promise((resolve) => {
    execFile(TSX, ['scripts/admin.ts', ...args], { cwd: ROOT, env: { ...base, ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function data(r: Run): any {
  if (r.code !== 0) throw new Error(`admin exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout).data;
}

it('sets up a merchant end to end: business, wallet, MID, token, rate, list', async () => {
  const business = data(
    await admin(['create-business', '--name', 'CLI Books', '--currency', 'UGX', '--reserve-percent', '5', '--card-days', '2', '--fee', 'CARD:3.5:0.30', '--fee', 'MOBILE_MONEY:2.5:0']),
  );
  expect(business).toMatchObject({
    name: 'CLI Books',
    rolling_reserve_percent: 5,
    card_settlement_days: 2,
    fees: [
      { payment_method: 'MOBILE_MONEY', percent: 2.5, fixed: 0 },
      { payment_method: 'CARD', percent: 3.5, fixed: 0.3 },
    ],
  });
  const id = String(business.id);
  expect(data(await admin(['add-wallet', '--business', id, '--currency', 'USD', '--default']))).toMatchObject({ currency: 'USD', is_default: true });
  const mid = data(await admin(['add-mid', '--business', id, '--method', 'CARD', '--currency', 'USD', '--traffic', 'UG,KE', '--password', 'pw-123456', '--rank', '2']));
  expect(mid).toMatchObject({ service_type: 'sandbox', payment_method: 'CARD', allowed_traffic: ['UG', 'KE'], processing_rank: 2, has_password: true, collects: true, disburses: false });
  const payouts = data(await admin(['add-mid', '--business', id, '--method', 'MOBILE_MONEY', '--currency', 'UGX', '--disburses', '--payouts-only']));
  expect(payouts).toMatchObject({ payment_method: 'MOBILE_MONEY', collects: false, disburses: true });
  const token = data(
    await admin(['issue-token', '--business', id, '--email', 'ops@clibooks.example', '--webhook-url', 'https://8.8.8.8/hook', '--webhook-hash', 'cli-webhook-hash-0123456789', '--email-merchant']),
  );
  expect(token).toMatchObject({ api_key: expect.stringMatching(/^pk_sandbox_/), api_secret: expect.any(String), email_merchant: true, email_user: false });
  await accessToken(svc, token.api_key, token.api_secret);
  expect(data(await admin(['set-rate', '--base', 'USD', '--quote', 'UGX', '--rate', '3712.25']))).toMatchObject({ rate: 3712.25 });
  const listed = data(await admin(['list-businesses', '--per-page', '5']));
  expect(listed.map((b: { id: number }) => b.id)).toContain(business.id);
  expect(data(await admin(['verify-business', '--business', id, '--note', 'KYC file 12']))).toMatchObject({ verified: true, verified_by: 'operator key' });
}, 120_000);

it('reads the operator key from DATA_DIR/operator-key when OPERATOR_API_KEY is not set', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paycollect-cli-'));
  writeFileSync(path.join(dir, 'operator-key'), OPERATOR_KEY + '\n', { mode: 0o600 });
  const r = await admin(['list-businesses'], { OPERATOR_API_KEY: '', DATA_DIR: dir });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).status).toBe('success');
});

it.each([
  ['no command', [], /no command given/],
  ['an unknown command', ['delete-everything'], /unknown command "delete-everything"/],
  ['a missing flag', ['add-wallet', '--business', '1'], /missing --currency/],
  ['an unknown flag', ['set-rate', '--base', 'USD', '--quote', 'UGX', '--rate', '1', '--when', 'now'], /Unknown option '--when'/],
  ['a bad id', ['add-wallet', '--business', 'abc', '--currency', 'USD'], /--business must be a positive whole number/],
  ['a bad number', ['set-rate', '--base', 'USD', '--quote', 'UGX', '--rate', 'lots'], /--rate must be a number/],
  ['a bad fee', ['create-business', '--name', 'X', '--currency', 'UGX', '--fee', 'CARD-3'], /--fee must look like METHOD:PERCENT:FIXED/],
])('exits 2 with usage on %s', async (_what, args, message) => {
  const r = await admin(args);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).toContain('usage: npm run admin --');
  expect(r.stdout).toBe('');
});

it('exits 1 and prints the error envelope when the service refuses', async () => {
  const r = await admin(['set-rate', '--base', 'USD', '--quote', 'USD', '--rate', '1']);
  expect(r.code).toBe(1);
  expect(JSON.parse(r.stderr)).toMatchObject({ code: 'VALIDATION_ERROR', data: [{ field: 'quote' }] });
  const wrongKey = await admin(['list-businesses'], { OPERATOR_API_KEY: 'op_wrong' });
  expect(wrongKey.code).toBe(1);
  expect(JSON.parse(wrongKey.stderr).code).toBe('UNAUTHORIZED');
});

it('exits 1 with a clear line when the service cannot be reached', async () => {
  const r = await admin(['list-businesses'], { PAYCOLLECT_URL: 'http://127.0.0.1:9' });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9/);
});

it('invites a person to the dashboard, e.g. a new operator admin when nobody can sign in', async () => {
  const invitation = data(await admin(['invite', '--email', 'New.Admin@ops.example', '--role', 'operator_admin']));
  expect(invitation).toMatchObject({ email: 'new.admin@ops.example', role: 'operator_admin', business_id: null, invited_by: null });
  const bad = await admin(['invite', '--email', 'x@ops.example', '--role', 'merchant_viewer', '--business', 'abc']);
  expect(bad.code).toBe(2);
}, 120_000);
