// Proves POST /v1/collections/{gateway_reference}/notify: the latest notification of a final record goes
// out again with the same webhook-id and body, freshly signed, on the full retry schedule; a PENDING
// record is 400 INVALID_STATE and another business's record 404, both changing nothing.
import { Webhook } from 'standardwebhooks';
import {
  attemptsOf,
  createNotifyMerchant,
  createPendingCollection,
  eventually,
  finishCollection,
  notificationsOf,
  completeLate,
  startReceiver,
} from '../helpers/notify-fixtures';
import type { NotifyMerchant, Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let receiver: Receiver;
let owner: NotifyMerchant;

beforeAll(async () => {
  svc = await startTestService({ env: { WEBHOOK_RETRY_SCHEDULE: '0s,200ms,200ms' } });
  receiver = await startReceiver();
  owner = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url });
});
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.respond = () => ({ status: 200 });
});

const path = (ref: string) => `/v1/collections/${ref}/notify`;

async function settled(collectionId: bigint, sequence = 1) {
  return eventually(async () => {
    const n = (await notificationsOf(svc.services, collectionId)).find((x) => x.sequence === sequence);
    return n && (n.delivered_at || n.gave_up_at) ? n : null;
  }, 10_000, 'a settled notification');
}

describe('resendNotification', () => {
  it('re-sends a delivered notification with the same webhook-id and body, signed afresh', async () => {
    const pending = await createPendingCollection(svc.services, owner);
    await finishCollection(svc.services, pending.id);
    const first = await settled(pending.id);
    expect(receiver.received).toHaveLength(1);

    const res = await svc.merchant(owner.jwt).post(path(pending.gateway_reference));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 200, status: 'accepted', message: 'Notification re-send queued' });
    expect(res.body.data).toMatchObject({ event_id: first.event_id, sequence: 1, transaction_status: 'COMPLETED', delivered: false, delivered_at: null });
    expect(res.body.data.next_attempt_at).toEqual(expect.any(String));
    expect(res.body.data.attempts).toHaveLength(1);

    await eventually(() => receiver.received.length === 2, 10_000, 'the re-send');
    const again = receiver.received[1];
    expect(again.headers['webhook-id']).toBe(first.event_id);
    expect(again.body).toBe(first.body);
    const verifier = new Webhook(Buffer.from(owner.webhookHash, 'utf8').toString('base64'));
    expect(() => verifier.verify(again.body, again.headers as Record<string, string>)).not.toThrow();
    const n = await settled(pending.id);
    expect(n.delivered_at).not.toBeNull();
    expect((await attemptsOf(svc.services, n.id)).map((a) => a.attempt)).toEqual([1, 2]);
  });

  it('restarts the full retry schedule for a notification that was given up', async () => {
    receiver.respond = () => ({ status: 500 });
    const pending = await createPendingCollection(svc.services, owner);
    await finishCollection(svc.services, pending.id, 'CANCELLED');
    const gaveUp = await settled(pending.id);
    expect(gaveUp.gave_up_at).not.toBeNull();
    expect(gaveUp.attempts).toBe(3);

    const res = await svc.merchant(owner.jwt).post(path(pending.gateway_reference));
    expect(res.status).toBe(200);
    expect(res.body.data.attempts).toHaveLength(3);
    const n = await eventually(async () => {
      const [x] = await notificationsOf(svc.services, pending.id);
      return x.gave_up_at && x.attempts === 6 ? x : null;
    }, 10_000, 'three more attempts');
    expect((await attemptsOf(svc.services, n.id)).map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([n.event_id]));
  });

  it('re-sends only the latest notification of the record', async () => {
    const pending = await createPendingCollection(svc.services, owner);
    await finishCollection(svc.services, pending.id, 'EXPIRED');
    await completeLate(svc.services, pending.id);
    const latest = await settled(pending.id, 2);
    receiver.received.length = 0;
    const res = await svc.merchant(owner.jwt).post(path(pending.gateway_reference));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ event_id: latest.event_id, sequence: 2 });
    await eventually(() => receiver.received.length === 1, 10_000, 'the re-send');
    expect(JSON.parse(receiver.received[0].body).sequence).toBe(2);
  });

  it('answers 400 INVALID_STATE for a PENDING record and changes nothing', async () => {
    const pending = await createPendingCollection(svc.services, owner);
    const res = await svc.merchant(owner.jwt).post(path(pending.gateway_reference));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_STATE', status: 'error' });
    expect(await notificationsOf(svc.services, pending.id)).toEqual([]);
    const row = await svc.services.db.one('SELECT status, notification_seq FROM collections WHERE id = $1', [pending.id]);
    expect(row).toEqual({ status: 'PENDING', notification_seq: 0 });
  });

  it("answers 404 for another business's record and for an unknown reference, changing nothing", async () => {
    const other = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url });
    const theirs = await createPendingCollection(svc.services, other);
    await finishCollection(svc.services, theirs.id);
    const before = await settled(theirs.id);
    const sent = receiver.received.length;
    for (const ref of [theirs.gateway_reference, 'PCLNOSUCHREF0001']) {
      const res = await svc.merchant(owner.jwt).post(path(ref));
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', data: null });
    }
    const [after] = await notificationsOf(svc.services, theirs.id);
    expect(after).toEqual(before);
    await new Promise((r) => setTimeout(r, 400));
    expect(receiver.received).toHaveLength(sent);
  });

  it('answers 401 without an access token', async () => {
    const res = await svc.anon.post(path('PCLNOSUCHREF0001'));
    expect(res.status).toBe(401);
  });
});
