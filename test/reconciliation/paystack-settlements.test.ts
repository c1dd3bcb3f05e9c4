// Proves the pull of Paystack's settlements against the fake Paystack over real sockets: card payments paid
// at the fake are settled by it with differences injected (an amount over, a payment nobody asked for, a
// payment left for a later settlement); one pull takes the settlement in as a statement of the card MID (the
// bank MID of the same Paystack account gets its own, empty share, not the card payments as unknown money),
// and matching finds each difference and no other; a second pull asks only for the list and creates
// nothing; a settlement still processing is not read until Paystack has paid it out, then it is; a page that
// cannot be read leaves the settlement for the next run with nothing kept; a list Paystack does not answer
// (a 5xx) takes nothing and is warned of, and the next run takes what it lists; settlements are read oldest
// first, and one whose page cannot be read ends the run there (a newer one waits); the ledger stays balanced.
import { encryptCard } from '../../scripts/encrypt-card';
import { ledgerDrift } from '../../src/ledger/ledger';
import { NO_3DS_CARD } from '../fakes/paystack';
import { requestPayment, startHostedWorld } from '../helpers/hosted';
import type { HostedWorld } from '../helpers/hosted';
import { expectOk } from '../helpers/merchants';
import { eventually } from '../helpers/notify-fixtures';

let w: HostedWorld;

beforeAll(async () => {
  w = await startHostedWorld({ PROCESSOR_CHECK_SCHEDULE: '10m' });
}, 180_000);

afterAll(() => w?.close());

const db = () => w.svc.services.db;
/** A pull: the Paystack statements it took in (the world's BTCPay store is read by the same pull; its days are not counted here). */
async function pull(): Promise<number> {
  const paystack = async () => (await db().one<{ n: number }>("SELECT count(*)::int AS n FROM reconciliation_statements WHERE source = 'paystack_settlement'")).n;
  const before = await paystack();
  await w.svc.services.reconciliation.settlements.pull();
  return (await paystack()) - before;
}

/** A NGN card payment Paystack completes at once: its reference at Paystack. */
async function paid(amount: number): Promise<string> {
  const key = (await w.client.get('/v1/public-key')).body.data.public_key;
  const encrypted = encryptCard(key, {
    full_name: 'Chidi Eze', card_number: NO_3DS_CARD, expiry_month: '12', expiry_year: String(new Date().getUTCFullYear() + 2), cvv: '408',
    billing_address: '3 Marina', billing_city: 'Lagos', billing_zip: '', billing_state: 'Lagos', billing_country: 'NG',
  });
  const p = await requestPayment(w, 'CARD', { encrypted_card: encrypted, amount });
  await eventually(async () => (await w.client.get(`/v1/collections/${p.gateway_reference}`)).body.data.transaction_status === 'COMPLETED', 15_000, 'paid');
  if (!w.paystack.transaction(p.gateway_reference)) throw new Error('no transaction at the fake');
  return p.gateway_reference;
}

async function itemsOf(midId: number): Promise<Record<string, string[]>> {
  const res = expectOk(await w.svc.admin.get(`/v1/admin/mids/${midId}/reconciliation-items?limit=500`));
  const out: Record<string, string[]> = {};
  for (const i of res.items as { state: string; reference: string }[]) (out[i.state] ??= []).push(i.reference);
  for (const k of Object.keys(out)) out[k].sort();
  return out;
}

const counts = () => db().one<{ statements: number; lines: number; items: number }>(
  `SELECT (SELECT count(*)::int FROM reconciliation_statements WHERE source = 'paystack_settlement') AS statements, (SELECT count(*)::int FROM reconciliation_lines) AS lines,
     (SELECT count(*)::int FROM reconciliation_items) AS items`,
);

const transactionCalls = () => w.paystack.settlements.calls.filter((c) => c.endsWith('/transactions')).length;

let refs: string[] = [];

