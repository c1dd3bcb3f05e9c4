// The double-entry ledger: postings on completion, releases of held amounts, balances. A balance is
// read from running balances that the database keeps with every posting (migration 0030: a few rows
// per account, one per session slot, so concurrent completions of one wallet do not wait for each
// other); drift() recomputes them from the postings.
import { pgp, sqlFile, sqlPart } from '../db';
import type { Queryable, Tx } from '../db';
import { BY_ID, listPage } from '../db/keyset';
import type { ListPage, PageRequest } from '../db/keyset';
import type { CollectionRow } from '../domain/collection';
import { accountName, assertBalanced, completionPlan, releasePlan, walletTotal } from '../domain/ledger';
import type { AccountKey, HoldBucket, JournalKind, PostingDraft, WalletParts } from '../domain/ledger';
import { toApi } from '../domain/money';
import { AppError } from '../errors';
import type { WorkerSpec } from '../workers/loops';
import { toPosting } from '../api-records/collection';
import type { PostingRow } from '../api-records/collection';
import type { Base } from '../base';

/** Holds released per transaction by the worker; a full batch runs again at once. */
export const RELEASE_BATCH = 100;
export const RELEASE_INTERVAL_MS = 1000;
/** More wallets than ISO 4217 has currencies is a bug, not a business. */
const MAX_WALLETS = 500;
const MAX_INT4 = 2_147_483_647;

export interface WalletBalance extends WalletParts {
  currency: string;
  /** held by open disputes: out of the balance until a dispute is won (docs/contract/disputes.md) */
  disputeHeldMinor: bigint;
}

/** What a completion's read (collections/sql/read-for-move.sql) gives the credit: the wallet to credit,
 * its business's reserve and settlement terms, and the ledger accounts that already exist for the wallet
 * and for the service in its currency. */
export interface CreditContext {
  wallet_id: number;
  reserve_percent: string;
  rolling_reserve_months: number;
  card_settlement_days: number;
  accounts: { id: number; wallet_id: number | null; currency: string; kind: AccountKey['kind'] }[] | null;
}

/**
 * The credit's values of a move's write (collections/sql/move.sql): the journal's time, its postings and
 * its holds as arrays, one element each. A move that credits nothing writes from NO_CREDIT.
 */
export interface CreditValues {
  credit: boolean;
  credited_at: Date | null;
  posting_accounts: (number | undefined)[];
  posting_amounts: bigint[];
  posting_currencies: string[];
  posting_kinds: string[];
  hold_wallet_id: number | null;
  hold_buckets: string[];
  hold_amounts: bigint[];
  hold_release_ats: Date[];
}

export const NO_CREDIT: Readonly<CreditValues> = {
  credit: false,
  credited_at: null,
  posting_accounts: [],
  posting_amounts: [],
  posting_currencies: [],
  posting_kinds: [],
  hold_wallet_id: null,
  hold_buckets: [],
  hold_amounts: [],
  hold_release_ats: [],
};

interface DueHold {
  id: bigint;
  wallet_id: number;
  business_id: number;
  bucket: HoldBucket;
  amount_minor: bigint;
  currency: string;
  collection_id: bigint | null;
}

/** A ledger account whose running balance is not the sum of its postings, an unbalanced journal, or a wallet account below zero. */
export interface LedgerDrift {
  problem: 'balance' | 'journal' | 'negative';
  account_id: number | null;
  wallet_id: number | null;
  currency: string;
  kind: AccountKey['kind'] | null;
  journal_id: bigint | null;
  recorded_minor: bigint;
  recomputed_minor: bigint;
}

const driftSql = sqlFile(__dirname, 'ledger-drift.sql');
const WALLET_BALANCES_SQL = sqlFile(__dirname, 'wallet-balances.sql');

/** Every running balance that differs from the sum of its postings, and every unbalanced journal. */
export function ledgerDrift(db: Queryable): Promise<LedgerDrift[]> {
  return db.any<LedgerDrift>(driftSql);
}

