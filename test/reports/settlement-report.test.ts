// Proves the daily settlement report (getSettlementReport): against a fake MTN over HTTP, what the processor confirmed (kept by the status check) is compared with what was completed and credited, per processor and MID; planted mismatches of both kinds are found and nothing else; days are UTC with both ends right; JSON and CSV agree; operators only; a bad day is refused and changes nothing.
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { FAST_PROCESSORS, liveMerchant, requestOf } from '../helpers/live';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { complete, createBusiness, insertPending } from '../helpers/money-fixtures';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { databaseState } from '../helpers/state';
import { Clock, createUser, signedIn } from '../helpers/users';
import { headerOf, parseCsv } from './csv';

/** the fake's numbers (test/fakes/mtn-momo.ts): failed; pending for ever; paid one unit short; any other pays */
const FAILS = '46733123450';
const PENDING = '46733123454';
const SHORT_PAYER = '46733123459';
const PAYS = '46733000001';
let fake: FakeMtnMomo;
let hooks: Receiver;
let svc: TestService;
let m: LiveMerchant;
const clock = new Clock();
let seq = 0;
const refs: Record<string, string> = {};

beforeAll(async () => {
  fake = new FakeMtnMomo();
  await fake.start();
  hooks = await startReceiver();
  svc = await startTestService({ env: { APP_ENV: 'live', MTN_MOMO_BASE_URL: fake.url, ...FAST_PROCESSORS }, now: clock.now });
  m = await liveMerchant(svc, {
    serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.credentials(), webhookUrl: hooks.url,
    fees: [{ payment_method: 'MOBILE_MONEY', percent: 2, fixed: 0 }],
  });
  for (const [name, phone] of [['paid', PAYS], ['failed', FAILS], ['short', SHORT_PAYER], ['forced', PENDING]]) {
    seq += 1;
    const c = expectOk(
      await m.client.post('/v1/collections/request-to-pay', {
        currency: 'UGX', amount: 50000, payment_method: 'MOBILE_MONEY', account_number: phone,
        merchant_reference: `SETTLE-${process.pid}-${seq}`, narration: 'Settlement report order',
      }),
    );
    refs[name] = c.gateway_reference;
  }
  await eventually(async () => (await requestOf(svc, refs.paid))?.state === 'settled', 15_000, 'the paid request settled');
  await eventually(async () => (await requestOf(svc, refs.failed))?.state === 'settled', 15_000, 'the failed request settled');
  await eventually(async () => (await requestOf(svc, refs.short))?.state === 'held', 15_000, 'the short payment held');
  await eventually(async () => (await requestOf(svc, refs.forced))?.state === 'sent', 15_000, 'the pending request sent');
  // completed here without the processor's word (as a wrong manual fix would): the report must show it
  const { id } = await svc.services.db.one<{ id: bigint }>('SELECT id FROM collections WHERE gateway_reference = $1', [refs.forced]);
  expect(await svc.services.collections.applyOutcome(id, 'COMPLETED')).not.toBeNull();
  // and no longer asked about, so that the rest of the file reads a still database
  await svc.services.db.none('UPDATE processor_requests SET next_check_at = NULL WHERE collection_id = $1', [id]);
}, 120_000);

afterAll(async () => {
  await svc?.close();
  await hooks?.close();
  await fake?.stop();
});

const today = () => clock.now().toISOString().slice(0, 10);
const report = (date: string, q = '') => svc.admin.get(`/v1/admin/reports/settlement?date=${date}${q}`);

it('keeps what the processor confirmed apart from what we did with it', async () => {
  const confirmed = await svc.services.db.any<{ gateway_reference: string; confirmed_outcome: string | null; status: string }>(
    `SELECT c.gateway_reference, p.confirmed_outcome, c.status FROM processor_requests p JOIN collections c ON c.id = p.collection_id
     WHERE c.business_id = $1 ORDER BY c.id`,
    [m.businessId],
  );
  expect(confirmed).toEqual([
    { gateway_reference: refs.paid, confirmed_outcome: 'COMPLETED', status: 'COMPLETED' },
    { gateway_reference: refs.failed, confirmed_outcome: 'FAILED', status: 'FAILED' },
    { gateway_reference: refs.short, confirmed_outcome: 'COMPLETED', status: 'PENDING' },
    { gateway_reference: refs.forced, confirmed_outcome: null, status: 'COMPLETED' },
  ]);
});

