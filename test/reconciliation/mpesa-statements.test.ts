// Proves reconciliation with M-Pesa's organisation statement through the operator API, against the fake
// Daraja over real sockets: the fake writes the statement of the payments it saw (a byte-order mark, a
// preamble, quoted amounts with thousands separators, charge rows, a cancelled attempt, Details broken over
// two lines) with one of each kind of difference injected (an amount over, one under, a payment we never
// asked for, one left out past the deadline, a reversal by the operator); intake finds each and no other;
// the same file again creates nothing; a file that cannot be read is refused and changes nothing; a
// reversal above the MID's threshold waits for a second operator, is refused to the operator who asked, and
// of two approvals at once one is carried out: one reversing journal, the collection REVERSED, one signed
// webhook and one e-mail, and the ledger's drift check finds nothing; an amount the processor paid over is
// adjusted the same way (four eyes, once) by exactly the difference.
import { ledgerDrift } from '../../src/ledger/ledger';
import { mpesaStatement } from '../fakes/mpesa-statement';
import { collectedKes, mpesaRefunds } from '../helpers/mpesa-refunds';
import type { MpesaRefunds } from '../helpers/mpesa-refunds';
import { expectOk } from '../helpers/merchants';
import { eventually } from '../helpers/notify-fixtures';
import { samplesOf } from '../helpers/scrape';
import { Clock, createUser, signedIn } from '../helpers/users';

const clock = new Clock();
let live: MpesaRefunds;
const PAYMENTS = 24;
const refs: string[] = [];
const receipts: string[] = [];
let statement = '';

beforeAll(async () => {
  live = await mpesaRefunds(clock, { METRICS_PORT: '0' });
  for (let i = 0; i < PAYMENTS; i++) refs.push(await collectedKes(live.m, `RECON-${String(i).padStart(4, "0")}`, `2547083741${String(10 + i)}`));
  for (const ref of refs) {
    const row = await live.svc.services.db.one<{ receipt: string }>(
      'SELECT pr.receipt FROM processor_requests pr JOIN collections c ON c.id = pr.collection_id WHERE c.gateway_reference = $1', [ref],
    );
    receipts.push(row.receipt);
  }
  // the payments are 4 days old when their statement is taken in: past the MID's T+3 deadline
  clock.advance(4 * 86_400_000);
}, 120_000);
afterAll(async () => {
  await live?.close();
});

const upload = (text: string) =>
  live.svc.admin.post(`/v1/admin/mids/${live.m.midId}/statements`, undefined, { raw: text, headers: { 'content-type': 'text/csv' } });

async function counts() {
  return live.svc.services.db.one<{ statements: number; lines: number; items: number }>(
    `SELECT (SELECT count(*)::int FROM reconciliation_statements) AS statements, (SELECT count(*)::int FROM reconciliation_lines) AS lines,
       (SELECT count(*)::int FROM reconciliation_items) AS items`,
  );
}

async function itemsByState(): Promise<Record<string, string[]>> {
  const res = expectOk(await live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/reconciliation-items?limit=500`));
  const out: Record<string, string[]> = {};
  for (const i of res.items as { state: string; reference: string }[]) (out[i.state] ??= []).push(i.reference);
  for (const k of Object.keys(out)) out[k].sort();
  return out;
}

it('finds every injected difference in the statement, and no other', async () => {
  const [over, under, omitted, reversed] = [receipts[3], receipts[7], receipts[12], receipts[18]];
  statement = mpesaStatement(live.fake, { amounts: new Map([[over, 1510], [under, 1450]]), omit: new Set([omitted]), reverse: new Set([reversed]), extra: [2750] });
  const uploading = Date.now();
  const res = expectOk(await upload(statement));
  expect(res.created).toBe(true);
  // 23 payments, one never asked for, one reversal
  expect(res.statement).toMatchObject({ source: 'mpesa_statement', line_count: 25 });
  expect(res.skipped).toEqual({ fee: PAYMENTS - 1, not_completed: 1, other: 0 });
  const states = await itemsByState();
  const extra = (await live.svc.services.db.one<{ reference: string }>("SELECT reference FROM reconciliation_lines WHERE amount_minor = 275000")).reference;
  const reversal = (await live.svc.services.db.one<{ reference: string }>("SELECT reference FROM reconciliation_lines WHERE kind = 'reversal'")).reference;
  expect(states).toEqual({
    matched: receipts.filter((r) => ![over, under, omitted].includes(r)).sort(),
    amount_over: [over],
    amount_under: [under],
    ours_missing: [extra],
    theirs_missing: [omitted],
    reversed_externally: [reversal],
  });
  const under_ = (expectOk(await live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/reconciliation-items?state=amount_under`)).items as object[])[0];
  expect(under_).toMatchObject({ reference: under, gateway_reference: refs[7], ours_amount: 1500, ours_currency: 'KES', theirs_amount: 1450, theirs_currency: 'KES', resolution: null });
  // the figures an operator watches: what is not resolved, per state, and the oldest undecided item's age, an hour on
  clock.advance(3_600_000);
  const mid = `mid="${live.m.midId}"`;
  expect((await samplesOf(live.svc.metricsUrl!, 'paycollect_reconciliation_unmatched')).sort((a, b) => a.labels.localeCompare(b.labels))).toEqual(
    ['amount_over', 'amount_under', 'currency_mismatch', 'ours_missing', 'reversed_externally', 'theirs_missing'].map((state) => ({
      labels: `{${mid},state="${state}"}`, value: state === 'currency_mismatch' ? 0 : 1,
    })),
  );
  // the hour the clock moved, and the time that passed since the items were made (the clock runs on): at most
  // what passed since the upload began, a second or more on a loaded machine
  const [age] = await samplesOf(live.svc.metricsUrl!, 'paycollect_reconciliation_undecided_age');
  const passed = (Date.now() - uploading) / 1000;
  expect(age.labels).toBe(`{${mid}}`);
  expect(age.value).toBeGreaterThanOrEqual(3600);
  expect(age.value).toBeLessThanOrEqual(3600 + passed);
});