const postingColumns = new pgp.helpers.ColumnSet(['journal_id', 'account_id', 'amount_minor', 'currency', 'kind', 'created_at'], {
  table: 'postings',
});


export function toBalanceRecord(b: WalletBalance) {
  return {
    currency: b.currency,
    balance: toApi(walletTotal(b)),
    available_balance: toApi(b.availableMinor),
    pending_balance: toApi(b.pendingMinor),
    reserved_balance: toApi(b.reservedMinor),
    refund_held_balance: toApi(b.refundHeldMinor),
    disbursement_held_balance: toApi(b.disbursementHeldMinor),
    dispute_held_balance: toApi(b.disputeHeldMinor),
  };
}

/** Whose a journal of money out is: a refund's (with its collection), a disbursement's, or a dispute's (with its collection). */
export interface JournalOwner {
  collectionId?: bigint;
  refundId?: bigint;
  disbursementId?: bigint;
  /** a dispute's hold and outcome (src/disputes/) */
  disputeId?: bigint;
}

const POST_JOURNAL_SQL = sqlFile(__dirname, 'post-journal.sql');

/** The credit of a collection's state change: the ledger's CTEs of collections/sql/move.sql. */
export const CREDIT_CTES = sqlPart(__dirname, 'credit-ctes.sql');

export class LedgerService {
  constructor(readonly s: Base) {}

  /**
   * The credit of a collection moving to COMPLETED, as values of the move's write (collections/sql/move.sql,
   * which writes the journal only when the state change happened, and nothing more when the collection has
   * its one credit journal already). The plan is checked to balance here, before any of it is written.
   * Ledger accounts missing from ctx are created first (first use), through `q` (the caller's transaction,
   * or the database: creating them is idempotent and harmless on its own).
   */
  async creditValues(q: Queryable, row: CollectionRow, ctx: CreditContext | null): Promise<CreditValues> {
    if (row.status !== 'COMPLETED') throw new Error(`a credit of a ${row.status} collection`);
    if (!ctx) throw new Error(`collection ${row.id} has no ${row.account_currency} wallet to credit`);
    const completedAt = this.s.now();
    const plan = completionPlan({
      walletId: ctx.wallet_id,
      currency: row.account_currency,
      paymentMethod: row.payment_method,
      accountAmountMinor: row.account_amount_minor,
      feeMinor: row.fee_minor,
      totalCreditMinor: row.total_credit_minor,
      customerCharged: row.customer_charged,
      reservePercent: ctx.reserve_percent,
      reserveMonths: ctx.rolling_reserve_months,
      cardSettlementDays: ctx.card_settlement_days,
      completedAt,
    });
    assertBalanced(plan.postings);
    const known = new Map((ctx.accounts ?? []).map((a) => [accountName({ kind: a.kind, walletId: a.wallet_id, currency: a.currency }), a.id]));
    const keys = plan.postings.map((p) => p.account);
    const ids = keys.every((k) => known.has(accountName(k))) ? known : await this.accountIds(q, row.business_id, keys);
    return {
      credit: true,
      credited_at: completedAt,
      posting_accounts: plan.postings.map((p) => ids.get(accountName(p.account))),
      posting_amounts: plan.postings.map((p) => p.amountMinor),
      posting_currencies: plan.postings.map((p) => p.account.currency),
      posting_kinds: plan.postings.map((p) => p.kind),
      hold_wallet_id: ctx.wallet_id,
      hold_buckets: plan.holds.map((h) => h.bucket),
      hold_amounts: plan.holds.map((h) => h.amountMinor),
      hold_release_ats: plan.holds.map((h) => h.releaseAt),
    };
  }

  /** After a move's write found the collection credited already. */
  creditSkipped(row: CollectionRow): void {
    this.s.log.warn('collection already credited; second credit skipped', { collection_id: row.id });
  }

