// Proves ROLE: a bad value or a split role without a PostgreSQL server stops start-up with one line; on real PostgreSQL an api process runs no workers and hands its kicks over, and a worker process (serving only the probes) delivers the webhooks of the api process's state changes.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../src/config';
import type { Database } from '../src/db';
import { openPostgres } from '../src/db';
import { remoteKicks } from '../src/workers/loops';
import { createRealDatabase, REAL_PG_URL, SHARED_PG_URL } from './helpers/db';
import { mobileMoney, setupMerchant } from './helpers/fixtures';
import { createNotifyMerchant, createPendingCollection, eventually, finishCollection, startReceiver } from './helpers/notify-fixtures';
import type { Receiver } from './helpers/notify-fixtures';
import { startTestService } from './helpers/service';
import type { TestService } from './helpers/service';

const dataDir = () => mkdtempSync(path.join(os.tmpdir(), 'paycollect-role-'));

describe('the ROLE setting', () => {
  it('is both by default, and api or worker on a PostgreSQL server', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).role).toBe('both');
    expect(loadConfig({ DATA_DIR: dataDir(), ROLE: 'api', DATABASE_URL: 'postgres://h/db' }).role).toBe('api');
    expect(loadConfig({ DATA_DIR: dataDir(), ROLE: 'worker', DATABASE_URL: 'postgres://h/db' }).role).toBe('worker');
  });

  it('refuses an unknown role, and a split role on the embedded database', () => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), ROLE: 'web' })).toThrow(new ConfigError('ROLE must be api, worker or both, got "web"'));
    expect(() => loadConfig({ DATA_DIR: dataDir(), ROLE: 'worker' })).toThrow(/^ROLE=worker needs DATABASE_URL/);
  });
});

// the real server: this run's, or in CI the machine's (CI always has one)
const serverUrl = REAL_PG_URL ?? (process.env.CI === 'true' ? SHARED_PG_URL : null);
const onServer = serverUrl ? describe : describe.skip;

onServer('an api process and a worker process on one database (needs a PostgreSQL server: TEST_DATABASE_URL)', () => {
  let created: { url: string; drop(): Promise<void> };
  const pools: Database[] = [];
  let api: TestService;
  let worker: TestService;
  let receiver: Receiver;
  beforeAll(async () => {
    created = await createRealDatabase(serverUrl!);
    const env = { DATABASE_URL: created.url, MASTER_KEY: randomBytes(32).toString('base64'), SANDBOX_MM_DELAY_MS: '100' };
    pools.push(await openPostgres(created.url), await openPostgres(created.url));
    api = await startTestService({ env: { ...env, ROLE: 'api' }, database: pools[0] });
    worker = await startTestService({ env: { ...env, ROLE: 'worker' }, database: pools[1] });
    receiver = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await worker?.close();
    for (const p of pools) await p.close();
    await receiver?.close();
    await created?.drop();
  });

  it('serves the API from the api process and only the probes from the worker process', async () => {
    // /healthz is outside the spec: plain fetch
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    const health = await fetch(`${worker.url}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok', database: 'ok', role: 'worker' }]);
    // each role's /readyz says whether it runs the workers
    const workerReady = await fetch(`${worker.url}/readyz`);
    expect([workerReady.status, await workerReady.json()]).toEqual([200, { status: 'ready', database: 'ok', migrations: 'ok', workers: 'ok' }]);
    const apiReady = await fetch(`${api.url}/readyz`);
    expect([apiReady.status, await apiReady.json()]).toEqual([200, { status: 'ready', database: 'ok', migrations: 'ok', workers: 'not run here' }]);
    expect((await fetch(`${worker.url}/livez`)).status).toBe(200);
    const other = await fetch(`${worker.url}/v1/collections`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ status: 'error', message: 'This process runs the background workers only (ROLE=worker)' });
  });

  it('delivers, from the worker process, the webhooks of state changes made in the api process', async () => {
    const m = await createNotifyMerchant(api.services, { webhookUrl: receiver.url });
    const rows = [];
    for (let i = 0; i < 5; i++) rows.push(await createPendingCollection(api.services, m));
    for (const r of rows) await finishCollection(api.services, r.id);
    const delivered = async () => (await pools[0].db.one('SELECT count(*)::int AS n FROM notifications WHERE delivered_at IS NOT NULL')).n;
    await eventually(async () => (await delivered()) === rows.length, 30_000, 'five webhooks recorded as delivered');
    const sentBy = (s: TestService) => s.logs.filter((l) => /"msg":"webhook delivered"/.test(l)).length;
    await eventually(() => sentBy(worker) === rows.length, 10_000, 'the worker to log its deliveries');
    expect([sentBy(api), receiver.received.length]).toEqual([0, rows.length]);
  });

  it('takes a request-to-pay in the api process, and the worker process reports its sandbox outcome', async () => {
    const m = await setupMerchant(api);
    const res = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256777000001' }));
    expect(res.status).toBe(200);
    const ref = res.body.data.gateway_reference;
    // the designated success number: the worker's provider-events worker completes it
    await eventually(async () => (await m.client.get(`/v1/collections/${ref}`)).body.data.transaction_status === 'COMPLETED', 30_000, 'the sandbox outcome');
  });

  it('sends the kicks of a burst as one notice per worker', async () => {
    const listener = await pools[1].db.connect({ direct: true });
    const heard: string[] = [];
    listener.client.on('notification', (msg) => heard.push(String(msg.payload)));
    await listener.none('LISTEN paycollect_work');
    try {
      const kicks = remoteKicks(pools[0].db, api.services.log);
      for (let i = 0; i < 50; i++) kicks.kick(i % 2 ? 'webhooks' : 'emails');
      await kicks.stop();
      await eventually(() => heard.length >= 2, 10_000, 'two notices');
      expect(heard.sort()).toEqual(['emails', 'webhooks']);
    } finally {
      listener.done();
    }
  });
});
