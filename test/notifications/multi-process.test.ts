// Proves two service processes sharing one PostgreSQL database deliver each webhook attempt exactly
// once (real server: FOR UPDATE SKIP LOCKED and leases across connections), retries included.
import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/db';
import { openPostgres, pgp } from '../../src/db';
import { createRealDatabase, SHARED_PG_URL } from '../helpers/db';
import { needsRealServer } from '../helpers/requires';
import { createNotifyMerchant, createPendingCollection, eventually, finishCollection, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const COLLECTIONS = 60;
// one deployment: every process shares MASTER_KEY (webhook hashes and card keys are sealed with it)
const env = { WEBHOOK_RETRY_SCHEDULE: '0s,100ms,100ms,100ms', MASTER_KEY: randomBytes(32).toString('base64') };

/**
 * pg's pool.end() resolves before its sockets have closed; DROP DATABASE ... WITH (FORCE) would then
 * kill a closing session and its client would raise an unhandled error. Wait until none is left.
 */
async function closedSessions(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const server = pgp({ connectionString: SHARED_PG_URL, max: 1 });
  try {
    await eventually(async () => (await server.one('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name])).n === 0, 5000, 'sessions to close');
  } finally {
    await server.$pool.end();
  }
}

needsRealServer().it('delivers each attempt once with two processes on one database', async () => {
  const created = await createRealDatabase(SHARED_PG_URL);
  const pools: Database[] = [];
  const services: TestService[] = [];
  let receiver: Receiver | null = null;
  try {
    for (let i = 0; i < 2; i++) {
      pools.push(await openPostgres(created.url));
      services.push(await startTestService({ env, database: pools[i] }));
    }
    const seen = new Map<string, number>();
    // every third notification is refused on its first delivery, so retries race too
    receiver = await startReceiver(0, (r) => {
      const id = String(r.headers['webhook-id']);
      const count = (seen.get(id) ?? 0) + 1;
      seen.set(id, count);
      return JSON.parse(r.body).id % 3 === 0 && count === 1 ? { status: 503 } : { status: 200 };
    });
    const [a, b] = services;
    const m = await createNotifyMerchant(a.services, { webhookUrl: receiver.url });
    const rows = [];
    for (let i = 0; i < COLLECTIONS; i++) rows.push(await createPendingCollection(a.services, m));
    await Promise.all(rows.map((r, i) => finishCollection((i % 2 ? a : b).services, r.id)));

    const db = pools[0].db;
    await eventually(
      async () => (await db.one('SELECT count(*)::int AS n FROM notifications WHERE delivered_at IS NULL')).n === 0,
      30_000,
      'every notification delivered',
    );
    const notes = await db.any<{ id: bigint; event_id: string; attempts: number; collection_id: bigint }>(
      'SELECT id, event_id, attempts, collection_id FROM notifications',
    );
    expect(notes).toHaveLength(COLLECTIONS);
    for (const n of notes) {
      const logged = await db.one<{ n: number }>('SELECT count(*)::int AS n FROM notification_attempts WHERE notification_id = $1', [n.id]);
      const expected = Number(n.collection_id) % 3 === 0 ? 2 : 1;
      expect([n.event_id, seen.get(n.event_id)]).toEqual([n.event_id, expected]);
      expect(n.attempts).toBe(expected);
      expect(logged.n).toBe(expected);
    }
    expect(receiver.received).toHaveLength([...seen.values()].reduce((x, y) => x + y, 0));
    const sent = services.map((s) => s.logs.filter((l) => /"msg":"webhook (delivered|attempt failed)"/.test(l)).length);
    // both processes took part, and together made exactly the attempts logged
    expect(sent.every((n) => n > 0)).toBe(true);
    expect(sent[0] + sent[1]).toBe(receiver.received.length);
  } finally {
    for (const s of services) await s.close();
    for (const p of pools) await p.close();
    await receiver?.close();
    await closedSessions(created.url);
    await created.drop();
  }
});