it('takes the same file in once: a second upload creates nothing', async () => {
  const before = await counts();
  const res = expectOk(await upload(statement));
  expect(res.created).toBe(false);
  expect(await counts()).toEqual(before);
  expect(expectOk(await live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/statements`))).toHaveLength(1);
});

it('refuses a file it cannot read, naming the line, and keeps nothing of it', async () => {
  const before = await counts();
  const broken = statement.replace(/"1,500\.00"/, '"1,5x0.00"');
  const res = await upload(broken);
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('VALIDATION_ERROR');
  expect(res.body.message).toMatch(/line \d+: Paid In "1,5x0\.00" is not an amount/);
  const noHeader = await upload('Receipt,When\r\nABC,2026-11-30\r\n');
  expect(noHeader.status).toBe(400);
  expect(await counts()).toEqual(before);
});

it('a reversal above the threshold waits for a second operator; of two approvals at once one posts it, once', async () => {
  expectOk(await live.svc.admin.put(`/v1/admin/mids/${live.m.midId}/reconciliation-settings`, { theirs_missing_days: 3, approval_threshold: 1000 }));
  // the merchant asked for an e-mail of every final state
  expectOk(await live.svc.admin.patch(`/v1/admin/api-tokens/${live.m.apiTokenId}`, { email_merchant: true, notification_email: 'finance@shop.example' }));
  const [alice, bob, carol] = await Promise.all([0, 1, 2].map(() => createUser(live.svc, { role: 'operator_admin', totp: true })));
  const a = await signedIn(live.svc, alice, clock);
  const b = await signedIn(live.svc, bob, clock);
  const c = await signedIn(live.svc, carol, clock);
  const item = (expectOk(await live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/reconciliation-items?state=reversed_externally`)).items as { id: number; gateway_reference: string }[])[0];
  expect(item.gateway_reference).toBe(refs[18]);
  const base = `/v1/admin/mids/${live.m.midId}/reconciliation-items/${item.id}`;
  const asked = expectOk(await a.post(`${base}/resolve`, { action: 'reverse', reason: 'Customer complaint: Safaricom reversed it' }));
  expect(asked).toMatchObject({ resolution: 'awaiting_approval', action: 'reverse', requested_by: alice.email, approved_by: null, collection_status: 'COMPLETED' });
  const journals = () => live.svc.services.db.one<{ n: number }>("SELECT count(*)::int AS n FROM journals WHERE kind = 'reconciliation_reversal'");
  expect((await journals()).n).toBe(0);
  const own = await a.post(`${base}/approve`);
  expect(own.status).toBe(403);
  const [one, two] = await Promise.all([b.post(`${base}/approve`), c.post(`${base}/approve`)]);
  expect([one.status, two.status].sort()).toEqual([200, 400]);
  const again = await b.post(`${base}/approve`);
  expect(again.body.code).toBe('INVALID_STATE');
  expect((await journals()).n).toBe(1);
  const collection = expectOk(await live.svc.admin.get(`/v1/admin/collections/${refs[18]}`));
  expect(collection.transaction_status).toBe('REVERSED');
  const hooks = await eventually(async () => {
    const found = live.hooks.received.filter((r) => JSON.parse(r.body).gateway_reference === refs[18] && JSON.parse(r.body).transaction_status === 'REVERSED');
    return found.length > 0 ? found : undefined;
  }, 10_000, 'the REVERSED webhook');
  expect(hooks).toHaveLength(1);
  expect(hooks[0].headers['webhook-signature']).toMatch(/^v1,/);
  const emails = await live.svc.services.db.any("SELECT e.recipient, e.subject FROM emails e JOIN collections c ON c.id = e.collection_id WHERE c.gateway_reference = $1 AND e.subject LIKE '%REVERSED%'", [refs[18]]);
  expect(emails).toEqual([{ recipient: 'finance@shop.example', subject: `Collection ${refs[18]} REVERSED: 1,500.00 KES` }]);
  expect(await ledgerDrift(live.svc.services.db)).toEqual([]);
  // each decision is in the audit log with who made it; the refused and the losing approvals left no entry
  // a decision's entry names the item and shows it before and after
  const entries = await live.svc.services.db.any<{ action: string; actor_email: string | null; target_type: string | null; target_id: string | null; before: Record<string, unknown> | null; after: Record<string, unknown> | null }>(
    "SELECT action, actor_email, target_type, target_id, before, after FROM audit_log WHERE action IN ('setReconciliationSettings', 'resolveReconciliationItem', 'approveReconciliationItem') ORDER BY id",
  );
  expect(entries.map((e) => e.action)).toEqual(['setReconciliationSettings', 'resolveReconciliationItem', 'approveReconciliationItem']);
  expect(entries[0].after).toMatchObject({ theirs_missing_days: 3, approval_threshold: 1000 });
  expect(entries[1]).toMatchObject({
    actor_email: alice.email, target_type: 'reconciliation_item', target_id: String(item.id),
    before: { id: item.id, state: 'reversed_externally', resolution: null, action: null, requested_by: null },
    after: { id: item.id, resolution: 'awaiting_approval', action: 'reverse', reason: 'Customer complaint: Safaricom reversed it', requested_by: alice.email, approved_by: null },
  });
  expect([bob.email, carol.email]).toContain(entries[2].actor_email);
  expect(entries[2]).toMatchObject({
    target_type: 'reconciliation_item', target_id: String(item.id),
    before: { resolution: 'awaiting_approval', approved_by: null, resolved_at: null },
    after: { resolution: 'resolved', requested_by: alice.email, approved_by: entries[2].actor_email },
  });
  const uploads = await live.svc.services.db.any<{ after: { statement?: { id?: number } } }>("SELECT after FROM audit_log WHERE action = 'uploadReconciliationStatement' ORDER BY id");
  expect(uploads.length).toBeGreaterThan(0);
  expect(uploads[0].after.statement?.id).toEqual(expect.any(Number));
});

