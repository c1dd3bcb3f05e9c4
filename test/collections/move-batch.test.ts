// Proves state changes asked for at the same moment share one read and one guarded write, each caller answered as if alone: in one batch, completions of two businesses and two currencies, a failure, a cancellation, a late completion, a collection no longer PENDING, one asked twice and one changed between the read and the write; each writes exactly its own journal, postings, holds, notification and emails, and every wallet holds exactly its credits; and, on real PostgreSQL, that hundreds of concurrent moves of one wallet from two pools credit each collection once, balances exact.
import { pgp } from '../../src/db';
import { StateChanges } from '../../src/collections/state-change';
import type { CollectionRow, FinalStatus, PaymentMethod } from '../../src/domain/collection';
import { completionPlan } from '../../src/domain/ledger';
import { ledgerDrift } from '../../src/ledger/ledger';
import type { Services } from '../../src/wiring';
import { SHARED_PG_URL } from '../helpers/db';
import { createBusiness, insertPending, moneyServices, realMoneyServices, secondPool, sumsPerCurrency } from '../helpers/money-fixtures';
import type { BusinessFixture, ServicesFixture } from '../helpers/money-fixtures';
import { needsRealServer } from '../helpers/requires';

/** The ids of every move.sql statement sent while `run` runs, one array per statement. */
async function writesSent<T>(run: () => Promise<T>): Promise<{ result: T; writes: bigint[][] }> {
  const proto = pgp.pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const writes: bigint[][] = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text: string; values?: unknown[] };
    // move.sql's first parameter is the batch's collection ids
    if (typeof q !== 'string' && q.text.startsWith('WITH input AS') && q.text.includes('UPDATE collections c SET status')) {
      writes.push((q.values![0] as (string | bigint)[]).map(BigInt));
    }
    return original.apply(this, args);
  };
  try {
    return { result: await run(), writes };
  } finally {
    proto.query = original;
  }
}

type ReadHook = (ids: bigint[]) => Promise<void>;

/** Runs `run` with `hook` called after every move's read (ids as asked), before its write. */
async function afterEachRead<T>(hook: ReadHook, run: () => Promise<T>): Promise<T> {
  const proto = StateChanges.prototype as unknown as { readForMoves: (q: unknown, asks: { collectionId: bigint }[]) => Promise<unknown> };
  const original = proto.readForMoves;
  proto.readForMoves = async function (this: unknown, q: unknown, asks: { collectionId: bigint }[]) {
    const read = await original.call(this, q, asks);
    await hook(asks.map((a) => a.collectionId));
    return read;
  };
  try {
    return await run();
  } finally {
    proto.readForMoves = original;
  }
}

/** Lanes of the state-change batcher: DATABASE_BATCH_LANES, at most half the pool's connections, at least one. */
function lanesOf(s: Services): number {
  return Math.max(1, Math.min(s.config.databaseBatchLanes, Math.floor((s.db.$pool as unknown as { options: { max: number } }).options.max / 2)));
}

/**
 * Starts every call of `calls` while each lane of the batcher is held by a move of no collection, then lets
 * the lanes go: the calls wait together and go as one batch (at most 64 of them).
 */
async function together<T>(s: Services, calls: (() => Promise<T>)[], hook: ReadHook = async () => undefined): Promise<T[]> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  return afterEachRead(
    async (ids) => {
      if (ids.every((id) => id < 0n)) await gate;
      else await hook(ids);
    },
    async () => {
      const holders = Array.from({ length: lanesOf(s) }, (_, i) => s.collections.applyOutcome(-1n - BigInt(i), 'FAILED'));
      const answers = calls.map((c) => c());
      await new Promise((r) => setImmediate(r));
      release();
      expect(await Promise.all(holders)).toEqual(holders.map(() => null));
      return Promise.all(answers);
    },
  );
}

interface Terms {
  reservePercent: string;
  reserveMonths: number;
  cardSettlementDays: number;
}