  /** Releases due holds (reserve and card settlement) to available, each exactly once. */
  async releaseDue(now: Date): Promise<number> {
    return this.s.db.tx('ledger-release', async (t) => {
      const holds = await t.any<DueHold>(
        `SELECT h.id, h.wallet_id, w.business_id, h.bucket, h.amount_minor, w.currency, j.collection_id
         FROM ledger_holds h JOIN wallets w ON w.id = h.wallet_id JOIN journals j ON j.id = h.journal_id
         WHERE h.released_journal_id IS NULL AND h.release_at <= $1
         ORDER BY h.release_at, h.id LIMIT $2 FOR UPDATE OF h SKIP LOCKED`,
        [now, RELEASE_BATCH],
      );
      for (const h of holds) await this.release(t, h, now);
      return holds.length;
    });
  }

  workers(): WorkerSpec[] {
    return [{ name: 'ledger-release', intervalMs: RELEASE_INTERVAL_MS, run: () => this.releaseDue(this.s.now()) }];
  }

  /**
   * Every wallet of the business with its balance parts; `currency` narrows it to one (or none). Reads
   * the running balances: at most 16 rows per account, however long the wallet's history.
   */
  async walletBalances(businessId: number, currency?: string): Promise<WalletBalance[]> {
    const rows = await this.s.db.any<{ currency: string; available: bigint; pending: bigint; reserved: bigint; refund_held: bigint; disbursement_held: bigint; dispute_held: bigint }>(
      WALLET_BALANCES_SQL,
      { businessId, currency: currency ?? null, limit: MAX_WALLETS },
    );
    return rows.map((r) => ({ currency: r.currency, availableMinor: r.available, pendingMinor: r.pending, reservedMinor: r.reserved, refundHeldMinor: r.refund_held, disbursementHeldMinor: r.disbursement_held, disputeHeldMinor: r.dispute_held }));
  }

  /** One wallet's balance; NOT_FOUND when the business has no wallet in the currency. */
  async walletBalance(businessId: number, currency: string): Promise<WalletBalance> {
    const [balance] = await this.walletBalances(businessId, currency);
    if (!balance) throw new AppError('NOT_FOUND', `Your business has no ${currency} wallet`);
    return balance;
  }

  /** A page of one wallet's postings, newest first (operator view). */
  async walletPostings(businessId: number, currency: string, page: PageRequest): Promise<ListPage<ReturnType<typeof toPosting>>> {
    const found = businessId <= MAX_INT4
      ? await this.s.db.oneOrNone<{ wallet_id: number | null }>(
          'SELECT w.id AS wallet_id FROM businesses b LEFT JOIN wallets w ON w.business_id = b.id AND w.currency = $2 WHERE b.id = $1',
          [businessId, currency],
        )
      : null;
    if (!found) throw new AppError('NOT_FOUND', `No business with id ${businessId}`);
    if (found.wallet_id === null) throw new AppError('NOT_FOUND', `Business ${businessId} has no ${currency} wallet`);
    const sql = `SELECT p.id, p.journal_id, c.gateway_reference, a.kind AS account, p.amount_minor, p.currency, p.kind, p.created_at
       FROM postings p JOIN ledger_accounts a ON a.id = p.account_id JOIN journals j ON j.id = p.journal_id
       LEFT JOIN collections c ON c.id = j.collection_id
       WHERE a.wallet_id = $1`;
    const listed = await listPage<PostingRow>(this.s.db, { sql, values: [found.wallet_id], key: BY_ID, direction: 'DESC' }, page);
    return { ...listed, rows: listed.rows.map(toPosting) };
  }

  private async release(t: Tx, h: DueHold, now: Date): Promise<void> {
    const plan = releasePlan({ walletId: h.wallet_id, currency: h.currency, bucket: h.bucket, amountMinor: h.amount_minor });
    assertBalanced(plan.postings);
    const journalId = await this.openJournal(t, plan.journalKind, h.collection_id, now);
    if (journalId === null) throw new Error('a release journal cannot conflict');
    await this.writePostings(t, journalId, h.business_id, plan.postings, now);
    const done = await t.result('UPDATE ledger_holds SET released_journal_id = $2 WHERE id = $1 AND released_journal_id IS NULL', [h.id, journalId]);
    if (done.rowCount !== 1) throw new Error(`hold ${h.id} was released twice`);
  }

