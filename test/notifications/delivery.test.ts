// Proves webhook delivery to a real HTTP receiver: Standard Webhooks signatures over the exact bytes,
// retries with one webhook-id and every attempt logged, in-order delivery per record, no redirects,
// timeouts, refused connections, a failure after a re-send took the notification over and delivered it
// (logged, but the notification keeps no error) and a truncated response log.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import YAML from 'yaml';
import { makeAjv } from '../../src/http/app';
import { toRecord } from '../../src/api-records/collection';
import {
  attemptsOf,
  createNotifyMerchant,
  createPendingCollection,
  eventually,
  finishCollection,
  freePort,
  notificationsOf,
  startReceiver,
} from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let receiver: Receiver;

/** The webhook body's schema, from the bundled merchant document. */
function notificationSchema() {
  const doc = YAML.parse(readFileSync(path.resolve(__dirname, '../../generated/openapi.yaml'), 'utf8'));
  const ajv = makeAjv();
  ajv.addSchema(doc, 'openapi');
  return ajv.compile({ $ref: 'openapi#/components/schemas/CollectionNotification' });
}

beforeAll(async () => {
  svc = await startTestService({ env: { WEBHOOK_RETRY_SCHEDULE: '0s,200ms,200ms' } });
  receiver = await startReceiver();
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.respond = () => ({ status: 200, body: '{"received":true}' });
  svc.services.notifications.webhookTimeoutMs = 10_000;
});

/** A merchant whose webhook is `url`, and one of its collections moved to COMPLETED. */
async function completedCollection(url = receiver.url) {
  const m = await createNotifyMerchant(svc.services, { webhookUrl: url });
  const pending = await createPendingCollection(svc.services, m);
  const row = await finishCollection(svc.services, pending.id);
  return { m, row };
}

const settled = (n: { delivered_at: Date | null; gave_up_at: Date | null }) => n.delivered_at !== null || n.gave_up_at !== null;

async function settledNotification(collectionId: bigint) {
  return eventually(async () => {
    const [n] = await notificationsOf(svc.services, collectionId);
    return n && settled(n) ? n : null;
  }, 15_000, 'the notification to be delivered or given up');
}