/** What a completion of `row` posts to its wallet, from the pure plan alone. */
function planOf(row: CollectionRow, t: Terms, walletId: number) {
  return completionPlan({
    walletId,
    currency: row.account_currency,
    paymentMethod: row.payment_method,
    accountAmountMinor: row.account_amount_minor,
    feeMinor: row.fee_minor,
    totalCreditMinor: row.total_credit_minor,
    customerCharged: row.customer_charged,
    ...t,
    completedAt: new Date(),
  });
}

/** The wallet parts these completions must have added, from the pure plan. */
function expectedParts(rows: CollectionRow[], t: Terms, walletId: number) {
  const parts = { availableMinor: 0n, pendingMinor: 0n, reservedMinor: 0n };
  for (const r of rows) {
    for (const p of planOf(r, t, walletId).postings) {
      if (p.account.walletId !== walletId) continue;
      if (p.account.kind === 'available') parts.availableMinor += p.amountMinor;
      if (p.account.kind === 'pending') parts.pendingMinor += p.amountMinor;
      if (p.account.kind === 'reserved') parts.reservedMinor += p.amountMinor;
    }
  }
  return parts;
}

/** What the moves of one collection wrote. */
async function writtenFor(s: Services, id: bigint) {
  return s.db.one<{
    status: string;
    seq: number;
    journals: number;
    postings: { amount: string; kind: string; currency: string }[] | null;
    holds: { bucket: string; amount: string; wallet_id: number }[] | null;
    notifications: { sequence: number; status: string }[] | null;
    emails: string[] | null;
  }>(
    `SELECT c.status, c.notification_seq AS seq,
       (SELECT count(*)::int FROM journals j WHERE j.collection_id = c.id) AS journals,
       (SELECT json_agg(json_build_object('amount', p.amount_minor::text, 'kind', p.kind, 'currency', p.currency) ORDER BY p.id)
          FROM postings p JOIN journals j ON j.id = p.journal_id WHERE j.collection_id = c.id) AS postings,
       (SELECT json_agg(json_build_object('bucket', h.bucket, 'amount', h.amount_minor::text, 'wallet_id', h.wallet_id) ORDER BY h.id)
          FROM ledger_holds h JOIN journals j ON j.id = h.journal_id WHERE j.collection_id = c.id) AS holds,
       (SELECT json_agg(json_build_object('sequence', n.sequence, 'status', n.transaction_status) ORDER BY n.sequence)
          FROM notifications n WHERE n.collection_id = c.id) AS notifications,
       (SELECT json_agg(e.kind ORDER BY e.id) FROM emails e WHERE e.collection_id = c.id) AS emails
     FROM collections c WHERE c.id = $1`,
    [id],
  );
}

/** A business with an API token that asks for the merchant's and the payer's emails; its collections carry the token. */
async function shop(s: Services, o: Parameters<typeof createBusiness>[1]): Promise<BusinessFixture & { tokenId: number }> {
  const b = await createBusiness(s.db, o);
  const t = await s.db.one<{ id: number }>(
    `INSERT INTO api_tokens (business_id, api_key, secret_hash, notification_email, webhook_url, webhook_hash_enc, email_merchant, email_user)
     VALUES ($1, $2, 'unused', 'merchant@example.org', 'http://127.0.0.1:9/webhook', 'unused', true, true) RETURNING id`,
    [b.businessId, `pk_sandbox_moves_${b.businessId}`],
  );
  return { ...b, tokenId: t.id };
}

async function pending(s: Services, b: BusinessFixture & { tokenId: number }, o: { method?: PaymentMethod; currency?: string; amountMinor: bigint }): Promise<CollectionRow> {
  const row = await insertPending(s, b.businessId, o);
  return s.db.one<CollectionRow>("UPDATE collections SET api_token_id = $2, account_email = 'payer@example.org' WHERE id = $1 RETURNING *", [row.id, b.tokenId]);
}

async function walletParts(s: Services, businessId: number, currency: string) {
  const w = await s.ledger.walletBalance(businessId, currency);
  return { availableMinor: w.availableMinor, pendingMinor: w.pendingMinor, reservedMinor: w.reservedMinor };
}