it('takes a paid-out settlement in once, per MID of the account, and finds each injected difference and no other', async () => {
  refs = [];
  for (const amount of [25000, 18000, 9000, 12500, 30000]) refs.push(await paid(amount));
  const [a, over, b, c, later] = refs;
  w.paystack.settlements.settle({ amounts: new Map([[over, 1_800_100]]), extra: [{ reference: 'T_NOT_OURS_77', amount: 500_000 }], omit: new Set([later]) });

  expect(await pull()).toBe(2);
  const card = expectOk(await w.svc.admin.get(`/v1/admin/mids/${w.mids.card}/statements`)) as { source: string; line_count: number; taken_by: string; first_at: string | null }[];
  expect(card).toEqual([expect.objectContaining({ source: 'paystack_settlement', line_count: 5, taken_by: 'settlement-pull' })]);
  const bank = expectOk(await w.svc.admin.get(`/v1/admin/mids/${w.mids.bank}/statements`)) as { line_count: number }[];
  expect(bank).toEqual([expect.objectContaining({ source: 'paystack_settlement', line_count: 0 })]);
  expect(await itemsOf(w.mids.card)).toEqual({ matched: [a, b, c].sort(), amount_over: [over], ours_missing: ['T_NOT_OURS_77'] });
  expect(await itemsOf(w.mids.bank)).toEqual({});
  const overItem = (expectOk(await w.svc.admin.get(`/v1/admin/mids/${w.mids.card}/reconciliation-items?state=amount_over`)).items as object[])[0];
  expect(overItem).toMatchObject({ ours_amount: 18000, theirs_amount: 18001, ours_currency: 'NGN', theirs_currency: 'NGN', gateway_reference: over });

  // a second pull: the list only, nothing new
  const before = await counts();
  const asked = transactionCalls();
  expect(await pull()).toBe(0);
  expect(await counts()).toEqual(before);
  expect(transactionCalls()).toBe(asked);
  expect(await ledgerDrift(db())).toEqual([]);
});

it('leaves a settlement still processing, and one whose page cannot be read, for a later run; then takes it', async () => {
  const later = refs[4];
  const processing = w.paystack.settlements.settle({ processing: true });
  expect(processing.transactions.map((t) => t.reference)).toEqual([later]);
  const before = await counts();
  const asked = transactionCalls();
  expect(await pull()).toBe(0);
  expect(transactionCalls()).toBe(asked);
  expect(await counts()).toEqual(before);

  // paid out, but its page answers a transaction without a reference: nothing is kept, the next run asks again
  processing.status = 'success';
  const good = processing.transactions[0];
  processing.transactions[0] = { ...good, reference: null };
  expect(await pull()).toBe(0);
  expect(transactionCalls()).toBe(asked + 1);
  expect(await counts()).toEqual(before);

  processing.transactions[0] = good;
  expect(await pull()).toBe(2);
  expect((await itemsOf(w.mids.card)).matched).toContain(later);
  expect(await ledgerDrift(db())).toEqual([]);
});

it('takes nothing while Paystack cannot list its settlements, says so, and takes the settlement on the next run', async () => {
  const ref = await paid(14000);
  w.paystack.settlements.settle();
  const before = await counts();
  const asked = transactionCalls();
  const logged = w.svc.logs.length;
  w.paystack.settlements.listStatus = 503;
  try {
    expect(await pull()).toBe(0);
  } finally {
    w.paystack.settlements.listStatus = null;
  }
  expect(await counts()).toEqual(before);
  expect(transactionCalls()).toBe(asked);
  expect(w.svc.logs.slice(logged).filter((l) => l.includes('settlement pull: the processor did not answer the list')).length).toBeGreaterThan(0);

  expect(await pull()).toBe(2);
  expect((await itemsOf(w.mids.card)).matched).toContain(ref);
  expect(await ledgerDrift(db())).toEqual([]);
});

it('a payment a settlement paid out is not theirs_missing once the deadline has passed: Paystack knows it by our vendor_reference', async () => {
  const late = new Date(Date.now() + 4 * 86_400_000);
  expect(await w.svc.services.reconciliation.intake.missingDue(late)).toBe(0);
  expect((await itemsOf(w.mids.card)).theirs_missing).toBeUndefined();
});

it('reads settlements oldest first: one whose page cannot be read ends the run there, and the newer one waits for the next run', async () => {
  const [first, second] = [await paid(11000), await paid(13000)];
  const older = w.paystack.settlements.settle({ omit: new Set([second]), at: new Date(Date.now() - 2 * 86_400_000).toISOString() });
  const newer = w.paystack.settlements.settle({ at: new Date(Date.now() - 86_400_000).toISOString() });
  expect([older.transactions.map((t) => t.reference), newer.transactions.map((t) => t.reference)]).toEqual([[first], [second]]);
  // Paystack lists the newer first; its older one answers a transaction without a reference
  const good = older.transactions[0];
  older.transactions[0] = { ...good, reference: null };
  const before = await counts();
  const asked = w.paystack.settlements.calls.length;
  expect(await pull()).toBe(0);
  expect(w.paystack.settlements.calls.slice(asked)).toEqual(['/settlement', `/settlement/${older.id}/transactions`]);
  expect(await counts()).toEqual(before);

  older.transactions[0] = good;
  expect(await pull()).toBe(4);
  expect((await itemsOf(w.mids.card)).matched).toEqual(expect.arrayContaining([first, second]));
  expect(await ledgerDrift(db())).toEqual([]);
});
