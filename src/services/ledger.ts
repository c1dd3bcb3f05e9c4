// The double-entry ledger: postings on completion, releases of held amounts, balances. Balances are
// always sums of postings (no running balance), so there is no balance row to lock: concurrent
// completions of one wallet only append rows and never wait for each other.
import { pgp } from '../db';
import type { Tx } from '../db';
import type { CollectionRow } from '../domain/collection';
import { accountName, assertBalanced, completionPlan, releasePlan, walletTotal } from '../domain/ledger';
import type { AccountKey, HoldBucket, HoldDraft, JournalKind, PostingDraft, WalletParts } from '../domain/ledger';
import { toApi } from '../domain/money';
import { apiTime } from '../domain/time';
import { AppError } from '../errors';
import type { WorkerSpec } from '../workers';
import type { Services } from './index';

/** Holds released per transaction by the worker; a full batch runs again at once. */
export const RELEASE_BATCH = 100;
export const RELEASE_INTERVAL_MS = 1000;
/** More wallets than ISO 4217 has currencies is a bug, not a business. */
const MAX_WALLETS = 500;
const MAX_INT4 = 2_147_483_647;

export interface WalletBalance extends WalletParts {
  currency: string;
}

/** The API's Posting record. */
export interface PostingRecord {
  id: number;
  journal_id: number;
  gateway_reference: string | null;
  account: string;
  amount: number;
  currency: string;
  kind: string;
  created_at: string;
}

interface PostingRow {
  id: bigint;
  journal_id: bigint;
  gateway_reference: string | null;
  account: string;
  amount_minor: bigint;
  currency: string;
  kind: string;
  created_at: Date;
}

interface DueHold {
  id: bigint;
  wallet_id: number;
  business_id: number;
  bucket: HoldBucket;
  amount_minor: bigint;
  currency: string;
  collection_id: bigint | null;
}

const postingColumns = new pgp.helpers.ColumnSet(['journal_id', 'account_id', 'amount_minor', 'currency', 'kind', 'created_at'], {
  table: 'postings',
});
const holdColumns = new pgp.helpers.ColumnSet(['journal_id', 'wallet_id', 'bucket', 'amount_minor', 'release_at'], {
  table: 'ledger_holds',
});


export function toBalanceRecord(b: WalletBalance) {
  return {
    currency: b.currency,
    balance: toApi(walletTotal(b)),
    available_balance: toApi(b.availableMinor),
    pending_balance: toApi(b.pendingMinor),
    reserved_balance: toApi(b.reservedMinor),
  };
}

function toPostingRecord(r: PostingRow): PostingRecord {
  return {
    id: Number(r.id),
    journal_id: Number(r.journal_id),
    gateway_reference: r.gateway_reference,
    account: r.account,
    amount: toApi(r.amount_minor),
    currency: r.currency,
    kind: r.kind,
    created_at: apiTime(r.created_at),
  };
}

export class LedgerService {
  constructor(readonly s: Services) {}

