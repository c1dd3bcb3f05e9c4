// Proves GET /v1/collections/{gateway_reference}/notifications: each notification of the caller's record
// with every delivery attempt, nothing for a PENDING record, 404 for another business's record.
import {
  createNotifyMerchant,
  createPendingCollection,
  eventually,
  finishCollection,
  freePort,
  notificationsOf,
  startReceiver,
} from '../helpers/notify-fixtures';
import type { NotifyMerchant, Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let receiver: Receiver;
let owner: NotifyMerchant;
let other: NotifyMerchant;

beforeAll(async () => {
  svc = await startTestService({ env: { WEBHOOK_RETRY_SCHEDULE: '0s,200ms,200ms' } });
  // the first delivery of each notification is refused with a 503, the second acknowledged
  const seen = new Set<string>();
  receiver = await startReceiver(0, (r) => {
    const id = String(r.headers['webhook-id']);
    if (seen.has(id)) return { status: 200, body: '{"received":true}' };
    seen.add(id);
    return { status: 503, body: 'Service Unavailable' };
  });
  owner = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url });
  other = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url });
});
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

const path = (ref: string) => `/v1/collections/${ref}/notifications`;

describe('listCollectionNotifications', () => {
  it('lists the notification with each attempt: status or error, duration and response body', async () => {
    const pending = await createPendingCollection(svc.services, owner);
    await finishCollection(svc.services, pending.id);
    await eventually(async () => (await notificationsOf(svc.services, pending.id))[0]?.delivered_at, 10_000, 'delivery');
    const [n] = await notificationsOf(svc.services, pending.id);

    const res = await svc.merchant(owner.jwt).get(path(pending.gateway_reference));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 200, status: 'success', message: 'Notifications retrieved' });
    expect(res.body.data).toEqual([
      {
        event_id: n.event_id,
        sequence: 1,
        transaction_status: 'COMPLETED',
        created_at: n.created_at.toISOString().slice(0, 19) + 'Z',
        delivered: true,
        delivered_at: n.delivered_at!.toISOString().slice(0, 19) + 'Z',
        next_attempt_at: null,
        attempts: [
          { attempt: 1, at: expect.any(String), http_status: 503, error: 'HTTP 503', duration_ms: expect.any(Number), response_body: 'Service Unavailable' },
          { attempt: 2, at: expect.any(String), http_status: 200, error: null, duration_ms: expect.any(Number), response_body: '{"received":true}' },
        ],
      },
    ]);
  });

  it('shows an undelivered notification that was given up, with its errors and no next attempt', async () => {
    const down = await createNotifyMerchant(svc.services, { webhookUrl: `http://127.0.0.1:${await freePort()}/hooks` });
    const pending = await createPendingCollection(svc.services, down);
    await finishCollection(svc.services, pending.id, 'FAILED');
    await eventually(async () => (await notificationsOf(svc.services, pending.id))[0]?.gave_up_at, 10_000, 'give-up');
    const res = await svc.merchant(down.jwt).get(path(pending.gateway_reference));
    expect(res.status).toBe(200);
    const [entry] = res.body.data;
    expect(entry).toMatchObject({ transaction_status: 'FAILED', delivered: false, delivered_at: null, next_attempt_at: null });
    expect(entry.attempts.map((a: { error: string; http_status: number | null }) => [a.http_status, a.error])).toEqual(
      Array(3).fill([null, 'connection refused']),
    );
  });

  it('answers an empty list for a PENDING collection', async () => {
    const pending = await createPendingCollection(svc.services, owner);
    const res = await svc.merchant(owner.jwt).get(path(pending.gateway_reference));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it("answers 404 for another business's collection and for an unknown reference", async () => {
    const theirs = await createPendingCollection(svc.services, other);
    await finishCollection(svc.services, theirs.id);
    for (const ref of [theirs.gateway_reference, 'PCLNOSUCHREF0001']) {
      const res = await svc.merchant(owner.jwt).get(path(ref));
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', status: 'error', data: null });
    }
  });

  it('answers 401 without an access token', async () => {
    const pending = await createPendingCollection(svc.services, owner);
    const res = await svc.anon.get(path(pending.gateway_reference));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });
});
