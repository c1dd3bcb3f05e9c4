// Proves the operator operations added for the dashboard around a business: balances with the dates held amounts are released (summing to the held balances), a collection's webhook delivery log and its re-send, with bad references refused.
import { eventually, mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let m: MerchantSetup;

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000', WEBHOOK_RETRY_SCHEDULE: '0s,1h' } });
  m = await setupMerchant(svc, { wallets: ['UGX'], rollingReservePercent: 10, rollingReserveMonths: 6, webhookUrl: 'http://127.0.0.1:9/refused' });
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
});

async function collection(outcome?: 'COMPLETED'): Promise<string> {
  const res = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700000099' }));
  const ref = res.body.data.gateway_reference as string;
  if (outcome) expect((await m.client.post(`/v1/sandbox/collections/${ref}/simulate`, { outcome })).status).toBe(200);
  return ref;
}

describe('listBusinessBalances', () => {
  it('shows each wallet with its reserve and the day it is released, the releases summing to the reserved balance', async () => {
    const empty = await svc.admin.get(`/v1/admin/businesses/${m.businessId}/balances`);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([{ currency: 'UGX', balance: 0, available_balance: 0, pending_balance: 0, reserved_balance: 0, refund_held_balance: 0, disbursement_held_balance: 0, dispute_held_balance: 0, releases: [] }]);
    await collection('COMPLETED');
    await collection('COMPLETED');
    const res = await svc.admin.get(`/v1/admin/businesses/${m.businessId}/balances`);
    const [ugx] = res.body.data;
    expect(ugx.reserved_balance).toBeGreaterThan(0);
    expect(ugx.releases).toHaveLength(1);
    const [release] = ugx.releases;
    expect(release.bucket).toBe('reserved');
    expect(release.amount).toBe(ugx.reserved_balance);
    expect(release.release_at).toMatch(/T00:00:00Z$/);
    const months = (Date.parse(release.release_at) - Date.now()) / (30.4 * 86_400_000);
    expect(months).toBeGreaterThan(5.5);
    expect(months).toBeLessThan(6.5);
  });

  it('answers 404 for an unknown business and 400 for a malformed id', async () => {
    expect((await svc.admin.get('/v1/admin/businesses/999999/balances')).status).toBe(404);
    expect((await svc.admin.get('/v1/admin/businesses/abc/balances')).status).toBe(400);
  });
});

describe('listAdminCollectionNotifications and resendAdminNotification', () => {
  it('shows every delivery attempt of a collection and re-sends its latest notification', async () => {
    const ref = await collection('COMPLETED');
    const log = await eventually(async () => {
      const res = await svc.admin.get(`/v1/admin/collections/${ref}/notifications`);
      return res.body.data[0]?.attempts.length > 0 ? res.body.data : undefined;
    }, 20_000, 'a first delivery attempt');
    expect(log[0]).toMatchObject({ transaction_status: 'COMPLETED', delivered: false, attempts: [expect.objectContaining({ attempt: 1, http_status: null })] });
    const resent = await svc.admin.post(`/v1/admin/collections/${ref}/notify`);
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ status: 'accepted', data: { event_id: log[0].event_id, delivered: false } });
  });

  it('refuses a pending collection (nothing to re-send yet) and an unknown reference', async () => {
    const pending = await collection();
    const res = await svc.admin.post(`/v1/admin/collections/${pending}/notify`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_STATE');
    expect((await svc.admin.get('/v1/admin/collections/PCLTNOTHINGHERE1/notifications')).status).toBe(404);
    expect((await svc.admin.post('/v1/admin/collections/PCLTNOTHINGHERE1/notify')).status).toBe(404);
  });
});
