// Proves the sandbox tools: scenarios as data, simulate driving a PENDING collection once, and both (and the sandbox clock) 404 in live;
// plus expiry of a collection nobody answers.
import { eventually, mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let m: MerchantSetup;
beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000', PENDING_TTL_SECONDS: '2' } });
  m = await setupMerchant(svc);
});
afterAll(async () => {
  await svc?.close();
});

describe('sandbox tools', () => {
  it('lists the designated values with their states and notifications', async () => {
    const res = await m.client.get('/v1/sandbox/scenarios');
    expect(res.status).toBe(200);
    const byValue = Object.fromEntries(res.body.data.map((s: { value: string }) => [s.value, s]));
    expect(byValue['256777000001']).toMatchObject({ name: 'MOBILE_MONEY_SUCCESS', outcome: 'COMPLETED', states: ['PENDING', 'COMPLETED'] });
    expect(byValue['256777000004']).toMatchObject({ name: 'MOBILE_MONEY_FAILURE', outcome: 'FAILED' });
    expect(byValue['4000000000003006']).toMatchObject({ name: 'CARD_3DS_SUCCESS', payment_method: 'CARD' });
    expect(byValue['4000000000003014']).toMatchObject({ name: 'CARD_3DS_FAILURE', notifications: [{ sequence: 1, transaction_status: 'FAILED' }] });
  });

  it.each(['COMPLETED', 'FAILED', 'CANCELLED'])('simulates %s once; a second report changes nothing', async (outcome) => {
    const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700000001' }));
    const reference = created.body.data.gateway_reference;
    const res = await m.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome });
    expect(res.status).toBe(200);
    expect(res.body.data.transaction_status).toBe(outcome);
    const again = await m.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome: 'COMPLETED' });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('INVALID_STATE');
    const row = await svc.database.db.one('SELECT status FROM collections WHERE gateway_reference = $1', [reference]);
    expect(row.status).toBe(outcome);
  });

  it('refuses an unknown outcome and an unknown or foreign collection', async () => {
    const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700000002' }));
    const reference = created.body.data.gateway_reference;
    const bad = await m.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome: 'EXPIRED' });
    expect(bad.status).toBe(400);
    expect(bad.body.data).toEqual([expect.objectContaining({ field: 'outcome' })]);
    expect((await m.client.post('/v1/sandbox/collections/PCNOPE0000000000000000/simulate', { outcome: 'FAILED' })).status).toBe(404);
    const other = await setupMerchant(svc);
    expect((await other.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome: 'FAILED' })).status).toBe(404);
    const row = await svc.database.db.one('SELECT status FROM collections WHERE gateway_reference = $1', [reference]);
    expect(row.status).toBe('PENDING');
  });

  it('expires a collection nobody answers after PENDING_TTL_SECONDS', async () => {
    const created = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700000003' }));
    const reference = created.body.data.gateway_reference;
    const expired = await eventually(async () => {
      const r = await m.client.get(`/v1/collections/${reference}`);
      return r.body.data.transaction_status === 'EXPIRED' ? r.body.data : undefined;
    }, 8000, 'EXPIRED');
    expect(expired.message).toBe('Payment not completed in time');
    // Not a moment early: the deadline is the whole TTL after creation, and expiry waited for it.
    const row = await svc.database.db.one('SELECT created_at, expires_at, updated_at FROM collections WHERE gateway_reference = $1', [reference]);
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBe(2000);
    expect(row.updated_at.getTime()).toBeGreaterThanOrEqual(row.expires_at.getTime());
    const late = await m.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome: 'COMPLETED' });
    expect(late.body.code).toBe('INVALID_STATE');
  });
});

describe('sandbox tools in live', () => {
  it('do not exist', async () => {
    const live = await startTestService({ env: { APP_ENV: 'live', WEBHOOK_ALLOW_PRIVATE: 'true' } });
    try {
      const lm = await (async () => {
        const b = await live.admin.post('/v1/admin/businesses', { name: 'Live Shop', default_currency: 'UGX' });
        await live.admin.post(`/v1/admin/businesses/${b.body.data.id}/verify`, { verified_by: 'ops@paycollect.dev' });
        const t = await live.admin.post(`/v1/admin/businesses/${b.body.data.id}/api-tokens`, {
          notification_email: 'ops@example.org', webhook_url: 'https://hooks.example.org/pc', webhook_hash: 'a-live-webhook-hash-0123',
        });
        const a = await live.anon.post('/v1/auth/token', { api_key: t.body.data.api_key }, { headers: { 'secret-key': t.body.data.api_secret } });
        return live.merchant(a.body.data.token);
      })();
      expect((await lm.get('/v1/sandbox/scenarios')).status).toBe(404);
      const clock = await lm.post('/v1/sandbox/clock', { advance_hours: 5 });
      expect([clock.status, clock.body.code]).toEqual([404, 'NOT_FOUND']);
      expect(await live.services.db.oneOrNone('SELECT 1 FROM sandbox_clocks')).toBeNull();
      expect((await lm.post('/v1/sandbox/collections/PCANY0000000000000000/simulate', { outcome: 'COMPLETED' })).status).toBe(404);
    } finally {
      await live.close();
    }
  });
});