describe('one batch', () => {
  let fx: ServicesFixture;
  beforeAll(async () => {
    fx = await moneyServices();
  });
  afterAll(async () => {
    await fx.close();
  });

  it('answers each caller of one batch as if alone and writes exactly each move, wallets exact', async () => {
    const s = fx.services;
    const termsA: Terms = { reservePercent: '10', reserveMonths: 1, cardSettlementDays: 2 };
    const termsB: Terms = { reservePercent: '0', reserveMonths: 0, cardSettlementDays: 0 };
    const fees = [{ method: 'MOBILE_MONEY' as const, percent: '2', fixedMinor: 100n }, { method: 'CARD' as const, percent: '2.5', fixedMinor: 0n }];
    const a = await shop(s, { ...termsA, wallets: ['KES'], fees });
    const b = await shop(s, { ...termsB, fees });
    const c = {
      aMobile: await pending(s, a, { amountMinor: 500000n }),
      aCard: await pending(s, a, { method: 'CARD', amountMinor: 1234567n }),
      aKes: await pending(s, a, { currency: 'KES', amountMinor: 98765n }),
      bMobile: await pending(s, b, { amountMinor: 777777n }),
      failed: await pending(s, a, { amountMinor: 10000n }),
      cancelled: await pending(s, b, { amountMinor: 20000n }),
      late: await pending(s, b, { amountMinor: 30303n }),
      notPending: await pending(s, a, { amountMinor: 40000n }),
      twice: await pending(s, a, { amountMinor: 55555n }),
      changed: await pending(s, b, { amountMinor: 60606n }),
    };
    await s.db.none("UPDATE collections SET status = 'EXPIRED' WHERE id = $1", [c.late.id]);
    await s.db.none("UPDATE collections SET status = 'FAILED' WHERE id = $1", [c.notPending.id]);
    const before = { aUgx: await walletParts(s, a.businessId, 'UGX'), aKes: await walletParts(s, a.businessId, 'KES'), bUgx: await walletParts(s, b.businessId, 'UGX') };

    const asks: [CollectionRow, FinalStatus, 'PENDING' | 'EXPIRED'][] = [
      [c.changed, 'COMPLETED', 'PENDING'],
      [c.aMobile, 'COMPLETED', 'PENDING'],
      [c.twice, 'COMPLETED', 'PENDING'],
      [c.aCard, 'COMPLETED', 'PENDING'],
      [c.failed, 'FAILED', 'PENDING'],
      [c.aKes, 'COMPLETED', 'PENDING'],
      [c.bMobile, 'COMPLETED', 'PENDING'],
      [c.cancelled, 'CANCELLED', 'PENDING'],
      [c.late, 'COMPLETED', 'EXPIRED'],
      [c.notPending, 'COMPLETED', 'PENDING'],
      [c.twice, 'COMPLETED', 'PENDING'],
    ];
    let bumped = false;
    const { result: answers, writes } = await writesSent(() =>
      together(
        s,
        asks.map(([row, outcome, from]) => () => s.collections.applyOutcome(row.id, outcome, undefined, from)),
        // right after the batch's read, the sequence of one of its collections moves (still PENDING)
        async (ids) => {
          if (bumped || !ids.includes(c.changed.id)) return;
          bumped = true;
          await s.db.none('UPDATE collections SET notification_seq = notification_seq + 1 WHERE id = $1', [c.changed.id]);
        },
      ),
    );

    // one write for the whole batch, in id order (the collection not PENDING when read is not written);
    // then the changed collection alone again
    const asked = [...new Set(asks.filter(([r]) => r !== c.notPending).map(([r]) => r.id))].sort((x, y) => (x < y ? -1 : 1));
    expect(writes[0]).toEqual(asked.flatMap((id) => (id === c.twice.id ? [id, id] : [id])));
    expect(writes.slice(1)).toEqual([[c.changed.id]]);

    const [changed, aMobile, twice1, aCard, failed, aKes, bMobile, cancelled, late, notPending, twice2] = answers;
    expect(changed).toMatchObject({ id: c.changed.id, status: 'COMPLETED', notification_seq: 1, late_completed_at: null });
    for (const [got, row] of [[aMobile, c.aMobile], [aCard, c.aCard], [aKes, c.aKes], [bMobile, c.bMobile]] as const) {
      expect(got).toMatchObject({ id: row.id, status: 'COMPLETED', message: 'Payment completed', notification_seq: 0, late_completed_at: null });
    }
    expect(failed).toMatchObject({ id: c.failed.id, status: 'FAILED', notification_seq: 0 });
    expect(cancelled).toMatchObject({ id: c.cancelled.id, status: 'CANCELLED', notification_seq: 0 });
    expect(late).toMatchObject({ id: c.late.id, status: 'COMPLETED', notification_seq: 0 });
    expect(late!.late_completed_at).toBeInstanceOf(Date);
    expect(notPending).toBeNull();
    // asked twice in one batch: one caller moved it, the other found it moved
    expect([twice1, twice2].filter((r) => r !== null)).toEqual([expect.objectContaining({ id: c.twice.id, status: 'COMPLETED', notification_seq: 0 })]);

    // each completion wrote exactly its own plan: journal, postings in order, holds on its own wallet
    const credited: [CollectionRow, Terms, number][] = [
      [c.aMobile, termsA, a.walletIds.UGX], [c.aCard, termsA, a.walletIds.UGX], [c.aKes, termsA, a.walletIds.KES],
      [c.bMobile, termsB, b.walletIds.UGX], [c.late, termsB, b.walletIds.UGX], [c.twice, termsA, a.walletIds.UGX], [c.changed, termsB, b.walletIds.UGX],
    ];
    for (const [row, terms, walletId] of credited) {
      const plan = planOf(row, terms, walletId);
      const w = await writtenFor(s, row.id);
      const seq = row === c.changed ? 2 : 1;
      expect(w).toEqual({
        status: 'COMPLETED',
        seq,
        journals: 1,
        postings: plan.postings.map((p) => ({ amount: p.amountMinor.toString(), kind: p.kind, currency: p.account.currency })),
        holds: plan.holds.length === 0 ? null : plan.holds.map((h) => ({ bucket: h.bucket, amount: h.amountMinor.toString(), wallet_id: walletId })),
        notifications: [{ sequence: seq, status: 'COMPLETED' }],
        emails: ['summary', 'receipt'],
      });
    }
    expect(planOf(c.aCard, termsA, a.walletIds.UGX).holds.length).toBeGreaterThan(1);
    for (const [row, status] of [[c.failed, 'FAILED'], [c.cancelled, 'CANCELLED']] as const) {
      expect(await writtenFor(s, row.id)).toEqual({ status, seq: 1, journals: 0, postings: null, holds: null, notifications: [{ sequence: 1, status }], emails: ['summary', 'receipt'] });
    }
    expect(await writtenFor(s, c.notPending.id)).toEqual({ status: 'FAILED', seq: 0, journals: 0, postings: null, holds: null, notifications: null, emails: null });

    // every wallet moved by exactly its own completions' credits
    const moved = async (businessId: number, currency: string, was: Awaited<ReturnType<typeof walletParts>>) => {
      const now = await walletParts(s, businessId, currency);
      return { availableMinor: now.availableMinor - was.availableMinor, pendingMinor: now.pendingMinor - was.pendingMinor, reservedMinor: now.reservedMinor - was.reservedMinor };
    };
    expect(await moved(a.businessId, 'UGX', before.aUgx)).toEqual(expectedParts([c.aMobile, c.aCard, c.twice], termsA, a.walletIds.UGX));
    expect(await moved(a.businessId, 'KES', before.aKes)).toEqual(expectedParts([c.aKes], termsA, a.walletIds.KES));
    expect(await moved(b.businessId, 'UGX', before.bUgx)).toEqual(expectedParts([c.bMobile, c.late, c.changed], termsB, b.walletIds.UGX));
    for (const sum of Object.values(await sumsPerCurrency(s.db))) expect(sum).toBe(0n);
    expect(await ledgerDrift(s.db)).toEqual([]);
  });

  it('goes alone, at once, when nothing else is waiting', async () => {
    const s = fx.services;
    const a = await shop(s, { fees: [{ method: 'MOBILE_MONEY', percent: '1', fixedMinor: 0n }] });
    const row = await pending(s, a, { amountMinor: 12345n });
    const { result, writes } = await writesSent(() => s.collections.applyOutcome(row.id, 'COMPLETED'));
    expect(result).toMatchObject({ id: row.id, status: 'COMPLETED' });
    expect(writes).toEqual([[row.id]]);
  });
});

