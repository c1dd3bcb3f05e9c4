// Proves the fallback of the delivered-attempt record: when the database refuses the one statement that
// records a batch of delivered webhooks (record-delivered.sql), each attempt of the batch is written again
// alone, so every notification is still recorded exactly once: one delivered attempt row, the notification
// marked delivered and free, nothing sent twice. A real worker sends to a real receiver that answers only
// once it holds every request, so the answers come back together and gather into one batch; the refusal
// is the test database's own (a trigger this file creates and drops), for the first statement that logs
// more than one attempt.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNotifyMerchant, createPendingCollection, eventually, finishCollection } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

/** notifications sent at once: the first two records go alone (two slots), the rest wait and go together */
const HELD = 12;

let svc: TestService;
let server: http.Server;
let url: string;
const received: string[] = [];
const holding: http.ServerResponse[] = [];

const db = () => svc.services.db;

beforeAll(async () => {
  // the receiver answers nothing until it holds HELD requests, then answers them all at once
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      holding.push(res);
      if (holding.length < HELD) return;
      for (const r of holding.splice(0)) r.writeHead(200, { 'content-type': 'text/plain' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  svc = await startTestService();
  // the refusal: once, for the first statement that logs several attempts (a sequence counts outside the
  // refused transaction); a lone attempt is never refused
  await db().none(`
    CREATE SEQUENCE test_refused_batches;
    CREATE FUNCTION test_refuse_batch_once() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (SELECT count(*) FROM added) > 1 THEN
        IF nextval('test_refused_batches') = 1 THEN
          RAISE EXCEPTION 'this test refuses the first batch of delivered attempts' USING ERRCODE = 'check_violation';
        END IF;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER test_refuse_batch_once AFTER INSERT ON notification_attempts
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION test_refuse_batch_once();`);
}, 180_000);
afterAll(async () => {
  await svc?.services.db.none('DROP TRIGGER IF EXISTS test_refuse_batch_once ON notification_attempts; DROP FUNCTION IF EXISTS test_refuse_batch_once(); DROP SEQUENCE IF EXISTS test_refused_batches');
  for (const r of holding.splice(0)) r.destroy();
  await svc?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it('records each delivered webhook of a refused batch once, alone: one attempt row, delivered, not sent again', async () => {
  const m = await createNotifyMerchant(svc.services, { webhookUrl: url });
  const collections: bigint[] = [];
  for (let i = 0; i < HELD; i++) {
    const pending = await createPendingCollection(svc.services, m);
    collections.push((await finishCollection(svc.services, pending.id)).id);
  }
  const rows = () =>
    db().any<{ event_id: string; attempts: number; delivered: boolean; claimed_by: string | null; next_attempt_at: Date | null; logged: { attempt: number; http_status: number | null; error: string | null }[] }>(
      `SELECT n.event_id, n.attempts, n.delivered_at IS NOT NULL AS delivered, n.claimed_by, n.next_attempt_at,
         COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'http_status', a.http_status, 'error', a.error) ORDER BY a.attempt)
                   FROM notification_attempts a WHERE a.notification_id = n.id), '[]') AS logged
       FROM notifications n WHERE n.collection_id = ANY($1::bigint[]) ORDER BY n.id`,
      [collections],
    );
  const done = await eventually(async () => {
    const r = await rows();
    return r.length === HELD && r.every((n) => n.delivered) ? r : undefined;
  }, 30_000, `${HELD} notifications delivered`);

  // the database refused one batch of several, and the worker wrote its attempts again one by one
  const refusals = svc.logs.filter((l) => l.includes('a batch of delivered webhooks was refused: recorded one by one'));
  expect(refusals).toHaveLength(1);
  const refused = JSON.parse(refusals[0]) as { size: number; err: { message: string } };
  expect(refused.size).toBeGreaterThan(1);
  expect(refused.err.message).toContain('this test refuses the first batch of delivered attempts');

  // each recorded exactly once: one delivered attempt, the row closed and free
  for (const n of done) {
    expect(n).toMatchObject({ attempts: 1, delivered: true, claimed_by: null, next_attempt_at: null });
    expect(n.logged).toEqual([{ attempt: 1, http_status: 200, error: null }]);
  }
  // each sent once, and nothing is sent again (a record lost would leave its row claimed, sent again later)
  expect([...received].sort()).toEqual(done.map((n) => n.event_id).sort());
  await new Promise((r) => setTimeout(r, 1000));
  expect(received).toHaveLength(HELD);
  expect(svc.logs.filter((l) => l.includes('"msg":"webhook delivered"'))).toHaveLength(HELD);
});
