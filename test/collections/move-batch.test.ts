// Proves group commit of collection moves (applyOutcome, src/collections/move-batch.ts) keeps every guarantee
// per move: completions of one wallet sent at once while the move's lanes are busy share one transaction,
// and in that batch a new completion credits its collection once, a repeat of a completion (the same
// collection twice) moves it once and answers null the second time, a collection already final stays as it
// is, and a failure of one move (a collection with no wallet to credit) fails only its own caller. Rows,
// credit journals, postings, the wallet's balance and notifications are each exactly as if moved one by one.
import { pgp } from '../../src/db';
import type { CollectionRow } from '../../src/domain/collection';
import type { Principal } from '../../src/merchants/access-tokens';
import { createBusiness, moneyServices } from '../helpers/money-fixtures';
import type { ServicesFixture } from '../helpers/money-fixtures';

let fx: ServicesFixture;
beforeAll(async () => {
  fx = await moneyServices();
  fx.services.configCache.live(false, 2 ** 31 - 1);
});
afterAll(async () => {
  await fx.services.configCache.stop();
  await fx.close();
});

const s = () => fx.services;

/** What the clients sent while `run` runs: 'begin', 'commit', 'rollback' and, for each move.sql, 'move'. */
async function statementsSent<T>(run: () => Promise<T>): Promise<{ result: T; sent: string[] }> {
  const proto = pgp.pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const sent: string[] = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text: string };
    const text = typeof q === 'string' ? q : q.text;
    if (/^\s*(begin|commit|rollback)\s*;?\s*$/i.test(text)) sent.push(text.trim().toLowerCase().replace(';', ''));
    else if (text.includes('UPDATE collections SET status')) sent.push('move');
    return original.apply(this, args);
  };
  try {
    return { result: await run(), sent };
  } finally {
    proto.query = original;
  }
}

/** The moves sent inside each committed transaction, one count per transaction. */
function movesPerTransaction(sent: string[]): number[] {
  const counts: number[] = [];
  let open: number | null = null;
  for (const x of sent) {
    if (x === 'begin') open = 0;
    else if (x === 'move' && open !== null) open += 1;
    else if (x === 'commit' && open !== null) {
      counts.push(open);
      open = null;
    } else if (x === 'rollback') open = null;
  }
  return counts;
}

async function merchant(): Promise<Principal & { walletId: number }> {
  const b = await createBusiness(s().db, { fees: [{ method: 'MOBILE_MONEY', percent: '2', fixedMinor: 100n }] });
  await s().db.none(
    `INSERT INTO mids (business_id, business_name, service_type, payment_method, currency) VALUES ($1, 'Shop', 'sandbox', 'MOBILE_MONEY', 'UGX')`,
    [b.businessId],
  );
  const token = await s().db.one<{ id: number }>(
    `INSERT INTO api_tokens (business_id, api_key, secret_hash, notification_email, webhook_url, webhook_hash_enc, email_merchant, email_user)
     VALUES ($1, $2, 'unused', 'merchant@example.org', 'http://127.0.0.1:9/webhook', 'unused', true, true) RETURNING id`,
    [b.businessId, `pk_sandbox_moves_${b.businessId}`],
  );
  return { businessId: b.businessId, apiTokenId: token.id, walletId: b.walletIds.UGX };
}

const body = (ref: string, amount = 1000) => ({
  currency: 'UGX',
  amount,
  payment_method: 'MOBILE_MONEY' as const,
  account_number: '256777000001',
  merchant_reference: ref,
  narration: `Order ${ref}`,
  account_email: 'payer@example.org',
});

async function pending(p: Principal, refs: string[]): Promise<CollectionRow[]> {
  const rows: CollectionRow[] = [];
  for (const ref of refs) rows.push((await s().collections.requestToPay(p, body(ref, 1000 + rows.length * 10))).row);
  return rows;
}

const walletTotal = async (businessId: number) => {
  const [w] = await s().ledger.walletBalances(businessId, 'UGX');
  return w.availableMinor + w.pendingMinor + w.reservedMinor + w.refundHeldMinor;
};

type Answer = { id: bigint; status: string } | null | { error: string };
const answer = (p: Promise<CollectionRow | null>): Promise<Answer> =>
  p.then(
    (r) => (r ? { id: r.id, status: r.status } : null),
    (e: Error) => ({ error: e.message }),
  );