  /**
   * Inside the transaction that moves the collection to COMPLETED: credit it, once. The postings are
   * checked to balance before anything is written; a second credit of the same collection is
   * impossible (journals_one_credit) and is skipped here.
   */
  async postCompletion(t: Tx, row: CollectionRow): Promise<void> {
    if (row.status !== 'COMPLETED') throw new Error(`postCompletion on a ${row.status} collection`);
    const biz = await t.oneOrNone<{ wallet_id: number; reserve_percent: string; rolling_reserve_months: number; card_settlement_days: number }>(
      `SELECT w.id AS wallet_id, b.rolling_reserve_percent::text AS reserve_percent, b.rolling_reserve_months, b.card_settlement_days
       FROM wallets w JOIN businesses b ON b.id = w.business_id WHERE w.business_id = $1 AND w.currency = $2`,
      [row.business_id, row.account_currency],
    );
    if (!biz) throw new Error(`collection ${row.id} has no ${row.account_currency} wallet to credit`);
    const completedAt = this.s.now();
    const plan = completionPlan({
      walletId: biz.wallet_id,
      currency: row.account_currency,
      paymentMethod: row.payment_method,
      accountAmountMinor: row.account_amount_minor,
      feeMinor: row.fee_minor,
      totalCreditMinor: row.total_credit_minor,
      customerCharged: row.customer_charged,
      reservePercent: biz.reserve_percent,
      reserveMonths: biz.rolling_reserve_months,
      cardSettlementDays: biz.card_settlement_days,
      completedAt,
    });
    assertBalanced(plan.postings);
    const journalId = await this.openJournal(t, 'collection_credit', row.id, completedAt);
    if (journalId === null) {
      this.s.log.warn('collection already credited; second credit skipped', { collection_id: row.id });
      return;
    }
    await this.writePostings(t, journalId, row.business_id, plan.postings, completedAt);
    await this.writeHolds(t, journalId, biz.wallet_id, plan.holds);
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

  /** Every wallet of the business with its balance parts; `currency` narrows it to one (or none). */
  async walletBalances(businessId: number, currency?: string): Promise<WalletBalance[]> {
    const rows = await this.s.db.any<{ currency: string; available: bigint; pending: bigint; reserved: bigint }>(
      `SELECT w.currency,
         COALESCE(SUM(p.amount_minor) FILTER (WHERE a.kind = 'available'), 0)::bigint AS available,
         COALESCE(SUM(p.amount_minor) FILTER (WHERE a.kind = 'pending'), 0)::bigint AS pending,
         COALESCE(SUM(p.amount_minor) FILTER (WHERE a.kind = 'reserved'), 0)::bigint AS reserved
       FROM wallets w LEFT JOIN ledger_accounts a ON a.wallet_id = w.id LEFT JOIN postings p ON p.account_id = a.id
       WHERE w.business_id = $1 AND ($2::text IS NULL OR w.currency = $2)
       GROUP BY w.id, w.currency, w.is_default ORDER BY w.is_default DESC, w.currency LIMIT $3`,
      [businessId, currency ?? null, MAX_WALLETS],
    );
    return rows.map((r) => ({ currency: r.currency, availableMinor: r.available, pendingMinor: r.pending, reservedMinor: r.reserved }));
  }

  /** One wallet's balance; NOT_FOUND when the business has no wallet in the currency. */
  async walletBalance(businessId: number, currency: string): Promise<WalletBalance> {
    const [balance] = await this.walletBalances(businessId, currency);
    if (!balance) throw new AppError('NOT_FOUND', `Your business has no ${currency} wallet`);
    return balance;
  }

  /** A page of one wallet's postings, newest first (operator view). */
  async walletPostings(businessId: number, currency: string, page: { perPage: number; offset: number }) {
    const found = businessId <= MAX_INT4
      ? await this.s.db.oneOrNone<{ wallet_id: number | null }>(
          'SELECT w.id AS wallet_id FROM businesses b LEFT JOIN wallets w ON w.business_id = b.id AND w.currency = $2 WHERE b.id = $1',
          [businessId, currency],
        )
      : null;
    if (!found) throw new AppError('NOT_FOUND', `No business with id ${businessId}`);
    if (found.wallet_id === null) throw new AppError('NOT_FOUND', `Business ${businessId} has no ${currency} wallet`);
    const { total } = await this.s.db.one<{ total: number }>(
      'SELECT count(*)::int AS total FROM postings p JOIN ledger_accounts a ON a.id = p.account_id WHERE a.wallet_id = $1',
      [found.wallet_id],
    );
    const rows = await this.s.db.any<PostingRow>(
      `SELECT p.id, p.journal_id, c.gateway_reference, a.kind AS account, p.amount_minor, p.currency, p.kind, p.created_at
       FROM postings p JOIN ledger_accounts a ON a.id = p.account_id JOIN journals j ON j.id = p.journal_id
       LEFT JOIN collections c ON c.id = j.collection_id
       WHERE a.wallet_id = $1 ORDER BY p.id DESC LIMIT $2 OFFSET $3`,
      [found.wallet_id, page.perPage, page.offset],
    );
    return { items: rows.map(toPostingRecord), total };
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

  private async writeHolds(t: Tx, journalId: bigint, walletId: number, holds: HoldDraft[]): Promise<void> {
    if (holds.length === 0) return;
    const rows = holds.map((h) => ({ journal_id: journalId, wallet_id: walletId, bucket: h.bucket, amount_minor: h.amountMinor, release_at: h.releaseAt }));
    await t.none(pgp.helpers.insert(rows, holdColumns));
  }

  /**
   * Ledger account ids, created on first use. Inserts go in one fixed order (sorted keys), so two
   * transactions creating the same accounts wait for each other instead of deadlocking.
   */
  private async accountIds(t: Tx, businessId: number, keys: AccountKey[]): Promise<Map<string, number>> {
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
