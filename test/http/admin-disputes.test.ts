// Proves the operator's dispute reads: an operator lists every business's card disputes newest first with their business and MID, filtered by status, business, MID and deadline (the filters combine), a page at a time, and reads any one; a merchant user sees only its own business's (a filter on another business, or another business's dispute, is NOT_FOUND); support staff read, and bad filters are refused.
import { setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { openDispute } from '../helpers/disputes';
import { expectOk } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, signedIn } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let a: MerchantSetup;
let b: MerchantSetup;
let disputeA: string;
let disputeB: string;
let wonB: string;

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  a = await setupMerchant(svc, { name: 'Kampala Books' });
  b = await setupMerchant(svc, { name: 'Entebbe Tools' });
  disputeA = (await openDispute(svc, a, { amount: 300 })).dispute;
  clock.advance(60_000);
  disputeB = (await openDispute(svc, b, { amount: 400, stage: 'fraud' })).dispute;
  clock.advance(60_000);
  const won = await openDispute(svc, b, { amount: 200, processorDisputeId: 'won-1' });
  wonB = won.dispute;
  await svc.services.disputes.record('sandbox', {
    processorDisputeId: 'won-1', transactionReference: won.collection, stage: 'chargeback', status: 'won', processorStatus: 'resolved', reason: null,
    amountMinor: 20_000n, currency: 'UGX', debitMinor: 0n, resolution: 'declined', openedAt: clock.now(),
  });
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

const refs = (res: { status: number; body: { data: { gateway_reference: string }[] } }) => {
  expect(res.status).toBe(200);
  return res.body.data.map((d) => d.gateway_reference);
};

it('lists every business disputes newest first with business and MID, by each filter and their combination, and reads any one', async () => {
  expect(refs(await svc.admin.get('/v1/admin/disputes'))).toEqual([wonB, disputeB, disputeA]);
  expect(refs(await svc.admin.get(`/v1/admin/disputes?business_id=${a.businessId}`))).toEqual([disputeA]);
  expect(refs(await svc.admin.get('/v1/admin/disputes?status=needs_response'))).toEqual([disputeB, disputeA]);
  expect(refs(await svc.admin.get(`/v1/admin/disputes?status=needs_response&business_id=${b.businessId}`))).toEqual([disputeB]);
  expect(refs(await svc.admin.get(`/v1/admin/disputes?mid_id=${a.midIds['CARD:UGX:1']}`))).toEqual([disputeA]);
  expect(refs(await svc.admin.get('/v1/admin/disputes?mid_id=2147483647'))).toEqual([]);
  const deadlineA = (await svc.services.db.one<{ deadline_at: Date }>('SELECT deadline_at FROM disputes WHERE gateway_reference = $1', [disputeA])).deadline_at;
  const at = (ms: number) => new Date(deadlineA.getTime() + ms).toISOString().slice(0, 19) + 'Z';
  // strictly before: the first dispute's own deadline is not before itself
  expect(refs(await svc.admin.get(`/v1/admin/disputes?deadline_before=${at(1000)}`))).toEqual([disputeA]);
  expect(refs(await svc.admin.get(`/v1/admin/disputes?deadline_before=${at(0)}`))).toEqual([]);

  const page1 = await svc.admin.get('/v1/admin/disputes?per_page=2');
  expect(refs(page1)).toEqual([wonB, disputeB]);
  expect(page1.body.paging.total).toBe(3);
  expect(refs(await svc.admin.get(`/v1/admin/disputes?per_page=2&cursor=${page1.body.paging.next_cursor}`))).toEqual([disputeA]);

  const one = expectOk(await svc.admin.get(`/v1/admin/disputes/${disputeB}`));
  expect(one).toMatchObject({
    gateway_reference: disputeB, business_id: b.businessId, business_name: 'Entebbe Tools', mid_id: b.midIds['CARD:UGX:1'], stage: 'fraud', status: 'needs_response',
    amount: 400, currency: 'UGX', held_amount: 400, debited_amount: null, account_currency: 'UGX', closed_at: null,
  });
  // the merchant API shows the same dispute, without the operator's fields
  const merchants = expectOk(await b.client.get(`/v1/disputes/${disputeB}`));
  const { business_id, business_name, mid_id, ...rest } = one;
  expect([business_id, business_name, mid_id]).toEqual([b.businessId, 'Entebbe Tools', b.midIds['CARD:UGX:1']]);
  expect(rest).toEqual(merchants);
  expect(expectOk(await svc.admin.get(`/v1/admin/disputes/${wonB}`))).toMatchObject({ status: 'won', debited_amount: 0, resolution: 'declined' });
});

it('refuses bad filters and an unknown business or dispute, clearly', async () => {
  for (const q of ['status=open', 'mid_id=0', 'deadline_before=tomorrow', 'business_id=abc', 'colour=red']) {
    const res = await svc.admin.get(`/v1/admin/disputes?${q}`);
    expect([q, res.status, res.body.code]).toEqual([q, 400, 'VALIDATION_ERROR']);
  }
  const noBusiness = await svc.admin.get('/v1/admin/disputes?business_id=999999');
  expect([noBusiness.status, noBusiness.body.code]).toEqual([404, 'NOT_FOUND']);
  const noDispute = await svc.admin.get('/v1/admin/disputes/DSP0000000000000000000');
  expect([noDispute.status, noDispute.body.code]).toEqual([404, 'NOT_FOUND']);
});

it('shows a merchant user only its own business disputes; support staff read all; nobody signed in reads none', async () => {
  const viewer = await signedIn(svc, await createUser(svc, { role: 'merchant_viewer', business_id: a.businessId }), clock);
  expect(refs(await viewer.get('/v1/admin/disputes'))).toEqual([disputeA]);
  expect(expectOk(await viewer.get(`/v1/admin/disputes/${disputeA}`)).business_id).toBe(a.businessId);
  expect((await viewer.get(`/v1/admin/disputes/${disputeB}`)).status).toBe(404);
  expect((await viewer.get(`/v1/admin/disputes?business_id=${b.businessId}`)).status).toBe(404);
  const support = await signedIn(svc, await createUser(svc, { role: 'operator_support', totp: true }), clock);
  expect(refs(await support.get('/v1/admin/disputes?status=needs_response'))).toEqual([disputeB, disputeA]);
  expect((await svc.anon.get('/v1/admin/disputes')).status).toBe(401);
  expect((await svc.anon.get(`/v1/admin/disputes/${disputeA}`)).status).toBe(401);
});
