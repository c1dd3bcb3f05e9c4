// Proves that a service process SIGKILLed in the middle of a webhook delivery and of an email send leaves nothing lost: the next process delivers both, the webhook with the same webhook-id, as soon as the dead process's heartbeat is stale rather than at the end of the claim's lease.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { openPostgres } from '../../src/db';
import { createLogger } from '../../src/log';
import { buildServices } from '../../src/wiring';
import { LIVENESS_STALE_MS } from '../../src/workers/liveness';
import { createRealDatabase, SHARED_PG_URL } from '../helpers/db';
import { createNotifyMerchant, createPendingCollection, eventually, finishCollection, freePort } from '../helpers/notify-fixtures';
import { startSmtp } from '../helpers/smtp';

const ROOT = path.resolve(__dirname, '..', '..');
// Processes of one deployment on one real database (the embedded one belongs to a single process).
const onRealServer = process.env.TEST_DATABASE_URL || process.env.CI === 'true' ? describe : describe.skip;

/** A webhook endpoint that holds the first delivery of each webhook-id unanswered, and answers later ones. */
async function startHoldingReceiver() {
  const seen: { id: string; at: number }[] = [];
  const server = http.createServer((req, res) => {
    // the held delivery's sender is SIGKILLed: its socket resets, which is the point, not a failure
    req.on('error', () => {});
    res.on('error', () => {});
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      const first = !seen.some((s) => s.id === id);
      seen.push({ id, at: Date.now() });
      if (!first) res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    seen,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function startChild(env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port), NODE_OPTIONS: '' }, stdio: 'ignore' });
  return eventually(async () => {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      return (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200 ? child : undefined;
    } catch {
      return undefined;
    }
  }, 120_000, 'the service to start');
}

onRealServer('SIGKILL mid-send (real PostgreSQL; set TEST_DATABASE_URL to run)', () => {
  it('delivers the webhook and the email after a restart, the webhook with the same webhook-id', async () => {
    const created = await createRealDatabase(SHARED_PG_URL);
    const receiver = await startHoldingReceiver();
    const smtp = await startSmtp({ answer: (i) => (i === 0 ? 'hold' : 'accept') });
    const env = {
      DATABASE_URL: created.url,
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'paycollect-kill-')),
      MASTER_KEY: randomBytes(32).toString('base64'),
      JWT_SECRET: randomBytes(32).toString('base64url'),
      OPERATOR_API_KEY: 'op_sigkill_test_0123456789',
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      SEED_DEMO: 'false',
    };
    const database = await openPostgres(created.url, 2);
    let child: ChildProcess | null = null;
    try {
      const port = await freePort();
      child = await startChild(env, port);
      // this test's own view of the deployment's database, with the same MASTER_KEY
      const s = buildServices({ config: loadConfig({ ...env, PORT: '0' }), db: database.db, log: createLogger(() => undefined, 'error'), now: () => new Date() });
      const m = await createNotifyMerchant(s, { webhookUrl: receiver.url, emailMerchant: true, notificationEmail: 'owner@shop.example' });
      const c = await createPendingCollection(s, m);
      await finishCollection(s, c.id);
      await eventually(() => receiver.seen.length >= 1 && smtp.received() >= 1, 60_000, 'a webhook and an email under way');
      const claims = await database.db.any<{ what: string; next_attempt_at: Date; claimed_by: string | null }>(
        `SELECT 'webhook' AS what, next_attempt_at, claimed_by FROM notifications WHERE collection_id = $1
         UNION ALL SELECT 'email', next_attempt_at, claimed_by FROM emails WHERE collection_id = $1 AND sent_at IS NULL`,
        [c.id],
      );
      expect(claims.some((x) => x.what === 'webhook' && x.claimed_by !== null)).toBe(true);
      expect(claims.some((x) => x.what === 'email' && x.claimed_by !== null)).toBe(true);

      child.kill('SIGKILL');
      await new Promise((r) => child!.once('exit', r));
      child = await startChild(env, port);
      const restartedAt = Date.now();

      const delivered = await eventually(
        () => database.db.oneOrNone<{ event_id: string; delivered_at: Date }>('SELECT event_id, delivered_at FROM notifications WHERE collection_id = $1 AND delivered_at IS NOT NULL', [c.id]),
        90_000,
        'the webhook delivered by the next process',
      );
      expect(receiver.seen.map((x) => x.id)).toEqual([delivered.event_id, delivered.event_id]);
      await eventually(async () => (await database.db.one('SELECT bool_and(sent_at IS NOT NULL) AS all_sent FROM emails WHERE collection_id = $1', [c.id])).all_sent, 90_000, 'the emails sent');
      expect(smtp.mails.length).toBeGreaterThanOrEqual(1);
      // neither waited for the end of its lease: the dead process's claims were freed once it went silent
      const sent = await database.db.many<{ sent_at: Date }>('SELECT sent_at FROM emails WHERE collection_id = $1', [c.id]);
      // (a restart slower than a lease proves nothing about that lease, so such a claim is not judged)
      for (const claim of claims) {
        if (restartedAt + LIVENESS_STALE_MS >= claim.next_attempt_at.getTime()) continue;
        const done = claim.what === 'webhook' ? delivered.delivered_at : new Date(Math.max(...sent.map((x) => x.sent_at.getTime())));
        expect(done.getTime()).toBeLessThan(claim.next_attempt_at.getTime());
      }
    } finally {
      if (child && child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child!.once('exit', r));
      }
      await smtp.close();
      await receiver.close();
      await database.close();
      await created.drop();
    }
  }, 300_000);
});
