// Proves that merchants whose webhook endpoints accept connections and never answer, or trickle bytes, hold only their own share of deliveries: another merchant's webhooks go out while theirs hang.
import net from 'node:net';
import { MAX_IN_FLIGHT_PER_ENDPOINT } from '../../src/notifications/webhook-worker';
import { createNotifyMerchant, createPendingCollection, eventually, finishCollection, startReceiver } from '../helpers/notify-fixtures';
import type { NotifyMerchant, Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

/** per bad endpoint: together more than the process's whole in-flight limit */
const DEAD_NOTIFICATIONS = 150;
const HEALTHY_NOTIFICATIONS = 30;

/** A TCP endpoint that accepts and then either says nothing or trickles an HTTP answer a byte at a time. */
async function startBadEndpoint(kind: 'hang' | 'trickle') {
  const sockets = new Set<net.Socket>();
  let open = 0;
  let maxOpen = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    open += 1;
    maxOpen = Math.max(maxOpen, open);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      open -= 1;
    });
    if (kind === 'trickle') {
      const answer = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok';
      let i = 0;
      const timer = setInterval(() => {
        if (i < answer.length - 1 && !socket.destroyed) socket.write(answer[i++]);
      }, 500);
      socket.on('close', () => clearInterval(timer));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    connections: () => ({ open, maxOpen }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('webhook fairness between endpoints', () => {
  let svc: TestService;
  let healthy: Receiver;
  let hang: Awaited<ReturnType<typeof startBadEndpoint>>;
  let trickle: Awaited<ReturnType<typeof startBadEndpoint>>;

  beforeAll(async () => {
    svc = await startTestService();
    healthy = await startReceiver();
    hang = await startBadEndpoint('hang');
    trickle = await startBadEndpoint('trickle');
  }, 60_000);

  afterAll(async () => {
    await hang?.close();
    await trickle?.close();
    await healthy?.close();
    await svc?.close();
  });

  async function notify(m: NotifyMerchant, count: number): Promise<bigint[]> {
    const ids: bigint[] = [];
    for (let i = 0; i < count; i += 10) {
      const made = await Promise.all(
        Array.from({ length: Math.min(10, count - i) }, async () => {
          const c = await createPendingCollection(svc.services, m);
          await finishCollection(svc.services, c.id);
          return c.id;
        }),
      );
      ids.push(...made);
    }
    return ids;
  }

  it("delivers a healthy merchant's webhooks while two others' endpoints hang", async () => {
    const s = svc.services;
    // longer than this test: no hanging send ends on its own, so nobody can be served by waiting for one
    s.notifications.webhookTimeoutMs = 120_000;
    const deadA = await createNotifyMerchant(s, { webhookUrl: hang.url });
    const deadB = await createNotifyMerchant(s, { webhookUrl: trickle.url });
    const good = await createNotifyMerchant(s, { webhookUrl: healthy.url });
    const deadIds = [...(await notify(deadA, DEAD_NOTIFICATIONS)), ...(await notify(deadB, DEAD_NOTIFICATIONS))];
    await eventually(
      () => hang.connections().open >= MAX_IN_FLIGHT_PER_ENDPOINT && trickle.connections().open >= MAX_IN_FLIGHT_PER_ENDPOINT,
      20_000,
      'both bad endpoints to hold their share of sends',
    );

    const goodIds = await notify(good, HEALTHY_NOTIFICATIONS);
    await eventually(async () => {
      const { n } = await s.db.one<{ n: number }>('SELECT count(*)::int AS n FROM notifications WHERE collection_id = ANY($1::bigint[]) AND delivered_at IS NOT NULL', [goodIds]);
      return n === HEALTHY_NOTIFICATIONS;
    }, 30_000, "the healthy merchant's webhooks");

    // no hanging send had ended: nobody was served by waiting for the bad endpoints
    const { attempts } = await s.db.one<{ attempts: number }>(
      'SELECT count(*)::int AS attempts FROM notification_attempts a JOIN notifications n ON n.id = a.notification_id WHERE n.collection_id = ANY($1::bigint[])',
      [deadIds],
    );
    expect(attempts).toBe(0);
    expect(healthy.received).toHaveLength(HEALTHY_NOTIFICATIONS);
    // each bad endpoint held no more than its share of sends at any time
    expect(hang.connections().maxOpen).toBeLessThanOrEqual(MAX_IN_FLIGHT_PER_ENDPOINT);
    expect(trickle.connections().maxOpen).toBeLessThanOrEqual(MAX_IN_FLIGHT_PER_ENDPOINT);
  }, 90_000);
});
