// Proves seedDemoIfEmpty: the demo merchant is created once with everything a newcomer needs, and its printed curl line gets an access token.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { openPostgres } from '../../src/db';
import { createRealDatabase, freshDatabase, SHARED_PG_URL } from '../helpers/db';
import { needsRealServer } from '../helpers/requires';
import { createBusiness, decodeJwt, snapshot } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const run = promisify(execFile);

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
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

  it('creates an active sandbox MID per payment method and wallet currency', async () => {
    const mids = await svc.services.db.any(
      'SELECT payment_method, currency, service_type, processing_rank, active FROM mids WHERE business_id = $1 ORDER BY payment_method, currency',
      [demo!.business_id],
    );
    expect(mids).toHaveLength(16);
    for (const method of ['MOBILE_MONEY', 'CARD', 'BANK', 'CRYPTO']) {
      for (const currency of ['UGX', 'USD', 'KES', 'EUR']) {
        expect(mids).toContainEqual({ payment_method: method, currency, service_type: 'sandbox', processing_rank: 1, active: true });
      }
    }
  });

  it('sets market rates', async () => {
    const rates = (await svc.admin.get('/v1/admin/fx-rates?per_page=100')).body.data.map((r: { base: string; quote: string; rate: number }) => `${r.base}${r.quote}=${r.rate}`);
    expect(rates).toEqual(expect.arrayContaining(['USDUGX=3700', 'USDKES=129.5', 'EURUSD=1.08', 'USDTZS=2650', 'USDRWF=1350']));
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
