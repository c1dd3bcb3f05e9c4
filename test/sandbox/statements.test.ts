// Proves the sandbox's statements over real HTTP: a developer asks the sandbox processor to reverse a
// completed payment outside the API (reverseSandboxCollection); the processor's notice is read at once into
// reconciliation as a sandbox statement, and its item is reversed_externally, the collection untouched; the
// operator resolves it and the collection moves to REVERSED, told by a signed webhook, the wallet debited once
// and the ledger balanced; a second reversal, a pending payment and an unknown one are refused and change
// nothing. A past day's completed payments are the processor's day statement and match; a statement id that
// is not a real day is unavailable with its reason, and reads and makes nothing.
import { ledgerDrift } from '../../src/ledger/ledger';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const SILENT = '256700000123';

let svc: TestService;
let hooks: Receiver;
let shop: MerchantSetup;
let mid: number;

beforeAll(async () => {
  hooks = await startReceiver();
  svc = await startTestService({ env: { WEBHOOK_RETRY_SCHEDULE: '0s,200ms' } });
  shop = await setupMerchant(svc, { webhookUrl: hooks.url });
}, 180_000);
afterAll(async () => {
  await svc?.close();
  await hooks?.close();
});

const db = () => svc.services.db;
const available = async () => expectOk(await shop.client.get('/v1/data/wallets/UGX/balance')).available_balance as number;
const counts = () => db().one('SELECT (SELECT count(*)::int FROM reconciliation_statements) AS s, (SELECT count(*)::int FROM reconciliation_items) AS i, (SELECT count(*)::int FROM sandbox_reversals) AS r');

/** A UGX 50,000 mobile-money payment the sandbox completes: its gateway_reference. */
async function completed(): Promise<string> {
  const p = expectOk(await shop.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: SILENT })));
  expectOk(await shop.client.post(`/v1/sandbox/collections/${p.gateway_reference}/simulate`, { outcome: 'COMPLETED' }));
  return p.gateway_reference;
}

it("reads a past day's completed payments as the sandbox processor's day statement, matched", async () => {
  const reference = await completed();
  mid = (await db().one<{ mid_id: number }>('SELECT mid_id FROM collections WHERE gateway_reference = $1', [reference])).mid_id;
  // made three days ago: a day is read once two days past (the worker's first run, at start, had no payment of it)
  const day = new Date(Date.now() - 3 * 86_400_000);
  await db().none('UPDATE collections SET created_at = $2 WHERE gateway_reference = $1', [reference, day]);
  await svc.services.reconciliation.settlements.pull();
  const matched = expectOk(await svc.admin.get(`/v1/admin/mids/${mid}/reconciliation-items?state=matched`)).items as { gateway_reference: string }[];
  expect(matched.map((i) => i.gateway_reference)).toContain(reference);
  const statement = await db().one<{ line_count: number }>(
    "SELECT line_count FROM reconciliation_statements WHERE mid_id = $1 AND source = 'sandbox_statement' AND first_at = $2", [mid, `${day.toISOString().slice(0, 10)}T00:00:00Z`]);
  expect(statement.line_count).toBe(1);
  // yesterday and today are not read yet
  const young = await db().one<{ n: number }>("SELECT count(*)::int AS n FROM reconciliation_statements WHERE mid_id = $1 AND first_at > now() - interval '2 days'", [mid]);
  expect(young.n).toBe(0);
});

it('walks a payment reversed at the sandbox processor to REVERSED through reconciliation, once', async () => {
  const reference = await completed();
  const before = await available();

  const res = await shop.client.post(`/v1/sandbox/collections/${reference}/reverse`);
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ gateway_reference: reference, transaction_status: 'COMPLETED' });
  const notice = await db().one<{ line_count: number; kind: string; original_reference: string }>(
    `SELECT s.line_count, l.kind, l.original_reference FROM reconciliation_statements s JOIN reconciliation_lines l ON l.statement_id = s.id
     WHERE s.mid_id = $1 AND s.source = 'sandbox_statement' AND l.kind = 'reversal'`, [mid]);
  expect(notice).toEqual({ line_count: 1, kind: 'reversal', original_reference: reference });
  const items = expectOk(await svc.admin.get(`/v1/admin/mids/${mid}/reconciliation-items?state=reversed_externally`)).items as { id: number; gateway_reference: string; theirs_amount: number }[];
  expect(items).toEqual([expect.objectContaining({ gateway_reference: reference, theirs_amount: 50000 })]);
  expect(await available()).toBe(before);

  // a second reversal, a payment still pending, an unknown one: refused, nothing new
  const was = await counts();
  const again = await shop.client.post(`/v1/sandbox/collections/${reference}/reverse`);
  expect([again.status, again.body.code]).toEqual([400, 'INVALID_STATE']);
  const pending = expectOk(await shop.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: SILENT })));
  const early = await shop.client.post(`/v1/sandbox/collections/${pending.gateway_reference}/reverse`);
  expect([early.status, early.body.code]).toEqual([400, 'INVALID_STATE']);
  const unknown = await shop.client.post('/v1/sandbox/collections/PC0000000000000000000000/reverse');
  expect(unknown.status).toBe(404);
  expect(await counts()).toEqual(was);

  // the operator posts the reversal: the collection is REVERSED, the merchant told once, the wallet debited once
  const resolved = await svc.admin.post(`/v1/admin/mids/${mid}/reconciliation-items/${items[0].id}/resolve`, { action: 'reverse', reason: 'Reversed by the sandbox processor' });
  expect(resolved.status).toBe(200);
  expect(expectOk(await shop.client.get(`/v1/collections/${reference}`)).transaction_status).toBe('REVERSED');
  const told = await eventually(() => {
    const got = hooks.received.filter((r) => r.body.includes(reference) && r.body.includes('"REVERSED"'));
    return got.length > 0 ? got : undefined;
  }, 10_000, 'the REVERSED webhook');
  expect(told).toHaveLength(1);
  expect(await available()).toBeLessThan(before);
  expect(await ledgerDrift(db())).toEqual([]);
});

it('answers a statement id that is not a real day as unavailable, naming it, and takes nothing in', async () => {
  const was = await counts();
  const ctx = { midId: mid, credentials: {} };
  for (const id of ['2026-02-30', '2026-13-01', '2026-1-1', 'yesterday', '']) {
    expect(await svc.services.sandboxStatements.settlementPayments(ctx, id, 1)).toEqual({ kind: 'unavailable', detail: `not a day: ${id}` });
  }
  // a real day is read as ever
  expect(await svc.services.sandboxStatements.settlementPayments(ctx, '2026-02-28', 1)).toEqual({ kind: 'listed', payments: [], more: false });
  expect(await counts()).toEqual(was);
});
