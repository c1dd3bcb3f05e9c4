// Proves the high-availability recipe (deploy/ha) keeps every acknowledged payment when the primary dies:
// deploy/ha/start-local.sh starts one etcd member, two Patroni nodes (synchronous_mode) and HAProxy on
// private loopback ports; the service runs through HAProxy under steady request-to-pay load whose
// collections complete in the sandbox; the primary's postmaster is killed with SIGKILL. Then: every 200
// names a collection stored exactly once, nothing is credited twice, the ledger check passes, every final
// collection reached the merchant's webhook, only 200 and 503 were answered, the service answered 200
// again within RECOVERY_BOUND_MS, and the old primary came back as a standby. The figures are printed.
// It starts its own cluster, whatever TEST_DATABASE_URL says; outside CI it is skipped, with the reason, only
// where Patroni, etcd or HAProxy is not installed.
// Alike in every pass: the cluster is its own, so CI runs it in the plain pass alone.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openPostgres } from '../../src/db';
import { migrationsApplied } from '../../src/db/migrate';
import type { Database } from '../../src/db';
import { ledgerDrift } from '../../src/ledger/ledger';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { needsHaTools } from '../helpers/requires';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');
const SUCCESS = '256777000001';
/** what the issue asks for; measured runs recover in a few seconds */
const RECOVERY_BOUND_MS = 30_000;
const CALLERS = 12;
/** a retrying merchant's pause after a 503 (the answer's Retry-After is 2 s; shorter keeps the test brief) */
const PAUSE_AFTER_REFUSAL_MS = 100;

const suite = needsHaTools().describe;

interface Answer {
  reference: string;
  sentAt: number;
  at: number;
  status: number;
  code: string | null;
  gatewayReference: string | null;
}