it('completes a mix of one wallet in one transaction: each credited once, a repeat and a final one unchanged', async () => {
  const p = await merchant();
  const fillers = await pending(p, Array.from({ length: 12 }, (_, i) => `filler-${i}`));
  const [a, b, c, done] = await pending(p, ['a', 'b', 'c', 'done']);
  expect(await s().collections.applyOutcome(done.id, 'FAILED')).toMatchObject({ status: 'FAILED' });
  const before = await walletTotal(p.businessId);

  // the fillers take every lane, so the mix behind them waits and goes as one batch
  const { result, sent } = await statementsSent(() =>
    Promise.all([
      ...fillers.map((f) => answer(s().collections.applyOutcome(f.id, 'COMPLETED'))),
      answer(s().collections.applyOutcome(a.id, 'COMPLETED')),
      answer(s().collections.applyOutcome(b.id, 'COMPLETED')),
      answer(s().collections.applyOutcome(a.id, 'COMPLETED')), // a repeat: a moves once
      answer(s().collections.applyOutcome(done.id, 'COMPLETED')), // already FAILED: not PENDING, unchanged
      answer(s().collections.applyOutcome(c.id, 'COMPLETED')),
    ]),
  );
  // the premise: several moves went in one committed transaction
  expect(Math.max(0, ...movesPerTransaction(sent))).toBeGreaterThan(1);
  expect(result.slice(fillers.length)).toEqual([{ id: a.id, status: 'COMPLETED' }, { id: b.id, status: 'COMPLETED' }, null, null, { id: c.id, status: 'COMPLETED' }]);
  for (const [i, r] of result.slice(0, fillers.length).entries()) expect(r).toEqual({ id: fillers[i].id, status: 'COMPLETED' });

  const completed = [...fillers, a, b, c];
  const ids = completed.map((x) => x.id);
  // rows: each completed once; the FAILED one as it was
  const rows = await s().db.any<{ id: bigint; status: string; notification_seq: number }>(
    'SELECT id, status, notification_seq FROM collections WHERE business_id = $1 ORDER BY id',
    [p.businessId],
  );
  for (const r of rows) expect(r).toMatchObject(r.id === done.id ? { status: 'FAILED', notification_seq: 1 } : { status: 'COMPLETED', notification_seq: 1 });
  // one credit journal per completed collection, its postings balanced, none for the FAILED one
  const journals = await s().db.any<{ collection_id: bigint; postings: number; net: bigint }>(
    `SELECT j.collection_id, count(p.*)::int AS postings, COALESCE(SUM(p.amount_minor), 0)::bigint AS net
     FROM journals j LEFT JOIN postings p ON p.journal_id = j.id
     WHERE j.kind = 'collection_credit' AND j.collection_id = ANY($1::bigint[]) GROUP BY j.collection_id ORDER BY j.collection_id`,
    [[...ids, done.id]],
  );
  expect(journals.map((j) => j.collection_id)).toEqual([...ids].sort((x, y) => (x < y ? -1 : 1)));
  for (const j of journals) expect(j.net).toBe(0n);
  for (const j of journals) expect(j.postings).toBeGreaterThan(1);
  // the wallet moved by exactly the completed collections' credits
  const { expected } = await s().db.one<{ expected: bigint }>('SELECT SUM(total_credit_minor)::bigint AS expected FROM collections WHERE id = ANY($1::bigint[])', [ids]);
  expect((await walletTotal(p.businessId)) - before).toBe(expected);
  // one notification per move, sequence 1, in the state it moved to
  const notices = await s().db.any<{ collection_id: bigint; sequence: number; transaction_status: string }>(
    'SELECT collection_id, sequence, transaction_status FROM notifications WHERE collection_id = ANY($1::bigint[]) ORDER BY collection_id, sequence',
    [[...ids, done.id]],
  );
  expect(notices).toHaveLength(ids.length + 1);
  for (const n of notices) expect(n).toMatchObject({ sequence: 1, transaction_status: n.collection_id === done.id ? 'FAILED' : 'COMPLETED' });
});

it('fails only the move that fails alone when a batch is refused, the others moved and credited once', async () => {
  const p = await merchant();
  const fillers = await pending(p, Array.from({ length: 12 }, (_, i) => `filler-${i}`));
  const [a, broken, c] = await pending(p, ['a', 'broken', 'c']);
  // a collection whose currency has no wallet of its business: its credit refuses it, and nothing else
  await s().db.none(`UPDATE collections SET account_currency = 'KES' WHERE id = $1`, [broken.id]);
  const before = await walletTotal(p.businessId);

  const { result, sent } = await statementsSent(() =>
    Promise.all([...fillers, a, broken, c].map((x) => answer(s().collections.applyOutcome(x.id, 'COMPLETED')))),
  );
  expect(sent).toContain('rollback'); // the batch holding the broken one was refused and written again one by one
  const mine = result.slice(fillers.length);
  expect(mine[0]).toEqual({ id: a.id, status: 'COMPLETED' });
  expect(mine[1]).toEqual({ error: `collection ${broken.id} has no KES wallet to credit` });
  expect(mine[2]).toEqual({ id: c.id, status: 'COMPLETED' });
  for (const [i, r] of result.slice(0, fillers.length).entries()) expect(r).toEqual({ id: fillers[i].id, status: 'COMPLETED' });

  const ids = [...fillers, a, c].map((x) => x.id);
  const { journals } = await s().db.one<{ journals: number }>(
    `SELECT count(*)::int AS journals FROM journals WHERE kind = 'collection_credit' AND collection_id = ANY($1::bigint[])`,
    [[...ids, broken.id]],
  );
  expect(journals).toBe(ids.length);
  expect(await s().db.one('SELECT status, notification_seq FROM collections WHERE id = $1', [broken.id])).toEqual({ status: 'PENDING', notification_seq: 0 });
  expect(await s().db.one('SELECT count(*)::int AS n FROM notifications WHERE collection_id = $1', [broken.id])).toEqual({ n: 0 });
  const { expected } = await s().db.one<{ expected: bigint }>('SELECT SUM(total_credit_minor)::bigint AS expected FROM collections WHERE id = ANY($1::bigint[])', [ids]);
  expect((await walletTotal(p.businessId)) - before).toBe(expected);
});