it('totals the day per processor and MID and finds both kinds of mismatch', async () => {
  const res = await report(today());
  expect(res.status).toBe(200);
  const data = res.body.data;
  expect(data.date).toBe(today());
  expect(data.totals).toEqual([
    {
      service_type: 'mtn_momo', mid_id: m.midId, currency: 'UGX', account_currency: 'UGX', requests: 4,
      confirmed_count: 2, confirmed_amount: 100000, declined_count: 1, completed_count: 2, completed_amount: 100000,
      credited_amount: 98000, fees: 2000, mismatches: 2,
    },
  ]);
  expect(data.mismatches).toEqual([
    expect.objectContaining({ mismatch: 'confirmed_not_completed', gateway_reference: refs.short, business_id: m.businessId, mid_id: m.midId, amount: 50000, currency: 'UGX', request_state: 'held', confirmed_outcome: 'COMPLETED', status: 'PENDING', confirmed_at: expect.stringMatching(/Z$/) }),
    expect.objectContaining({ mismatch: 'completed_not_confirmed', gateway_reference: refs.forced, request_state: 'sent', confirmed_outcome: null, confirmed_at: null, status: 'COMPLETED' }),
  ]);
  expect(data.mismatches[0].processor_reference).toBe((await requestOf(svc, refs.short))!.reference);
});

async function plant(businessId: number, midId: number, at: string, o: { status: string; state: string; confirmed: string | null; credit?: boolean }): Promise<string> {
  const s = svc.services;
  const row = await insertPending(s, businessId, { amountMinor: 120000n, currency: 'KES' });
  await s.db.none('UPDATE collections SET created_at = $2, mid_id = $3 WHERE id = $1', [row.id, at, midId]);
  if (o.credit) await complete(s, row.id);
  else await s.db.none('UPDATE collections SET status = $2 WHERE id = $1', [row.id, o.status]);
  await s.db.none(
    `INSERT INTO processor_requests (collection_id, mid_id, service_type, reference, callback_token, amount_minor, currency, state, confirmed_outcome, confirmed_at)
     VALUES ($1, $2, 'mpesa', $3, $4, 120000, 'KES', $5, $6, CASE WHEN $6::text IS NULL THEN NULL ELSE $7::timestamptz END)`,
    [row.id, midId, `ref-${row.gateway_reference}`, `tok-${row.gateway_reference}`, o.state, o.confirmed, at],
  );
  return row.gateway_reference;
}

