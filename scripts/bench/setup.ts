// What every bench mode sets up the same way: the merchant, a fresh database on a real server, the
// description of the machine that goes into each report.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { pgp } from '../../src/db';
import { ROOT, round1 } from './lib';

const run = randomBytes(3).toString('hex');
/** A request-to-pay body with a merchant_reference unique to this run. */
export const rtpBody = (n: number | string) => ({
  currency: 'UGX',
  amount: 50000,
  payment_method: 'MOBILE_MONEY',
  account_number: '256777000001',
  merchant_reference: `BENCH-${run}-${n}`,
  narration: `Bench order ${n}`,
});

async function call(base: string, method: string, url: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(base + url, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data: any };
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** A merchant as an operator sets one up: business with a fee and a rolling reserve, two MIDs, a token. */
export async function setupMerchant(base: string, operatorKey: string, webhookUrl: string) {
  const op = { authorization: `Bearer ${operatorKey}` };
  const business = await call(base, 'POST', '/v1/admin/businesses', op, {
    name: 'Bench Merchant',
    default_currency: 'UGX',
    fee_bearer: 'merchant',
    rolling_reserve_percent: 5,
    rolling_reserve_months: 6,
    card_settlement_days: 0,
    fees: [{ payment_method: 'MOBILE_MONEY', percent: 1.5, fixed: 0 }],
  });
  const mids: number[] = [];
  for (const name of ['Bench MM A', 'Bench MM B']) {
    const mid = await call(base, 'POST', `/v1/admin/businesses/${business.id}/mids`, op, {
      business_name: name,
      service_type: 'sandbox',
      merchant_operator: 'sandbox',
      merchant_username: 'bench',
      merchant_password: 'bench-password-123',
      payment_method: 'MOBILE_MONEY',
      currency: 'UGX',
    });
    mids.push(mid.id);
  }
  const token = await call(base, 'POST', `/v1/admin/businesses/${business.id}/api-tokens`, op, {
    notification_email: 'bench@example.org',
    webhook_url: webhookUrl,
    webhook_hash: 'bench-webhook-hash-0123456789',
    email_merchant: false,
    email_user: false,
  });
  const access = await call(base, 'POST', '/v1/auth/token', { 'secret-key': token.api_secret }, { api_key: token.api_key, expires_in: 3600 });
  return { businessId: business.id as number, apiTokenId: token.id as number, midId: mids[0], authorization: access.token as string, apiSecret: token.api_secret as string };
}

export function machine(databaseVersion: string) {
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    } catch {
      return null;
    }
  };
  return {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    load_average_at_start: os.loadavg().map(round1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    database: databaseVersion,
    commit: git(['rev-parse', '--short', 'HEAD']),
    uncommitted_changes: (git(['status', '--porcelain']) ?? '') !== '',
  };
}

export async function freshServerDatabase(serverUrl: string): Promise<{ url: string; version: string; drop(): Promise<void> }> {
  const name = `paycollect_bench_${process.pid}_${run}`;
  const admin = pgp({ connectionString: serverUrl, max: 1 });
  const { v } = await admin.one<{ v: string }>("SELECT current_setting('server_version') AS v");
  await admin.none('CREATE DATABASE $1:name', [name]);
  const url = new URL(serverUrl);
  url.pathname = '/' + name;
  return {
    url: url.toString(),
    version: `PostgreSQL ${v} server`,
    drop: async () => {
      // A closed pool's sessions end a moment after pool.end() resolves: wait for them, since forcing them
      // off first makes each ending client raise an error that no listener takes any more (a crash).
      for (let i = 0; i < 50; i++) {
        const { n } = await admin.one<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (n === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await admin.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [name]);
      await admin.$pool.end();
    },
  };
}

