// Proves the operator's collection view (routing, rate, postings, filters across businesses) and the go-live
// certification built from the designated scenarios a business ran.
import { eventually, mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let m: MerchantSetup;
beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '100' } });
  m = await setupMerchant(svc, { fees: [{ payment_method: 'MOBILE_MONEY', percent: 3, fixed: 0 }] });
});
afterAll(async () => {
  await svc?.close();
});

const finished = (reference: string) =>
  eventually(async () => {
    const r = await svc.admin.get(`/v1/admin/collections/${reference}`);
    return r.body.data.transaction_status === 'PENDING' ? undefined : r.body.data;
  });

describe('operator collections', () => {
  it('shows a completed collection with its routing decision and balanced postings', async () => {
    const res = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 1000, account_number: '256777000001' }));
    const view = await finished(res.body.data.gateway_reference);
    expect(view).toMatchObject({ business_id: m.businessId, transaction_status: 'COMPLETED', fx_rate: null, card: null, transaction_fee: 30, total_credit: 970 });
    expect(view.routing.mid_id).toBe(m.midIds['MOBILE_MONEY:UGX:0']);
    const sum = view.postings.reduce((acc: number, p: { amount: number }) => acc + Math.round(p.amount * 100), 0);
    expect(sum).toBe(0);
    expect(view.postings.find((p: { account: string }) => p.account === 'available').amount).toBe(970);
  });

  it('lists across businesses and filters by business_id', async () => {
    const other = await setupMerchant(svc);
    await other.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700000077' }));
    const all = await svc.admin.get('/v1/admin/collections?per_page=100');
    expect(new Set(all.body.data.map((c: { business_id: number }) => c.business_id))).toEqual(new Set([m.businessId, other.businessId]));
    const mine = await svc.admin.get(`/v1/admin/collections?business_id=${other.businessId}`);
    expect(mine.body.data).toHaveLength(1);
    expect((await svc.admin.get('/v1/admin/collections/PCNOPE00000000000000')).status).toBe(404);
    expect((await svc.anon.get('/v1/admin/collections')).status).toBe(401);
  });

  it('lists each collection with its own postings, processor request and checkout, the same as its single read', async () => {
    const shop = await setupMerchant(svc, { fees: [{ payment_method: 'MOBILE_MONEY', percent: 3, fixed: 0 }] });
    const refs: string[] = [];
    for (const [amount, phone] of [[1000, '256777000001'], [2500, '256777000003'], [4000, '256777000001']] as const) {
      const r = await shop.client.post('/v1/collections/request-to-pay', mobileMoney({ amount, account_number: phone }));
      refs.push(r.body.data.gateway_reference);
    }
    for (const r of refs) await finished(r);
    const list = await svc.admin.get(`/v1/admin/collections?business_id=${shop.businessId}&per_page=10`);
    expect(list.body.data.map((c: { gateway_reference: string }) => c.gateway_reference).sort()).toEqual([...refs].sort());
    for (const row of list.body.data) {
      const { refunds, ...single } = (await svc.admin.get(`/v1/admin/collections/${row.gateway_reference}`)).body.data;
      expect(refunds).toEqual([]);
      expect(row).toEqual(single);
    }
    // the credited ones carry their own amounts: 970 of 1000 and 3880 of 4000; the failed one posts nothing
    const credit = (c: { postings: { account: string; amount: number }[] }) => c.postings.find((p) => p.account === 'available')?.amount ?? null;
    const byReference = new Map(list.body.data.map((c: { gateway_reference: string; postings: { account: string; amount: number }[] }) => [c.gateway_reference, credit(c)]));
    expect(byReference).toEqual(new Map([[refs[0], 970], [refs[1], null], [refs[2], 3880]]));
  });

  it('certifies a business once it has run every designated scenario', async () => {
    const c = await setupMerchant(svc);
    const first = await svc.admin.get(`/v1/admin/businesses/${c.businessId}/certification`);
    expect(first.body.data.complete).toBe(false);
    expect(first.body.data.scenarios.every((s: { passed: boolean }) => !s.passed)).toBe(true);
    const success = await c.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256777000002' }));
    const failure = await c.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256777000003' }));
    await finished(success.body.data.gateway_reference);
    await finished(failure.body.data.gateway_reference);
    for (const method of ['BANK', 'CRYPTO']) {
      const r = await c.client.post('/v1/collections/request-to-pay', {
        currency: 'UGX', amount: 500, payment_method: method, account_number: 'acct-123', redirect_url: 'https://x.example/d', merchant_reference: ref(), narration: 'Certification run',
      });
      await c.client.post(`/v1/sandbox/collections/${r.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' });
    }
    const after = await svc.admin.get(`/v1/admin/businesses/${c.businessId}/certification`);
    const passed = Object.fromEntries(after.body.data.scenarios.map((s: { scenario: string; passed: boolean }) => [s.scenario, s.passed]));
    expect(passed).toEqual({
      MOBILE_MONEY_SUCCESS: true, MOBILE_MONEY_FAILURE: true, CARD_3DS_SUCCESS: false, CARD_3DS_FAILURE: false, BANK: true, CRYPTO: true, WEBHOOK_ACKNOWLEDGED: false,
    });
    const mm = after.body.data.scenarios.find((s: { scenario: string }) => s.scenario === 'MOBILE_MONEY_SUCCESS');
    expect(mm.gateway_reference).toBe(success.body.data.gateway_reference);
    expect((await svc.admin.get('/v1/admin/businesses/999999/certification')).status).toBe(404);
  });
});