suite('failover of the database primary (etcd, two Patroni nodes in synchronous mode, HAProxy)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paycollect-ha-'));
  // eight consecutive ports out of the way of the usual ones, apart per process
  const base = 27000 + (process.pid % 200) * 10;
  const env = { ...process.env, HA_DIR: dir, HA_BASE_PORT: String(base) };
  const api = (n: 1 | 2) => `http://127.0.0.1:${base + 3 + n}`;
  let database: Database;
  let svc: TestService;
  let m: MerchantSetup;
  let hooks: Receiver;

  beforeAll(async () => {
    try {
      await run('bash', [path.join(ROOT, 'deploy/ha/start-local.sh')], { env, timeout: 120_000 });
    } catch (err) {
      // afterAll cleans the folder away: say here why the cluster did not start
      const tail = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-15).join('\n') : '(none)');
      throw new Error(`${(err as Error).message}\n-- patroni-node1.log:\n${tail(path.join(dir, 'patroni-node1.log'))}\n-- etcd.log:\n${tail(path.join(dir, 'etcd.log'))}`);
    }
    database = await openPostgres(readFileSync(path.join(dir, 'database-url'), 'utf8').trim());
    hooks = await startReceiver();
    svc = await startTestService({ database, env: { SANDBOX_MM_DELAY_MS: '300', WEBHOOK_RETRY_SCHEDULE: '0s,1s,2s,5s' } });
    m = await setupMerchant(svc, { webhookUrl: hooks.url });
  }, 180_000);

  afterAll(async () => {
    await svc?.close();
    await database?.close();
    await hooks?.close();
    await run('bash', [path.join(ROOT, 'deploy/ha/stop-local.sh'), '--clean'], { env, timeout: 90_000 });
  }, 120_000);

  it('loses nothing, credits nothing twice, notifies everything and answers 200 again within the bound', async () => {
    const answers: Answer[] = [];
    let loading = true;
    // a careful merchant: each payment is sent again unchanged until it is answered 200
    const caller = async () => {
      while (loading) {
        const body = mobileMoney({ account_number: SUCCESS });
        for (let answered = false; !answered && loading; ) {
          const sentAt = Date.now();
          const res = await m.client.post('/v1/collections/request-to-pay', body);
          answers.push({
            reference: body.merchant_reference,
            sentAt,
            at: Date.now(),
            status: res.status,
            code: res.status === 200 ? null : res.body.code,
            gatewayReference: res.status === 200 ? res.body.data.gateway_reference : null,
          });
          answered = res.status === 200;
          if (!answered) await new Promise((r) => setTimeout(r, PAUSE_AFTER_REFUSAL_MS));
        }
      }
    };
    const ok = () => answers.filter((a) => a.status === 200);
    const callers = Array.from({ length: CALLERS }, caller);
    await eventually(() => ok().length >= 40, 30_000, '40 payments accepted before the kill');

    const primary = (await fetch(`${api(1)}/primary`)).status === 200 ? 1 : 2;
    const standby = primary === 1 ? 2 : 1;
    const postmaster = Number(readFileSync(path.join(dir, `node${primary}`, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const health: number[] = [];
    const ready: number[] = [];
    const killedAt = Date.now();
    process.kill(postmaster, 'SIGKILL');
    const watching = (async () => {
      while (loading) {
        health.push((await fetch(svc.url + '/healthz')).status);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const watchingReady = (async () => {
      while (loading) {
        ready.push((await fetch(svc.url + '/readyz')).status);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await eventually(async () => (await fetch(`${api(standby)}/primary`)).status === 200, RECOVERY_BOUND_MS, 'the standby to be promoted');
    const promotedMs = Date.now() - killedAt;
    const afterKill = () => ok().filter((a) => a.sentAt > killedAt);
    await eventually(() => afterKill().length >= 40, RECOVERY_BOUND_MS, '40 payments accepted after the kill');
    loading = false;
    await Promise.all([...callers, watching, watchingReady]);

    // the figures
    const refused = answers.filter((a) => a.status !== 200);
    // a request sent after the kill can only succeed on the new primary: the first such 200 is the recovery
    const recoveredMs = Math.min(...afterKill().map((a) => a.at)) - killedAt;
    const refusedWindow = refused.length ? `${Math.min(...refused.map((a) => a.at)) - killedAt}..${Math.max(...refused.map((a) => a.at)) - killedAt} ms` : 'none';
    const byCode = Object.fromEntries([...new Set(refused.map((a) => a.code))].map((c) => [c, refused.filter((a) => a.code === c).length]));
    // only success and our own outage: no 401, no 500
    expect([...new Set(answers.map((a) => a.status))].sort()).toEqual(refused.length ? [200, 503] : [200]);
    expect(recoveredMs).toBeLessThan(RECOVERY_BOUND_MS);

    // every 200 names a collection stored exactly once, under its reference
    const stored = await database.db.any<{ merchant_reference: string; gateway_reference: string }>(
      'SELECT merchant_reference, gateway_reference FROM collections WHERE business_id = $1',
      [m.businessId],
    );
    const storedByReference = new Map<string, string[]>();
    for (const r of stored) storedByReference.set(r.merchant_reference, [...(storedByReference.get(r.merchant_reference) ?? []), r.gateway_reference]);
    for (const a of ok()) expect(storedByReference.get(a.reference)).toEqual([a.gatewayReference]);

    // every collection completes once; the wallet holds exactly the sum of their credits
    await eventually(
      async () => (await database.db.one<{ n: number }>("SELECT count(*)::int AS n FROM collections WHERE business_id = $1 AND status = 'PENDING'", [m.businessId])).n === 0,
      30_000,
      'every collection to complete',
    );
    const credits = await database.db.one<{ journals: number; collections: number; credited: bigint; balance: bigint }>(
      `SELECT (SELECT count(*)::int FROM journals j JOIN collections c ON c.id = j.collection_id
                WHERE c.business_id = $1 AND j.kind = 'collection_credit') AS journals,
              (SELECT count(*)::int FROM collections WHERE business_id = $1 AND status = 'COMPLETED') AS collections,
              (SELECT coalesce(sum(total_credit_minor), 0)::bigint FROM collections WHERE business_id = $1 AND status = 'COMPLETED') AS credited,
              (SELECT coalesce(sum(p.amount_minor), 0)::bigint FROM postings p JOIN ledger_accounts a ON a.id = p.account_id
                WHERE a.business_id = $1 AND a.wallet_id IS NOT NULL) AS balance`,
      [m.businessId],
    );
    expect(credits.journals).toBe(credits.collections);
    expect(credits.balance).toBe(credits.credited);
    expect(await ledgerDrift(database.db)).toEqual([]);

    // every final collection reached the merchant's webhook
    const finals = new Set(stored.map((r) => r.gateway_reference));
    const notified = () => new Set(hooks.received.map((r) => JSON.parse(r.body).gateway_reference as string));
    await eventually(() => [...finals].every((g) => notified().has(g)), 30_000, 'a webhook for every final collection');

    // ready again once a writable primary answers; how many polls it failed meanwhile is a figure, not an
    // assertion: backends of a killed postmaster still answer reads for a moment, so a poll may miss the gap
    expect((await fetch(svc.url + '/readyz')).status).toBe(200);

    // the old primary is back, following the new one
    const rejoinStarted = Date.now();
    await eventually(async () => (await fetch(`${api(primary)}/replica`)).status === 200, 60_000, 'the old primary to rejoin as a standby');
    const rejoinedMs = Date.now() - killedAt;
    // a process whose connection lands on that standby (a proxy not yet moved) is not ready: it takes no writes
    const url = new URL(readFileSync(path.join(dir, 'database-url'), 'utf8').trim());
    url.port = String(base + 1 + primary);
    const onStandby = await openPostgres(url.toString());
    try {
      expect(await migrationsApplied(onStandby.db, 5_000)).toBe('read-only');
    } finally {
      await onStandby.close();
    }

    process.stdout.write(
      `failover figures: standby promoted ${promotedMs} ms after the kill; service answered 200 again ${recoveredMs} ms after it; ` +
        `${answers.length} answers, ${ok().length} accepted (${stored.length} collections stored, each once), refused meanwhile: ${JSON.stringify(byCode)} (answered ${refusedWindow} after the kill); ` +
        `/healthz 503 ${health.filter((s) => s === 503).length} of ${health.length} polls, /readyz 503 ${ready.filter((s) => s === 503).length} of ${ready.length}; old primary a standby again ${rejoinedMs} ms after the kill ` +
        `(${rejoinedMs - (rejoinStarted - killedAt)} ms of waiting after the checks)\n`,
    );
  }, 150_000);
});
