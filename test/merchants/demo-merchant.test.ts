// Proves seedDemoIfEmpty: the demo merchant is created once with everything a newcomer needs (its MIDs by phone and bank pay out, so it refunds and pays out with nothing set by hand), and its printed curl line gets an access token.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { openPostgres } from '../../src/db';
import { createRealDatabase, freshDatabase, SHARED_PG_URL } from '../helpers/db';
import { needsRealServer } from '../helpers/requires';
import { accessToken, createBusiness, decodeJwt, expectOk, snapshot } from '../helpers/merchants';
import { eventually } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const run = promisify(execFile);

let svc: TestService;
beforeAll(async () => {
  // the simulator's refunds and payouts are read at the first status check: soon, so that the test waits little
  svc = await startTestService({ env: { PROCESSOR_CHECK_SCHEDULE: '100ms' } });
});
afterAll(async () => {
  await svc?.close();
});

describe('seedDemoIfEmpty', () => {
  let demo: Awaited<ReturnType<TestService['services']['demoMerchant']['seedDemoIfEmpty']>>;

  beforeAll(async () => {
    demo = await svc.services.demoMerchant.seedDemoIfEmpty();
  });

  it('creates the demo business with wallets UGX (default), USD, KES, EUR and a fee schedule', async () => {
    expect(demo).not.toBeNull();
    const business = (await svc.admin.get(`/v1/admin/businesses/${demo!.business_id}`)).body.data;
    expect(business).toMatchObject({
      name: 'Demo Merchant',
      default_currency: 'UGX',
      fee_bearer: 'merchant',
      wallets: ['UGX', 'EUR', 'KES', 'USD'],
      fees: [
        { payment_method: 'MOBILE_MONEY', percent: 2.5, fixed: 0 },
        { payment_method: 'CARD', percent: 3.5, fixed: 0.3 },
        { payment_method: 'BANK', percent: 1, fixed: 0 },
        { payment_method: 'CRYPTO', percent: 1, fixed: 0 },
      ],
    });
  });

  it('creates an active sandbox MID per payment method and wallet currency; every one collects, those by phone and bank also disburse', async () => {
    const mids = (await svc.admin.get(`/v1/admin/businesses/${demo!.business_id}/mids?per_page=100`)).body.data;
    expect(mids).toHaveLength(17);
    for (const method of ['MOBILE_MONEY', 'CARD', 'BANK', 'CRYPTO']) {
      for (const currency of ['UGX', 'USD', 'KES', 'EUR']) {
        const disburses = method === 'MOBILE_MONEY' || method === 'BANK';
        expect(mids).toContainEqual(expect.objectContaining({ payment_method: method, currency, service_type: 'sandbox', processing_rank: 1, active: true, collects: true, disburses }));
      }
    }
    // and one without a wallet: mobile money in TZS, converted into the UGX wallet
    expect(mids).toContainEqual(expect.objectContaining({ payment_method: 'MOBILE_MONEY', currency: 'TZS', service_type: 'sandbox', active: true, collects: true, disburses: false }));
    expect(demo!.mids).toBe('Its sandbox MIDs collect by MOBILE_MONEY, CARD, BANK, CRYPTO and pay out by MOBILE_MONEY and BANK in UGX, USD, KES, EUR, and collect by MOBILE_MONEY in TZS, converted into the UGX wallet');
  });

  it('sets market rates', async () => {
    const rates = (await svc.admin.get('/v1/admin/fx-rates?per_page=100')).body.data.map((r: { base: string; quote: string; rate: number }) => `${r.base}${r.quote}=${r.rate}`);
    expect(rates).toEqual(expect.arrayContaining(['USDUGX=3700', 'USDKES=129.5', 'EURUSD=1.08', 'USDTZS=2650', 'USDRWF=1350', 'EURUGX=3996', 'EURTZS=2862']));
  });

  it('issues one API token and writes the credentials to DATA_DIR/demo-credentials.json, mode 600', async () => {
    const tokens = await svc.services.db.any('SELECT api_key, secret_hash, notification_email, webhook_url FROM api_tokens WHERE business_id = $1', [demo!.business_id]);
    expect(tokens).toHaveLength(1);
    expect(tokens[0].api_key).toBe(demo!.api_key);
    expect(tokens[0].secret_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(tokens[0].notification_email).toBe('demo@paycollect.dev');
    expect(demo!.file).toBe(path.join(svc.config.dataDir, 'demo-credentials.json'));
    expect(statSync(demo!.file).mode & 0o777).toBe(0o600);
    const file = JSON.parse(readFileSync(demo!.file, 'utf8'));
    expect(file).toMatchObject({
      api_key: demo!.api_key,
      api_secret: demo!.api_secret,
      business_id: demo!.business_id,
      base_url: svc.config.publicBaseUrl,
      webhook_url: tokens[0].webhook_url,
      webhook_hash: expect.stringMatching(/^.{32,}$/),
      curl: demo!.curl,
    });
  });

  it('prints a curl line that obtains an access token as is', async () => {
    expect(demo!.curl).toBe(
      `curl -s -X POST ${svc.config.publicBaseUrl}/v1/auth/token -H 'Content-Type: application/json' -H 'Accept: application/json' ` +
        `-H 'Secret-Key: ${demo!.api_secret}' -d '{"api_key":"${demo!.api_key}"}'`,
    );
    const { stdout } = await run('sh', ['-c', demo!.curl]);
    const body = JSON.parse(stdout);
    expect(body).toMatchObject({ code: 200, status: 'success', data: { token: expect.stringMatching(/^JWT /) } });
    expect(decodeJwt(body.data.token.slice(4)).payload.aud).toBe('sandbox');
    expect((await svc.merchant(body.data.token).get('/v1/data/wallets/balances')).status).toBe(200);
  });

  it('creates nothing the second time', async () => {
    const before = await snapshot(svc);
    expect(await svc.services.demoMerchant.seedDemoIfEmpty()).toBeNull();
    expect(await snapshot(svc)).toEqual(before);
  });

  it('never logs the secret', () => {
    expect(svc.logs.join('\n')).not.toContain(demo!.api_secret);
  });

  // last: its workers and webhook retries go on writing after it, which the snapshots above must not see
  it('refunds and pays out as seeded, by phone and by bank, through its own sandbox MIDs: nothing set by hand', async () => {
    const token = await accessToken(svc, demo!.api_key, demo!.api_secret);
    const merchant = svc.merchant(token);
    const secret = { headers: { 'secret-key': demo!.api_secret } };
    const paid = expectOk(await merchant.post('/v1/collections/request-to-pay', {
      currency: 'KES', amount: 2000, payment_method: 'MOBILE_MONEY', account_number: '254708374149', merchant_reference: 'DEMO-FUND-0001', narration: 'Demo funds',
    }));
    expectOk(await merchant.post(`/v1/sandbox/collections/${paid.gateway_reference}/simulate`, { outcome: 'COMPLETED' }));
    const refund = expectOk(await merchant.post(`/v1/collections/${paid.gateway_reference}/refunds`, { amount: 100, merchant_reference: 'DEMO-REFUND-0001' }));
    const byPhone = expectOk(await merchant.post('/v1/disbursements', {
      amount: 300, currency: 'KES', payment_method: 'MOBILE_MONEY', account_number: '254708374149', account_name: 'Jane Driver', merchant_reference: 'DEMO-PAYOUT-0001', narration: 'Weekly earnings',
    }, secret));
    const byBank = expectOk(await merchant.post('/v1/disbursements', {
      amount: 400, currency: 'KES', payment_method: 'BANK', bank_code: '01', account_number: '0123456789', account_name: 'Jane Driver', merchant_reference: 'DEMO-PAYOUT-0002', narration: 'Weekly earnings',
    }, secret));
    const mids = await svc.services.db.any<{ id: number; payment_method: string }>("SELECT id, payment_method FROM mids WHERE business_id = $1 AND currency = 'KES'", [demo!.business_id]);
    const midOf = (method: string) => mids.find((m) => m.payment_method === method)!.id;
    const routed = await svc.services.db.any<{ merchant_reference: string; mid_id: number }>(
      'SELECT merchant_reference, mid_id FROM disbursements WHERE business_id = $1 ORDER BY merchant_reference', [demo!.business_id],
    );
    expect(routed).toEqual([{ merchant_reference: 'DEMO-PAYOUT-0001', mid_id: midOf('MOBILE_MONEY') }, { merchant_reference: 'DEMO-PAYOUT-0002', mid_id: midOf('BANK') }]);
    await eventually(async () => expectOk(await merchant.get(`/v1/refunds/${refund.gateway_reference}`)).transaction_status === 'COMPLETED', 15_000, 'refund COMPLETED');
    for (const d of [byPhone, byBank]) {
      await eventually(async () => expectOk(await merchant.get(`/v1/disbursements/${d.gateway_reference}`, secret)).transaction_status === 'COMPLETED', 15_000, 'payout COMPLETED');
    }
    // 2000 less the demo's 2.5 % fee, less the refund and both payouts (the demo charges no disbursement fee)
    expect(expectOk(await merchant.get('/v1/data/wallets/KES/balance'))).toMatchObject({ available_balance: 1950 - 100 - 300 - 400, refund_held_balance: 0, disbursement_held_balance: 0 });
  });
});

describe('at start-up (SEED_DEMO)', () => {
  it('seeds an empty database on the first start and nothing on the second', async () => {
    const database = await freshDatabase();
    // one deployment restarted: the keys kept in DATA_DIR stay the same
    const env = { SEED_DEMO: 'true', MASTER_KEY: randomBytes(32).toString('base64') };
    try {
      const first = await startTestService({ database, env });
      expect(first.demo).toMatchObject({ api_key: expect.stringMatching(/^pk_sandbox_/), business_id: expect.any(Number) });
      const before = await snapshot(first);
      await first.close();
      const second = await startTestService({ database, env });
      expect(second.demo).toBeNull();
      expect(await snapshot(second)).toEqual(before);
      await second.close();
    } finally {
      await database.close();
    }
  });

  it('does not seed a database that already has a business', async () => {
    const s = await startTestService();
    try {
      await createBusiness(s);
      const before = await snapshot(s);
      expect(await s.services.demoMerchant.seedDemoIfEmpty()).toBeNull();
      expect(await snapshot(s)).toEqual(before);
    } finally {
      await s.close();
    }
  });

  it('never seeds a live deployment', async () => {
    const s = await startTestService({ env: { APP_ENV: 'live', SEED_DEMO: 'true' } });
    try {
      expect(s.demo).toBeNull();
      expect(await s.services.db.one('SELECT count(*)::int AS n FROM businesses')).toEqual({ n: 0 });
    } finally {
      await s.close();
    }
  });
});

needsRealServer().it('seeds once when two processes start together on one database (real PostgreSQL)', async () => {
  const created = await createRealDatabase(SHARED_PG_URL);
  const pools = [await openPostgres(created.url), await openPostgres(created.url)];
  const env = { MASTER_KEY: randomBytes(32).toString('base64') };
  const services: TestService[] = [];
  try {
    for (const database of pools) services.push(await startTestService({ database, env }));
    const results = await Promise.all(services.map((s) => s.services.demoMerchant.seedDemoIfEmpty()));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await services[0].services.db.one('SELECT count(*)::int AS n FROM businesses')).toEqual({ n: 1 });
    expect(await services[0].services.db.one('SELECT count(*)::int AS n FROM api_tokens')).toEqual({ n: 1 });
  } finally {
    for (const s of services) await s.close();
    for (const p of pools) await p.close();
    await created.drop();
  }
});