it('reads one UTC day, both ends right, and plants are found and nothing else', async () => {
  const biz = await createBusiness(svc.services.db, { defaultCurrency: 'KES', fees: [{ method: 'MOBILE_MONEY', percent: '1', fixedMinor: 0n }] });
  const { id: midId } = await svc.services.db.one<{ id: number }>(
    `INSERT INTO mids (business_id, business_name, service_type, payment_method, currency) VALUES ($1, 'Planted', 'mpesa', 'MOBILE_MONEY', 'KES') RETURNING id`,
    [biz.businessId],
  );
  const ok = await plant(biz.businessId, midId, '2026-03-14T00:00:00Z', { status: 'COMPLETED', state: 'settled', confirmed: 'COMPLETED', credit: true });
  const late = await plant(biz.businessId, midId, '2026-03-14T12:00:00Z', { status: 'FAILED', state: 'held', confirmed: 'COMPLETED' });
  const unconfirmed = await plant(biz.businessId, midId, '2026-03-14T23:59:59.999999Z', { status: 'COMPLETED', state: 'settled', confirmed: 'FAILED', credit: true });
  await plant(biz.businessId, midId, '2026-03-13T23:59:59.999999Z', { status: 'COMPLETED', state: 'settled', confirmed: null, credit: true });
  await plant(biz.businessId, midId, '2026-03-15T00:00:00Z', { status: 'FAILED', state: 'settled', confirmed: 'COMPLETED' });
  // paid through the sandbox (no processor request): never in the report
  const sandbox = await insertPending(svc.services, biz.businessId, { amountMinor: 5000n, currency: 'KES' });
  await svc.services.db.none(`UPDATE collections SET created_at = '2026-03-14T06:00:00Z' WHERE id = $1`, [sandbox.id]);
  await complete(svc.services, sandbox.id);

  const data = expectOk(await report('2026-03-14'));
  expect(data.totals).toEqual([
    {
      service_type: 'mpesa', mid_id: midId, currency: 'KES', account_currency: 'KES', requests: 3,
      confirmed_count: 2, confirmed_amount: 2400, declined_count: 1, completed_count: 2, completed_amount: 2400,
      credited_amount: 2376, fees: 24, mismatches: 2,
    },
  ]);
  expect(data.mismatches.map((x: { gateway_reference: string; mismatch: string }) => [x.gateway_reference, x.mismatch])).toEqual([
    [late, 'confirmed_not_completed'],
    [unconfirmed, 'completed_not_confirmed'],
  ]);
  expect(data.mismatches.some((x: { gateway_reference: string }) => x.gateway_reference === ok)).toBe(false);

  const csv = await report('2026-03-14', '&format=csv');
  expect(csv.status).toBe(200);
  expect(csv.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
  expect(csv.headers.get('content-disposition')).toBe('attachment; filename="settlement-2026-03-14.csv"');
  expect(headerOf(csv.text)).toContain('confirmed_at_utc');
  const records = parseCsv(csv.text);
  expect(records.map((r) => r.record)).toEqual(['total', 'mismatch', 'mismatch']);
  expect(records[0]).toEqual(expect.objectContaining({ service_type: 'mpesa', mid_id: String(midId), confirmed_amount: '2400.00', credited_amount: '2376.00', fees: '24.00', mismatches: '2', gateway_reference: '' }));
  expect(records.slice(1).map((r) => [r.gateway_reference, r.mismatch, r.amount, r.date_utc])).toEqual([
    [late, 'confirmed_not_completed', '1200.00', '2026-03-14'],
    [unconfirmed, 'completed_not_confirmed', '1200.00', '2026-03-14'],
  ]);
  const empty = expectOk(await report('2026-03-12'));
  expect(empty).toEqual({ date: '2026-03-12', totals: [], mismatches: [] });
});

it('is for operators only: support reads it, a merchant user is refused', async () => {
  const support = await signedIn(svc, await createUser(svc, { role: 'operator_support', totp: true }), clock);
  expect((await support.get(`/v1/admin/reports/settlement?date=${today()}`)).status).toBe(200);
  const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId }), clock);
  const refused = await owner.get(`/v1/admin/reports/settlement?date=${today()}`);
  expect(refused.status).toBe(403);
  expect(refused.body.code).toBe('FORBIDDEN');
  expect((await svc.anon.get(`/v1/admin/reports/settlement?date=${today()}`)).status).toBe(401);
});

it('refuses a day that is not one, or not yet, with 400 naming date, and changes nothing', async () => {
  const state = await databaseState(svc.services.db);
  const tomorrow = new Date(clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
  for (const q of ['date=2026-02-30', 'date=20260301', `date=${tomorrow}`, 'date=2026-13-01', '']) {
    const res = await svc.admin.get(`/v1/admin/reports/settlement?${q}`);
    expect(`${q} ${res.status}`).toBe(`${q} 400`);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.data.map((e: { field: string }) => e.field)).toContain('date');
  }
  const format = await report(today(), '&format=pdf');
  expect(format.status).toBe(400);
  expect(await databaseState(svc.services.db)).toEqual(state);
});
