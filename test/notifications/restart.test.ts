// Proves a notification survives a service restart: a receiver down across the restart still gets it
// afterwards from the next process, with the same webhook-id and every attempt logged.
import { randomBytes } from 'node:crypto';
import { freshDatabase } from '../helpers/db';
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
import { startTestService } from '../helpers/service';

// one deployment: every process shares MASTER_KEY (webhook hashes and card keys are sealed with it)
const env = { WEBHOOK_RETRY_SCHEDULE: '0s,200ms,1s,1s,1s,1s,1s,1s,1s,1s', MASTER_KEY: randomBytes(32).toString('base64') };

it('delivers after a restart what could not be delivered before it', async () => {
  const database = await freshDatabase();
  const port = await freePort();
  const first = await startTestService({ env, database });
  let second: Awaited<ReturnType<typeof startTestService>> | null = null;
  const receiver = { close: async () => {} } as Awaited<ReturnType<typeof startReceiver>>;
  try {
    const m = await createNotifyMerchant(first.services, { webhookUrl: `http://127.0.0.1:${port}/hooks` });
    const pending = await createPendingCollection(first.services, m);
    await finishCollection(first.services, pending.id);
    await eventually(async () => (await notificationsOf(first.services, pending.id))[0]?.attempts >= 1, 10_000, 'a failed attempt');
    await first.close();
    const [before] = await notificationsOf(first.services, pending.id);
    expect(before.delivered_at).toBeNull();
    expect(before.gave_up_at).toBeNull();

    Object.assign(receiver, await startReceiver(port));
    second = await startTestService({ env, database });
    const n = await eventually(async () => {
      const [x] = await notificationsOf(second!.services, pending.id);
      return x.delivered_at ? x : null;
    }, 15_000, 'delivery by the second process');
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0].headers['webhook-id']).toBe(before.event_id);
    expect(receiver.received[0].body).toBe(before.body);
    const attempts = await attemptsOf(second.services, n.id);
    expect(attempts.length).toBe(before.attempts + 1);
    expect(attempts.slice(0, -1).every((a) => a.error === 'connection refused')).toBe(true);
    expect(attempts[attempts.length - 1]).toMatchObject({ http_status: 200, error: null });
    expect(attempts.map((a) => a.attempt)).toEqual(attempts.map((_, i) => i + 1));
  } finally {
    await second?.close();
    await first.close();
    await receiver.close();
    await database.close();
  }
});