it('an amount over is adjusted by exactly the difference, through four eyes above the threshold, once of two approvals at once', async () => {
  // a threshold of 5.00 KES: the 10.00 KES the processor paid over waits for a second operator
  expectOk(await live.svc.admin.put(`/v1/admin/mids/${live.m.midId}/reconciliation-settings`, { theirs_missing_days: 3, approval_threshold: 5 }));
  const [dana, erin, fred] = await Promise.all([0, 1, 2].map(() => createUser(live.svc, { role: 'operator_admin', totp: true })));
  // one after another: each signs in with the code of its own 30-second step
  const d = await signedIn(live.svc, dana, clock);
  const e = await signedIn(live.svc, erin, clock);
  const f = await signedIn(live.svc, fred, clock);
  const item = (expectOk(await live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/reconciliation-items?state=amount_over`)).items as { id: number; ours_amount: number; theirs_amount: number }[])[0];
  expect([item.ours_amount, item.theirs_amount]).toEqual([1500, 1510]);
  const base = `/v1/admin/mids/${live.m.midId}/reconciliation-items/${item.id}`;
  const balances = () => live.svc.services.db.any<{ kind: string; wallet: boolean; balance: string }>(
    `SELECT a.kind, a.wallet_id IS NOT NULL AS wallet, sum(p.amount_minor)::text AS balance FROM postings p JOIN ledger_accounts a ON a.id = p.account_id
     WHERE a.currency = 'KES' AND a.kind IN ('available', 'processor_clearing') GROUP BY a.kind, a.wallet_id ORDER BY a.kind`,
  );
  const adjustments = () => live.svc.services.db.one<{ n: number }>("SELECT count(*)::int AS n FROM journals WHERE kind = 'reconciliation_adjustment'");
  const before = await balances();
  // an action that does not fit the item is refused and changes nothing
  const matched = (expectOk(await live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/reconciliation-items?state=matched&limit=1`)).items as { id: number }[])[0];
  const wrong = await d.post(`/v1/admin/mids/${live.m.midId}/reconciliation-items/${matched.id}/resolve`, { action: 'adjust', reason: 'not an amount difference' });
  expect([wrong.status, wrong.body.code]).toEqual([400, 'INVALID_STATE']);
  const missing = (expectOk(await live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/reconciliation-items?state=ours_missing`)).items as { id: number }[])[0];
  expect((await d.post(`/v1/admin/mids/${live.m.midId}/reconciliation-items/${missing.id}/resolve`, { action: 'adjust', reason: 'no collection of ours' })).body.code).toBe('INVALID_STATE');
  expect((await d.post(`${base}/resolve`, { action: 'adjust', reason: 'x' })).status).toBe(400);
  const asked = expectOk(await d.post(`${base}/resolve`, { action: 'adjust', reason: 'Safaricom paid 10.00 over: credited to the merchant' }));
  expect(asked).toMatchObject({ resolution: 'awaiting_approval', action: 'adjust', requested_by: dana.email, approved_by: null });
  expect((await adjustments()).n).toBe(0);
  expect(await balances()).toEqual(before);
  expect((await d.post(`${base}/approve`)).status).toBe(403);
  const [one, two] = await Promise.all([e.post(`${base}/approve`), f.post(`${base}/approve`)]);
  expect([one.status, two.status].sort()).toEqual([200, 400]);
  expect((await e.post(`${base}/approve`)).body.code).toBe('INVALID_STATE');
  expect((await adjustments()).n).toBe(1);
  // the wallet's available balance gained exactly the 10.00 KES, processor clearing gave it
  const after = await balances();
  const moved = (kind: string) => BigInt(after.find((b) => b.kind === kind)?.balance ?? '0') - BigInt(before.find((b) => b.kind === kind)?.balance ?? '0');
  expect([moved('available'), moved('processor_clearing')]).toEqual([1000n, -1000n]);
  expect(await ledgerDrift(live.svc.services.db)).toEqual([]);
  const done = expectOk(await live.svc.admin.get(`${base.replace(/\/\d+$/, '')}?state=amount_over`)).items[0];
  expect(done).toMatchObject({ resolution: 'resolved', action: 'adjust', requested_by: dana.email, approved_by: expect.any(String), collection_status: 'COMPLETED' });
  // the ledger itself holds one adjustment per collection, whatever asks for a second
  const collectionId = (await live.svc.services.db.one<{ collection_id: string }>("SELECT collection_id FROM journals WHERE kind = 'reconciliation_adjustment'")).collection_id;
  await expect(live.svc.services.db.none("INSERT INTO journals (collection_id, kind, created_at) VALUES ($1, 'reconciliation_adjustment', now())", [collectionId])).rejects.toThrow(/journals_one_reconciliation_adjustment/);
});

it('an operator acknowledges a difference with a reason; a decided item is not decided again', async () => {
  const item = (expectOk(await live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/reconciliation-items?state=amount_under`)).items as { id: number }[])[0];
  const base = `/v1/admin/mids/${live.m.midId}/reconciliation-items/${item.id}`;
  const done = expectOk(await live.svc.admin.post(`${base}/resolve`, { action: 'acknowledge', reason: 'Short by the processor: claimed' }));
  expect(done).toMatchObject({ resolution: 'resolved', action: 'acknowledge', requested_by: 'operator key' });
  expect((await live.svc.admin.post(`${base}/resolve`, { action: 'acknowledge', reason: 'again' })).body.code).toBe('INVALID_STATE');
  const matched = (expectOk(await live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/reconciliation-items?state=matched&limit=1`)).items as { id: number }[])[0];
  expect((await live.svc.admin.post(`/v1/admin/mids/${live.m.midId}/reconciliation-items/${matched.id}/resolve`, { action: 'reverse', reason: 'not one' })).body.code).toBe('INVALID_STATE');
  // a later statement overlapping this one: its known lines are kept once, decided items stay as they are
  const before = await itemsByState();
  const later = expectOk(await upload(statement.replace('PayCollect Test Till', 'PayCollect Test Till (again)')));
  expect(later.created).toBe(true);
  expect(await itemsByState()).toEqual(before);
  const csv = await live.svc.admin.get(`/v1/admin/mids/${live.m.midId}/reconciliation-items/export?state=amount_under`);
  expect(csv.status).toBe(200);
  expect(csv.text.split('\r\n')[1]).toContain('amount_under');
  expect(csv.text).toContain('Short by the processor: claimed');
  // decided items leave the figures: the under acknowledged, the over adjusted, the reversal carried out
  const open = await samplesOf(live.svc.metricsUrl!, 'paycollect_reconciliation_unmatched');
  expect(open.filter((o) => o.value > 0).map((o) => o.labels.replace(/.*state="(\w+)".*/, '$1'))).toEqual(['ours_missing', 'theirs_missing']);
});
