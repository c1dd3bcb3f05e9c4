// Proves GET /v1/admin/webhooks/failing: API tokens whose undelivered notifications have failed
// attempts, oldest first, with the latest error; healthy webhooks are not listed; pages carry headers.
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

beforeAll(async () => {
  svc = await startTestService({ env: { WEBHOOK_RETRY_SCHEDULE: '0s,100ms,100ms' } });
  receiver = await startReceiver(0, (r) => (r.path === '/down' ? { status: 502, body: 'Bad Gateway' } : { status: 200 }));
});
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

async function finished(m: NotifyMerchant, count: number) {
  const ids: bigint[] = [];
  for (let i = 0; i < count; i++) {
    const p = await createPendingCollection(svc.services, m);
    await finishCollection(svc.services, p.id);
    ids.push(p.id);
  }
  for (const id of ids) {
    await eventually(async () => {
      const [n] = await notificationsOf(svc.services, id);
      return n && (n.delivered_at || n.gave_up_at);
    }, 10_000, 'settled notifications');
  }
}

describe('listFailingWebhooks', () => {
  let refused: NotifyMerchant;
  let erroring: NotifyMerchant;

  beforeAll(async () => {
    refused = await createNotifyMerchant(svc.services, { webhookUrl: `http://127.0.0.1:${await freePort()}/hooks` });
    await finished(refused, 2);
    erroring = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url.replace('/hooks', '/down') });
    await finished(erroring, 1);
    const healthy = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url });
    await finished(healthy, 2);
    // a notification not attempted yet does not make a webhook failing on its own
    const untried = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url });
    const p = await createPendingCollection(svc.services, untried);
    await svc.services.db.tx(async (t) => {
      expect(await svc.services.collections.move(t, p.id, 'EXPIRED')).not.toBeNull();
      await t.none("UPDATE notifications SET next_attempt_at = now() + interval '1 hour' WHERE collection_id = $1", [p.id]);
    });
  });

  it('lists each failing webhook, oldest undelivered first, with the latest error', async () => {
    const res = await svc.admin.get('/v1/admin/webhooks/failing');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 200, status: 'success', message: 'Failing webhooks retrieved' });
    expect(res.body.data).toEqual([
      {
        api_token_id: refused.apiTokenId,
        business_id: refused.businessId,
        webhook_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/hooks$/),
        undelivered: 2,
        oldest_undelivered_at: expect.any(String),
        last_error: 'connection refused',
        last_attempt_at: expect.any(String),
      },
      {
        api_token_id: erroring.apiTokenId,
        business_id: erroring.businessId,
        webhook_url: receiver.url.replace('/hooks', '/down'),
        undelivered: 1,
        oldest_undelivered_at: expect.any(String),
        last_error: 'HTTP 502',
        last_attempt_at: expect.any(String),
      },
    ]);
    expect(res.headers.get('x-ph-total')).toBe('2');
    expect(res.headers.get('x-ph-totalpages')).toBe('1');
  });

  it('pages with per_page and page, keeping Link headers', async () => {
    const res = await svc.admin.get('/v1/admin/webhooks/failing?per_page=1&page=2');
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { api_token_id: number }) => d.api_token_id)).toEqual([erroring.apiTokenId]);
    expect(res.headers.get('x-ph-total')).toBe('2');
    expect(res.headers.get('x-ph-totalpages')).toBe('2');
    expect(res.headers.get('link')).toMatch(/rel="?prev"?/);
    expect(res.headers.get('link')).not.toMatch(/rel="?next"?/);
    const first = await svc.admin.get('/v1/admin/webhooks/failing?per_page=1');
    expect(first.body.paging).toEqual({ per_page: 1, next_cursor: expect.any(String), total: 2 });
    const following = await svc.admin.get(`/v1/admin/webhooks/failing?per_page=1&cursor=${first.body.paging.next_cursor}`);
    expect(following.body.data).toEqual(res.body.data);
    expect(following.body.paging.next_cursor).toBeNull();
  });

  it('drops a webhook from the list once its notifications are delivered', async () => {
    await svc.services.db.none('UPDATE api_tokens SET webhook_url = $2 WHERE id = $1', [erroring.apiTokenId, receiver.url]);
    const [row] = await svc.services.db.any('SELECT c.gateway_reference FROM collections c WHERE c.api_token_id = $1', [erroring.apiTokenId]);
    const resend = await svc.merchant(erroring.jwt).post(`/v1/collections/${row.gateway_reference}/notify`);
    expect(resend.status).toBe(200);
    await eventually(async () => {
      const res = await svc.admin.get('/v1/admin/webhooks/failing');
      return res.body.data.length === 1 ? res : null;
    }, 10_000, 'the recovered webhook to drop out');
  });

  it('refuses a bad page size and a caller without the operator key', async () => {
    const bad = await svc.admin.get('/v1/admin/webhooks/failing?per_page=1000');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    const anon = await svc.anon.get('/v1/admin/webhooks/failing');
    expect(anon.status).toBe(401);
    expect(anon.body.code).toBe('UNAUTHORIZED');
  });
});