  /** A new journal's id; null when this collection already has its (one) credit journal. */
  private async openJournal(t: Tx, kind: JournalKind, collectionId: bigint | null, at: Date): Promise<bigint | null> {
    const row = await t.oneOrNone<{ id: bigint }>(
      `INSERT INTO journals (collection_id, kind, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (collection_id) WHERE kind = 'collection_credit' DO NOTHING RETURNING id`,
      [collectionId, kind, at],
    );
    return row ? row.id : null;
  }

  private async writePostings(t: Tx, journalId: bigint, businessId: number, postings: PostingDraft[], at: Date): Promise<void> {
    const ids = await this.accountIds(t, businessId, postings.map((p) => p.account));
    const rows = postings.map((p) => ({
      journal_id: journalId,
      account_id: ids.get(accountName(p.account)),
      amount_minor: p.amountMinor,
      currency: p.account.currency,
      kind: p.kind,
      created_at: at,
    }));
    await t.none(pgp.helpers.insert(rows, postingColumns));
  }

  /**
   * A journal of money out (a refund's or a disbursement's hold, outcome or reversal), in the caller's
   * transaction: checked to balance, its accounts created on first use, written with its postings. False
   * when the owner has its journal of this kind already (nothing is written).
   */
  async postJournal(t: Tx, j: { businessId: number; owner: JournalOwner; kind: string; postings: PostingDraft[]; now: Date }): Promise<boolean> {
    assertBalanced(j.postings);
    const ids = await this.accountIds(t, j.businessId, j.postings.map((p) => p.account));
    const written = await t.any(POST_JOURNAL_SQL, {
      collectionId: j.owner.collectionId ?? null, refundId: j.owner.refundId ?? null, disbursementId: j.owner.disbursementId ?? null, disputeId: j.owner.disputeId ?? null, kind: j.kind, now: j.now,
      accountIds: j.postings.map((p) => ids.get(accountName(p.account))),
      amounts: j.postings.map((p) => p.amountMinor),
      currencies: j.postings.map((p) => p.account.currency),
    });
    return written.length === 1;
  }

  /**
   * Ledger account ids, created on first use. Inserts go in one fixed order (sorted keys), so two
   * transactions creating the same accounts wait for each other instead of deadlocking.
   */
  private async accountIds(t: Queryable, businessId: number, keys: AccountKey[]): Promise<Map<string, number>> {
    const unique = [...new Map(keys.map((k) => [accountName(k), k])).values()].sort((a, b) => (accountName(a) < accountName(b) ? -1 : 1));
    const params = [unique.map((k) => k.walletId), unique.map((k) => k.currency), unique.map((k) => k.kind)];
    const find = () =>
      t.any<{ id: number; wallet_id: number | null; currency: string; kind: AccountKey['kind'] }>(
        `SELECT a.id, a.wallet_id, a.currency, a.kind FROM ledger_accounts a
         JOIN unnest($1::int[], $2::text[], $3::text[]) AS v(wallet_id, currency, kind)
           ON a.wallet_id IS NOT DISTINCT FROM v.wallet_id AND a.currency = v.currency AND a.kind = v.kind`,
        params,
      );
    let rows = await find();
    if (rows.length < unique.length) {
      await t.none(
        `INSERT INTO ledger_accounts (business_id, wallet_id, currency, kind)
         SELECT CASE WHEN v.wallet_id IS NULL THEN NULL ELSE $4::int END, v.wallet_id, v.currency, v.kind
         FROM unnest($1::int[], $2::text[], $3::text[]) WITH ORDINALITY AS v(wallet_id, currency, kind, n)
         ORDER BY v.n ON CONFLICT DO NOTHING`,
        [...params, businessId],
      );
      rows = await find();
    }
    const ids = new Map(rows.map((r) => [accountName({ kind: r.kind, walletId: r.wallet_id, currency: r.currency }), r.id]));
    if (ids.size !== unique.length) throw new Error('ledger accounts could not be created');
    return ids;
  }
}
