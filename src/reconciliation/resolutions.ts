// An operator's resolution of an item (docs/reconciliation.md, "Resolving"): fixes never edit the past. A
// reversal the processor made on its own is posted as a new journal through the ledger (the collection's
// credit taken back: the wallet debited, processor clearing credited, the fee returned) and moves the
// collection COMPLETED -> REVERSED through its one state change, which writes the merchant's signed webhook
// and e-mail; an amount the processor paid over or under ours is adjusted by a journal through the ledger
// moving exactly the difference between the wallet and processor clearing; any item may be acknowledged
// with a reason (no money moves); an item of a refund or a disbursement (money out) is only acknowledged. Above the MID's approval threshold (the same rule as disbursements' four
// eyes, domain/disbursement.ts `needsApproval`) a reversal or an adjustment waits for a second operator, who
// is not the one who asked (the database refuses it too). Approving twice or at once carries it out once:
// the item's guarded update lets one approval through, and the ledger holds one reversal and one adjustment
// journal per collection.
import { afterCommit } from '../db/change';
import type { Queryable, Tx } from '../db';
import { sqlFiles } from '../db';
import { needsApproval } from '../domain/disbursement';
import type { AccountKey, PostingDraft } from '../domain/ledger';
import { AppError } from '../errors';
import type { Base } from '../base';
import type { LedgerService } from '../ledger/ledger';
import type { CollectionRow } from '../domain/collection';
import type { MoveFrom } from '../collections/move-batch';

const SQL = sqlFiles(__dirname, ['approve']);

export type ResolveAction = 'reverse' | 'adjust' | 'acknowledge';
export const ITEM_STATES = ['matched', 'amount_over', 'amount_under', 'currency_mismatch', 'ours_missing', 'theirs_missing', 'reversed_externally'] as const;
export type ItemState = (typeof ITEM_STATES)[number];

export interface ItemRow {
  id: bigint;
  mid_id: number;
  business_id: number | null;
  state: ItemState;
  collection_id: bigint | null;
  refund_id: bigint | null;
  disbursement_id: bigint | null;
  reference: string;
  ours_minor: bigint | null;
  ours_currency: string | null;
  theirs_minor: bigint | null;
  theirs_currency: string | null;
  resolution: 'awaiting_approval' | 'resolved' | null;
  action: ResolveAction | null;
  reason: string | null;
  requested_by: string | null;
  requested_at: Date | null;
  approved_by: string | null;
  resolved_at: Date | null;
}

export interface ResolutionParts extends Base {
  ledger: LedgerService;
  /** the collections' one state change, in the caller's transaction */
  moveCollection: (q: Queryable, collectionId: bigint, outcome: 'REVERSED', message: string, from: MoveFrom) => Promise<CollectionRow | null>;
}

/** The wallet's credit of a collection, taken back: every posting of its credit journal negated, the wallet's parts from available. */
export function reversalPostings(credit: { kind: AccountKey['kind']; wallet_id: number | null; currency: string; amount_minor: bigint }[]): PostingDraft[] {
  const sums = new Map<string, { account: AccountKey; amountMinor: bigint }>();
  for (const p of credit) {
    const account: AccountKey = p.wallet_id === null ? { kind: p.kind, walletId: null, currency: p.currency } : { kind: 'available', walletId: p.wallet_id, currency: p.currency };
    const key = `${account.kind}/${account.walletId}/${account.currency}`;
    const sum = sums.get(key) ?? { account, amountMinor: 0n };
    sum.amountMinor -= p.amount_minor;
    sums.set(key, sum);
  }
  return [...sums.values()].filter((s) => s.amountMinor !== 0n).map((s) => ({ ...s, kind: 'reconciliation_reversal' as const }));
}

/** What the processor paid more (positive) or less (negative) than we credited, moved between the wallet's available balance and processor clearing. */
export function adjustmentPostings(walletId: number, currency: string, differenceMinor: bigint): PostingDraft[] {
  if (differenceMinor === 0n) throw new AppError('INVALID_STATE', 'The processor paid what we credited: there is nothing to adjust');
  return [
    { account: { kind: 'available', walletId, currency }, amountMinor: differenceMinor, kind: 'reconciliation_adjustment' },
    { account: { kind: 'processor_clearing', walletId: null, currency }, amountMinor: -differenceMinor, kind: 'reconciliation_adjustment' },
  ];
}

type ItemToResolve = ItemRow & { collection_status: string | null; account_currency: string | null; approval_threshold_minor: bigint | null };

/** The money an action on the item moves (what four eyes weighs), or INVALID_STATE when the action does not fit the item. */
function amountMoved(item: ItemToResolve, action: ResolveAction): bigint {
  if (action === 'acknowledge') return 0n;
  if (item.refund_id !== null || item.disbursement_id !== null) {
    throw new AppError('INVALID_STATE', `The item is of a ${item.refund_id !== null ? 'refund' : 'disbursement'}: money out is not reversed or adjusted here; acknowledge the item instead`);
  }
  if (action === 'reverse') {
    if (item.state !== 'reversed_externally' || item.collection_status !== 'COMPLETED') {
      throw new AppError('INVALID_STATE', 'Only a reversal by the processor of a COMPLETED collection is posted as a reversal; acknowledge the item instead');
    }
    if (item.theirs_minor !== item.ours_minor || item.theirs_currency !== item.ours_currency) {
      throw new AppError('INVALID_STATE', 'The processor reversed part of the payment only: a partial reversal is not posted here; acknowledge the item instead');
    }
    return item.theirs_minor as bigint;
  }
  if ((item.state !== 'amount_over' && item.state !== 'amount_under') || item.collection_status !== 'COMPLETED') {
    throw new AppError('INVALID_STATE', 'Only an amount_over or amount_under item of a COMPLETED collection is adjusted; acknowledge the item instead');
  }
  if (item.account_currency !== item.theirs_currency) {
    throw new AppError('INVALID_STATE', `The collection was credited in ${item.account_currency}, not the statement's ${item.theirs_currency}: a converted difference is not adjusted here; acknowledge the item instead`);
  }
  const difference = (item.theirs_minor as bigint) - (item.ours_minor as bigint);
  return difference < 0n ? -difference : difference;
}