needsRealServer().describe('on real PostgreSQL', () => {
  let one: ServicesFixture;
  let two: ServicesFixture;
  beforeAll(async () => {
    one = await realMoneyServices(SHARED_PG_URL, 10);
    two = await secondPool(one, 10);
  }, 60_000);
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  it('credits each of hundreds of collections of one wallet once when each is moved twice at once from two pools, balances exact', async () => {
    const terms: Terms = { reservePercent: '7.5', reserveMonths: 3, cardSettlementDays: 2 };
    const a = await shop(one.services, { ...terms, fees: [{ method: 'MOBILE_MONEY', percent: '1.25', fixedMinor: 50n }, { method: 'CARD', percent: '2.5', fixedMinor: 100n }] });
    const rows: CollectionRow[] = [];
    for (let i = 0; i < 400; i += 25) {
      rows.push(
        ...(await Promise.all(
          Array.from({ length: 25 }, (_, k) => pending(one.services, a, { method: (i + k) % 2 ? 'CARD' : 'MOBILE_MONEY', amountMinor: 100000n + BigInt(i + k) * 1234567n })),
        )),
      );
    }
    const before = await walletParts(one.services, a.businessId, 'UGX');

    // each collection: a completion from one pool and, from the other, a second completion or a failure
    const second = (i: number): FinalStatus => (i % 3 === 0 ? 'FAILED' : 'COMPLETED');
    const { result, writes } = await writesSent(() =>
      Promise.all(
        rows.flatMap((r, i) => [
          one.services.collections.applyOutcome(r.id, 'COMPLETED'),
          two.services.collections.applyOutcome(r.id, second(i)),
        ]),
      ),
    );
    // batched: far fewer writes than moves
    expect(writes.length).toBeLessThan(rows.length);
    const completed: CollectionRow[] = [];
    rows.forEach((r, i) => {
      const won = [result[2 * i], result[2 * i + 1]].filter((x) => x !== null);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({ id: r.id, notification_seq: 0 });
      if (won[0]!.status === 'COMPLETED') completed.push(r);
      else expect(second(i)).toBe('FAILED');
    });
    expect(completed.length).toBeGreaterThan(rows.length / 2);

    const ids = rows.map((r) => r.id);
    const counts = await one.services.db.one<{ journals: number; credited: number; notifications: number; once: boolean }>(
      `SELECT (SELECT count(*)::int FROM journals WHERE collection_id = ANY($1::bigint[])) AS journals,
         (SELECT count(*)::int FROM collections WHERE id = ANY($1::bigint[]) AND status = 'COMPLETED') AS credited,
         (SELECT count(*)::int FROM notifications WHERE collection_id = ANY($1::bigint[])) AS notifications,
         (SELECT bool_and(n = 1) FROM (SELECT count(*) AS n FROM notifications WHERE collection_id = ANY($1::bigint[]) GROUP BY collection_id) x) AS once`,
      [ids],
    );
    expect(counts).toEqual({ journals: completed.length, credited: completed.length, notifications: rows.length, once: true });
    const now = await walletParts(one.services, a.businessId, 'UGX');
    expect({ availableMinor: now.availableMinor - before.availableMinor, pendingMinor: now.pendingMinor - before.pendingMinor, reservedMinor: now.reservedMinor - before.reservedMinor })
      .toEqual(expectedParts(completed, terms, a.walletIds.UGX));
    for (const sum of Object.values(await sumsPerCurrency(one.services.db))) expect(sum).toBe(0n);
    expect(await ledgerDrift(one.services.db)).toEqual([]);
  }, 120_000);
});
