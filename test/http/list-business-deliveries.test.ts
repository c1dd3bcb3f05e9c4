// Proves GET /v1/admin/businesses/{business_id}/deliveries: a business's notifications newest first with their delivery state and latest attempt, filtered by state, keyset-paged; support and the business's own viewer read it, another business's merchant gets 404.
import { createBusiness } from '../helpers/merchants';
import {
  createNotifyMerchant,
  createPendingCollection,
  eventually,
  finishCollection,
  notificationsOf,
  startReceiver,
} from '../helpers/notify-fixtures';
import type { NotifyMerchant, Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, signedIn } from '../helpers/users';

const clock = new Clock();

let svc: TestService;
let receiver: Receiver;
let shop: NotifyMerchant;
const refs: string[] = [];
let failing: string | null = null;

async function settled(id: bigint) {
  await eventually(async () => {
    const [n] = await notificationsOf(svc.services, id);
    return n && (n.delivered_at || n.gave_up_at);
  }, 10_000, 'settled notification');
}

beforeAll(async () => {
  svc = await startTestService({ now: clock.now, env: { WEBHOOK_RETRY_SCHEDULE: '0s,50ms' } });
  // the second collection's webhook answers 503 until the schedule runs out; the others 200
  receiver = await startReceiver(0, (r) => (failing && r.body.includes(failing) ? { status: 503, body: 'down' } : { status: 200, body: '{"received":true}' }));
  shop = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url });
  for (let i = 0; i < 3; i++) {
    const p = await createPendingCollection(svc.services, shop);
    refs.push(p.gateway_reference);
    if (i === 1) failing = p.gateway_reference;
    await finishCollection(svc.services, p.id, i === 2 ? 'FAILED' : 'COMPLETED');
    await settled(p.id);
  }
}, 180_000);
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

const path = () => `/v1/admin/businesses/${shop.businessId}/deliveries`;

describe('listBusinessDeliveries', () => {
  it('lists the notifications newest first with state, attempts and the latest status and error', async () => {
    const res = await svc.admin.get(path());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 200, status: 'success', message: 'Deliveries retrieved', paging: { total: 3, next_cursor: null } });
    expect(res.body.data.map((d: { gateway_reference: string }) => d.gateway_reference)).toEqual([refs[2], refs[1], refs[0]]);
    expect(res.body.data[0]).toMatchObject({ transaction_status: 'FAILED', state: 'delivered', attempts: 1, last_http_status: 200, last_error: null, next_attempt_at: null });
    expect(res.body.data[0].delivered_at).toEqual(expect.stringMatching(/Z$/));
    expect(res.body.data[1]).toMatchObject({ state: 'gave_up', attempts: 2, last_http_status: 503, last_error: 'HTTP 503', delivered_at: null, next_attempt_at: null });
  });

  it('filters by state', async () => {
    const gaveUp = await svc.admin.get(`${path()}?state=gave_up`);
    expect(gaveUp.body.data.map((d: { gateway_reference: string }) => d.gateway_reference)).toEqual([refs[1]]);
    expect(gaveUp.headers.get('x-ph-total')).toBe('1');
    const delivered = await svc.admin.get(`${path()}?state=delivered`);
    expect(delivered.body.data).toHaveLength(2);
    expect((await svc.admin.get(`${path()}?state=retrying`)).body.data).toEqual([]);
    expect((await svc.admin.get(`${path()}?state=lost`)).status).toBe(400);
  });

  it('pages by cursor without repeating or skipping, keeping the filter in Link', async () => {
    const first = await svc.admin.get(`${path()}?state=delivered&per_page=1`);
    expect(first.body.data[0].gateway_reference).toBe(refs[2]);
    const cursor = first.body.paging.next_cursor;
    expect(cursor).toEqual(expect.any(String));
    const second = await svc.admin.get(`${path()}?state=delivered&per_page=1&cursor=${cursor}`);
    expect(second.body.data[0].gateway_reference).toBe(refs[0]);
    expect(second.body.paging.next_cursor).toBeNull();
    expect(second.headers.get('link')).toContain('state=delivered');
    expect((await svc.admin.get(`${path()}?cursor=bm90LWEta2V5`)).status).toBe(400);
  });

  it('answers 404 for a business that does not exist', async () => {
    expect((await svc.admin.get('/v1/admin/businesses/2147483000/deliveries')).status).toBe(404);
  });

  it('lets the business viewer and operator support read it, and hides it from another business', async () => {
    const viewer = await signedIn(svc, await createUser(svc, { role: 'merchant_viewer', business_id: shop.businessId }));
    const own = await viewer.get(path());
    expect(own.status).toBe(200);
    expect(own.body.data).toHaveLength(3);
    const support = await signedIn(svc, await createUser(svc, { role: 'operator_support', totp: true }), clock);
    expect((await support.get(path())).status).toBe(200);
    const other = (await createBusiness(svc, { name: 'Other Shop' })).id;
    const stranger = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: other }));
    const res = await stranger.get(path());
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});