describe('webhook delivery', () => {
  it('signs the exact bytes sent so that an independent Standard Webhooks verifier accepts them', async () => {
    const { m, row } = await completedCollection();
    const n = await settledNotification(row.id);
    expect(n.delivered_at).not.toBeNull();
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0];
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('PayCollect-Webhooks/1');
    expect(got.headers['webhook-id']).toBe(n.event_id);
    expect(got.headers['webhook-id']).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(got.body).toBe(n.body);
    expect(JSON.parse(got.body)).toEqual({ ...toRecord(row), sequence: 1 });
    expect(JSON.parse(got.body).transaction_status).toBe('COMPLETED');
    const valid = notificationSchema();
    expect([valid(JSON.parse(got.body)), valid.errors]).toEqual([true, null]);
    expect(valid({ ...JSON.parse(got.body), sequence: 0 })).toBe(false);

    const verifier = new Webhook(Buffer.from(m.webhookHash, 'utf8').toString('base64'));
    const headers = {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    };
    expect(verifier.verify(got.body, headers)).toEqual(JSON.parse(got.body));
    // the raw-bytes form the webhook documentation shows merchants
    expect(() => new Webhook(new TextEncoder().encode(m.webhookHash), { format: 'raw' }).verify(got.body, headers)).not.toThrow();

    const tampered = got.body.replace('"COMPLETED"', '"FAILED"');
    expect(tampered).not.toBe(got.body);
    expect(() => verifier.verify(tampered, headers)).toThrow();
    expect(() => verifier.verify(got.body.replace(/}$/, ' }'), headers)).toThrow();
    expect(() => new Webhook(Buffer.from('another-hash-0123456789').toString('base64')).verify(got.body, headers)).toThrow();
  });

  it('retries a receiver that fails twice, with one webhook-id, and records all three attempts', async () => {
    receiver.respond = (_r, i) => (i < 2 ? { status: 503, body: 'Service Unavailable' } : { status: 200, body: 'ok' });
    const { row } = await completedCollection();
    const n = await settledNotification(row.id);
    expect(n.delivered_at).not.toBeNull();
    expect(n.attempts).toBe(3);
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([n.event_id]));
    expect(new Set(receiver.received.map((r) => r.body))).toEqual(new Set([n.body]));
    const attempts = await attemptsOf(svc.services, n.id);
    expect(attempts.map((a) => [a.attempt, a.http_status, a.error, a.response_body])).toEqual([
      [1, 503, 'HTTP 503', 'Service Unavailable'],
      [2, 503, 'HTTP 503', 'Service Unavailable'],
      [3, 200, null, 'ok'],
    ]);
    for (const a of attempts) expect(a.duration_ms).toBeGreaterThanOrEqual(0);
    // the schedule's 200 ms waits lie between the attempts
    expect(receiver.received[1].at - receiver.received[0].at).toBeGreaterThanOrEqual(150);
  });

  it('gives up when the schedule is exhausted, every attempt recorded', async () => {
    receiver.respond = () => ({ status: 500, body: 'boom' });
    const { row } = await completedCollection();
    const n = await settledNotification(row.id);
    expect(n.delivered_at).toBeNull();
    expect(n.gave_up_at).not.toBeNull();
    expect(n.next_attempt_at).toBeNull();
    expect(n.last_error).toBe('HTTP 500');
    expect(receiver.received).toHaveLength(3);
    expect((await attemptsOf(svc.services, n.id)).map((a) => a.http_status)).toEqual([500, 500, 500]);
  });

  it('delivers one record in order: a later notification waits for an earlier undelivered one', async () => {
    const sequences: number[] = [];
    receiver.respond = (r) => {
      const seq = JSON.parse(r.body).sequence as number;
      sequences.push(seq);
      // the first notification is refused twice before it is acknowledged
      return seq === 1 && sequences.filter((s) => s === 1).length <= 2 ? { status: 500 } : { status: 204 };
    };
    const m = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url });
    const pending = await createPendingCollection(svc.services, m);
    // FAILED, then credited late (a success held after that word, resolved by an operator): two
    // notifications of one record, committed together
    await svc.services.db.tx(async (t) => {
      expect(await svc.services.collections.move(t, pending.id, 'FAILED')).not.toBeNull();
      expect(await svc.services.collections.move(t, pending.id, 'COMPLETED', undefined, 'FAILED')).not.toBeNull();
    });
    svc.services.workers?.kick('webhooks');
    await eventually(async () => (await notificationsOf(svc.services, pending.id)).every((n) => n.delivered_at !== null), 15_000, 'all delivered');
    expect(sequences).toEqual([1, 1, 1, 2]);
    const all = await notificationsOf(svc.services, pending.id);
    expect(all.map((n) => n.sequence)).toEqual([1, 2]);
    expect(all[0].delivered_at!.getTime()).toBeLessThanOrEqual(all[1].delivered_at!.getTime());
    expect(new Set(all.map((n) => n.event_id)).size).toBe(2);
  });

  it('does not follow a redirect: a 3xx is a failed attempt and the target is never called', async () => {
    receiver.respond = (r) =>
      r.path === '/hooks' ? { status: 302, headers: { location: receiver.url.replace('/hooks', '/elsewhere') } } : { status: 200 };
    const { row } = await completedCollection();
    const n = await settledNotification(row.id);
    expect(n.gave_up_at).not.toBeNull();
    expect(receiver.received.map((r) => r.path)).toEqual(['/hooks', '/hooks', '/hooks']);
    const attempts = await attemptsOf(svc.services, n.id);
    expect(attempts.map((a) => [a.http_status, a.error])).toEqual(Array(3).fill([302, 'HTTP 302 (redirects are not followed)']));
  });

  it('records a refused connection and retries it per the schedule', async () => {
    const { row } = await completedCollection(`http://127.0.0.1:${await freePort()}/hooks`);
    const n = await settledNotification(row.id);
    expect(n.gave_up_at).not.toBeNull();
    const attempts = await attemptsOf(svc.services, n.id);
    expect(attempts.map((a) => [a.attempt, a.http_status, a.error, a.response_body])).toEqual([
      [1, null, 'connection refused', null],
      [2, null, 'connection refused', null],
      [3, null, 'connection refused', null],
    ]);
  });

  it('times out a receiver that does not answer and retries it', async () => {
    svc.services.notifications.webhookTimeoutMs = 300;
    receiver.respond = (_r, i) => (i === 0 ? 'hang' : { status: 200 });
    const { row } = await completedCollection();
    const n = await settledNotification(row.id);
    expect(n.delivered_at).not.toBeNull();
    const attempts = await attemptsOf(svc.services, n.id);
    expect(attempts.map((a) => [a.http_status, a.error])).toEqual([
      [null, 'timeout after 300 ms'],
      [200, null],
    ]);
    expect(attempts[0].duration_ms).toBeGreaterThanOrEqual(250);
    expect(attempts[0].duration_ms).toBeLessThan(5000);
  });

  it('logs an attempt that fails after a re-send took the notification over and delivered it, but leaves it delivered without an error: the re-send owns the schedule', async () => {
    svc.services.notifications.webhookTimeoutMs = 1500;
    receiver.respond = (_r, i) => (i === 0 ? 'hang' : { status: 200 });
    const { m, row } = await completedCollection();
    await eventually(() => receiver.received.length === 1, 5000, 'the first attempt to hang');
    // re-sent while the first attempt hangs: claimed again and delivered; the first then times out
    const resent = await svc.merchant(m.jwt).post(`/v1/collections/${row.gateway_reference}/notify`);
    expect(resent.status).toBe(200);
    const n = await eventually(async () => {
      const [x] = await notificationsOf(svc.services, row.id);
      return x.attempts === 2 ? x : null;
    }, 10_000, 'both attempts recorded');
    // delivered: the late failure is in the log, not the notification's last error
    expect(n).toMatchObject({ last_error: null, next_attempt_at: null, gave_up_at: null });
    expect(n.delivered_at).not.toBeNull();
    expect((await attemptsOf(svc.services, n.id)).map((a) => [a.attempt, a.http_status, a.error])).toEqual([
      [1, 200, null],
      [2, null, 'timeout after 1500 ms'],
    ]);
    // the failure scheduled nothing: no third send (the retry schedule's next step is 200 ms)
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.received).toHaveLength(2);
    expect((await notificationsOf(svc.services, row.id))[0]).toMatchObject({ attempts: 2, next_attempt_at: null, gave_up_at: null });
  });

  it("does not hold up other collections' notifications while an endpoint hangs", async () => {
    svc.services.notifications.webhookTimeoutMs = 3000;
    let hanging = true;
    receiver.respond = (r) => (r.path === '/slow' && hanging ? 'hang' : { status: 200 });
    const slow = await completedCollection(receiver.url.replace('/hooks', '/slow'));
    await eventually(() => receiver.received.some((r) => r.path === '/slow'), 5000, 'the slow endpoint to be called');
    const started = Date.now();
    const fast = await completedCollection();
    const n = await settledNotification(fast.row.id);
    expect(n.delivered_at).not.toBeNull();
    expect(Date.now() - started).toBeLessThan(2500);
    hanging = false;
    const s = await settledNotification(slow.row.id);
    expect((await attemptsOf(svc.services, s.id)).map((a) => a.error)).toEqual(['timeout after 3000 ms', null]);
  });

  it('keeps at most 1 KiB of the response body in the log', async () => {
    receiver.respond = () => ({ status: 500, body: 'x'.repeat(5000) });
    const { row } = await completedCollection();
    const n = await settledNotification(row.id);
    for (const a of await attemptsOf(svc.services, n.id)) expect(a.response_body).toBe('x'.repeat(1024));
  });

  it('sends consecutive notifications to one endpoint over one kept-alive connection, and never reuses one whose answer was cut', async () => {
    let connections = 0;
    let answer = 'ok';
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(answer));
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const m = await createNotifyMerchant(svc.services, { webhookUrl: url });
      const deliver = async () => {
        const row = await finishCollection(svc.services, (await createPendingCollection(svc.services, m)).id);
        expect((await settledNotification(row.id)).delivered_at).not.toBeNull();
      };
      await deliver();
      await deliver();
      expect(connections).toBe(1);
      // an answer longer than the log keeps is cut off, and its socket is closed rather than reused
      answer = 'y'.repeat(5000);
      await deliver();
      answer = 'ok';
      await deliver();
      expect(connections).toBe(2);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('sends nothing while the collection is PENDING and nothing for a record without an API token', async () => {
    const m = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url });
    const pending = await createPendingCollection(svc.services, m);
    await svc.services.db.none('UPDATE collections SET api_token_id = NULL WHERE id = $1', [pending.id]);
    await finishCollection(svc.services, pending.id);
    await new Promise((r) => setTimeout(r, 500));
    expect(await notificationsOf(svc.services, pending.id)).toEqual([]);
    expect(receiver.received).toHaveLength(0);
  });
});