export class Resolutions {
  constructor(private readonly s: ResolutionParts) {}

  /** An operator's resolution of item `id` of MID `midId`: carried out now, or waiting for a second operator above the threshold. */
  async resolve(midId: number, id: bigint, r: { action: ResolveAction; reason: string }, by: string): Promise<ItemRow> {
    return this.s.db.tx('reconciliation-resolve', async (t) => {
      const item = await t.oneOrNone<ItemToResolve>(
        `SELECT i.*, c.status AS collection_status, c.account_currency, st.approval_threshold_minor
         FROM reconciliation_items i LEFT JOIN collections c ON c.id = i.collection_id
         LEFT JOIN reconciliation_settings st ON st.mid_id = i.mid_id
         WHERE i.id = $1 AND i.mid_id = $2 FOR UPDATE OF i`,
        [id, midId],
      );
      if (!item) throw new AppError('NOT_FOUND', `MID ${midId} has no reconciliation item ${id}`);
      if (item.state === 'matched') throw new AppError('INVALID_STATE', 'The item is matched: there is nothing to resolve');
      if (item.resolution !== null) throw new AppError('INVALID_STATE', `The item is ${item.resolution === 'resolved' ? 'resolved already' : 'waiting for a second operator\'s approval'}`);
      const amount = amountMoved(item, r.action);
      const waits = needsApproval(amount, item.approval_threshold_minor);
      const now = this.s.now();
      const asked = await t.one<ItemRow>(
        `UPDATE reconciliation_items SET resolution = $2, action = $3, reason = $4, requested_by = $5, requested_at = $6, resolved_at = $7
         WHERE id = $1 RETURNING *`,
        [id, waits ? 'awaiting_approval' : 'resolved', r.action, r.reason, by, now, waits ? null : now],
      );
      if (!waits) await this.carryOut(t, asked);
      return asked;
    });
  }

  /** A second operator's approval: carried out once; FORBIDDEN for who asked, INVALID_STATE when nothing waits. */
  async approve(midId: number, id: bigint, by: string): Promise<ItemRow> {
    return this.s.db.tx('reconciliation-approve', async (t) => {
      const item = await t.oneOrNone<ItemRow>('SELECT * FROM reconciliation_items WHERE id = $1 AND mid_id = $2', [id, midId]);
      if (!item) throw new AppError('NOT_FOUND', `MID ${midId} has no reconciliation item ${id}`);
      if (item.resolution === 'awaiting_approval' && item.requested_by === by) throw new AppError('FORBIDDEN', 'Another operator must approve a resolution you asked for');
      const approved = await t.oneOrNone<ItemRow>(SQL.approve, { id, by, now: this.s.now() });
      if (!approved) throw new AppError('INVALID_STATE', 'No resolution of this item waits for approval (resolved already, or never asked)');
      await this.carryOut(t, approved);
      return approved;
    });
  }

  /** What a resolution does once decided: a reversal's journal and the collection's move to REVERSED, or an adjustment's journal. */
  private async carryOut(t: Tx, item: ItemRow): Promise<void> {
    if (item.action === 'acknowledge' || item.action === null || item.collection_id === null) return;
    const credit = await t.any<{ kind: AccountKey['kind']; wallet_id: number | null; currency: string; amount_minor: bigint; business_id: number }>(
      `SELECT a.kind, a.wallet_id, p.currency, p.amount_minor, c.business_id
       FROM journals j JOIN postings p ON p.journal_id = j.id JOIN ledger_accounts a ON a.id = p.account_id JOIN collections c ON c.id = j.collection_id
       WHERE j.collection_id = $1 AND j.kind = 'collection_credit'`,
      [item.collection_id],
    );
    if (credit.length === 0) throw new AppError('INVALID_STATE', 'The collection has no credit to take back');
    const journal = { businessId: credit[0].business_id, owner: { collectionId: item.collection_id }, now: this.s.now() };
    if (item.action === 'adjust') {
      const wallet = credit.find((p) => p.wallet_id !== null) as { wallet_id: number; currency: string };
      const postings = adjustmentPostings(wallet.wallet_id, wallet.currency, (item.theirs_minor as bigint) - (item.ours_minor as bigint));
      if (!(await this.s.ledger.postJournal(t, { ...journal, kind: 'reconciliation_adjustment', postings }))) {
        throw new AppError('INVALID_STATE', 'The collection\'s adjustment is posted already');
      }
      return;
    }
    const posted = await this.s.ledger.postJournal(t, { ...journal, kind: 'reconciliation_reversal', postings: reversalPostings(credit) });
    if (!posted) throw new AppError('INVALID_STATE', 'The collection\'s reversal is posted already');
    const moved = await this.s.moveCollection(t, item.collection_id, 'REVERSED', `Payment reversed by the processor (${item.reference})`, 'COMPLETED');
    if (!moved) throw new AppError('INVALID_STATE', 'The collection is no longer COMPLETED');
    afterCommit(() => {
      this.s.kick('webhooks');
      this.s.kick('emails');
    });
  }
}
