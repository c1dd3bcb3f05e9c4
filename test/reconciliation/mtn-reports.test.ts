// Proves reconciliation with MTN MoMo's partner report through the operator API, against the fake MTN over
// real sockets: the fake writes the report of the requests to pay it saw (the partner's local time, the fee
// in its own column, amounts with thousands separators) with one of each kind of difference injected (an
// amount over, a currency that is not ours, a payment we never asked for, a reversal by MTN); intake finds
// each and no other, and a second upload of the same report creates nothing.
import type { FakeMtnMomo } from '../fakes/mtn-momo';
import { mtnPartnerReport } from '../fakes/mtn-partner-report';
import type { LiveMerchant } from '../helpers/live';
import { expectOk } from '../helpers/merchants';
import { collectedUgx, mtnReports } from '../helpers/mtn-reports';
import type { MtnReports } from '../helpers/mtn-reports';
import type { TestService } from '../helpers/service';

const PAYMENTS = 12;
let live: MtnReports;
let fake: FakeMtnMomo;
let svc: TestService;
let m: LiveMerchant;
const references: string[] = [];
/** the report's time: before the payments, so its period covers them all */
let started: Date;

beforeAll(async () => {
  live = await mtnReports();
  ({ fake, svc, m } = live);
  started = new Date();
  for (let i = 0; i < PAYMENTS; i++) references.push((await collectedUgx(live, `MTNRECON-${String(i).padStart(4, '0')}`)).reference);
}, 120_000);
afterAll(async () => {
  await live?.close();
});

it('finds every injected difference in the partner report, and no other; the same report twice creates nothing', async () => {
  const [over, foreign, reversed] = [references[2], references[5], references[9]];
  const report = mtnPartnerReport(fake, started, 180, { amounts: new Map([[over, 50500]]), currencies: new Map([[foreign, 'RWF']]), reverse: new Set([reversed]), extra: [20000] });
  const upload = () => svc.admin.post(`/v1/admin/mids/${m.midId}/statements`, undefined, { raw: report, headers: { 'content-type': 'text/csv; charset=utf-8' } });
  const first = expectOk(await upload());
  expect(first).toMatchObject({ created: true, statement: { source: 'mtn_partner_report', line_count: PAYMENTS + 2 } });
  const items = expectOk(await svc.admin.get(`/v1/admin/mids/${m.midId}/reconciliation-items?limit=500`)).items as { state: string; reference: string; theirs_currency: string; ours_currency: string }[];
  const states: Record<string, string[]> = {};
  for (const i of items) (states[i.state] ??= []).push(i.reference);
  const extra = items.find((i) => i.state === 'ours_missing')?.reference;
  const reversal = items.find((i) => i.state === 'reversed_externally')?.reference;
  expect(Object.fromEntries(Object.entries(states).map(([k, v]) => [k, v.sort()]))).toEqual({
    matched: references.filter((r) => r !== over && r !== foreign).sort(),
    amount_over: [over],
    currency_mismatch: [foreign],
    ours_missing: [extra],
    reversed_externally: [reversal],
  });
  expect(items.find((i) => i.state === 'currency_mismatch')).toMatchObject({ theirs_currency: 'RWF', ours_currency: 'UGX' });
  const again = expectOk(await upload());
  expect(again.created).toBe(false);
  expect((expectOk(await svc.admin.get(`/v1/admin/mids/${m.midId}/reconciliation-items?limit=500`)).items as object[])).toHaveLength(items.length);
});

it('a payment no report gave becomes theirs_missing once its deadline has passed, once, by the worker', async () => {
  const { reference: left, gateway } = await collectedUgx(live, 'MTNRECON-LATE');
  // a later report of the same payments but this one
  const report = mtnPartnerReport(fake, new Date(Date.now() + 1_000), 180, { omit: new Set([left]) });
  expect(expectOk(await svc.admin.post(`/v1/admin/mids/${m.midId}/statements`, undefined, { raw: report, headers: { 'content-type': 'text/csv' } })).created).toBe(true);
  const missing = async () => (expectOk(await svc.admin.get(`/v1/admin/mids/${m.midId}/reconciliation-items?state=theirs_missing`)).items as { reference: string; gateway_reference: string }[]);
  // within the deadline (3 days) nothing is missing
  expect(await missing()).toEqual([]);
  expect(await svc.services.reconciliation.intake.missingDue(new Date())).toBe(0);
  const late = new Date(Date.now() + 4 * 86_400_000);
  expect(await svc.services.reconciliation.intake.missingDue(late)).toBe(1);
  expect(await svc.services.reconciliation.intake.missingDue(late)).toBe(0);
  expect(await missing()).toMatchObject([{ reference: left, gateway_reference: gateway }]);
});

it('a reversal of part of a payment is found, and refused as a whole reversal: nothing is posted', async () => {
  const part = references[4];
  const report = mtnPartnerReport(fake, new Date(Date.now() + 2_000), 180, { reverse: new Set([part]), reversedAmounts: new Map([[part, 20000]]) });
  expect(expectOk(await svc.admin.post(`/v1/admin/mids/${m.midId}/statements`, undefined, { raw: report, headers: { 'content-type': 'text/csv' } })).created).toBe(true);
  const items = expectOk(await svc.admin.get(`/v1/admin/mids/${m.midId}/reconciliation-items?state=reversed_externally&limit=500`)).items as { id: number; theirs_amount: number; ours_amount: number }[];
  const partial = items.find((i) => i.theirs_amount === 20000)!;
  expect(partial).toMatchObject({ ours_amount: 50000 });
  const res = await svc.admin.post(`/v1/admin/mids/${m.midId}/reconciliation-items/${partial.id}/resolve`, { action: 'reverse', reason: 'MTN reversed part of it' });
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('INVALID_STATE');
  const posted = await svc.services.db.one<{ n: number }>("SELECT count(*)::int AS n FROM journals WHERE kind = 'reconciliation_reversal'");
  expect(posted.n).toBe(0);
  expect(expectOk(await svc.admin.get(`/v1/admin/mids/${m.midId}/reconciliation-items?state=reversed_externally&limit=500`)).items.find((i: { id: number }) => i.id === partial.id)).toMatchObject({ resolution: null });
});
