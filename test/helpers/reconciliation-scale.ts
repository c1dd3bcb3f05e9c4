// What the reconciliation tests at scale share: every item of a MID read through the operator API a page
// at a time, the counts a second intake must leave as they were, the resolution of every difference as an
// operator resolves it, and the days of a MID set against the ledger.
import type { Queryable } from '../../src/db';
import { ledgerDrift } from '../../src/ledger/ledger';
import { expectOk } from './merchants';
import type { TestService } from './service';

export interface ListedItem {
  id: number;
  day: string;
  state: string;
  reference: string;
  gateway_reference: string | null;
  line_kind: 'payment' | 'reversal' | null;
  theirs_amount: number | null;
  theirs_currency: string | null;
  resolution: string | null;
}

/** Every item of the MID, through the list's pages of 500. */
export async function allItems(svc: TestService, midId: number): Promise<ListedItem[]> {
  const out: ListedItem[] = [];
  for (let after = 0; ;) {
    const page = expectOk(await svc.admin.get(`/v1/admin/mids/${midId}/reconciliation-items?limit=500&after=${after}`)).items as ListedItem[];
    out.push(...page);
    if (page.length < 500) return out;
    after = page[page.length - 1].id;
  }
}

/** state -> the sorted values `key` gives of its items. */
export function byState(items: ListedItem[], key: (i: ListedItem) => string | null): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const i of items) (out[i.state] ??= []).push(String(key(i)));
  for (const k of Object.keys(out)) out[k].sort();
  return out;
}

export const counts = (db: Queryable) => db.one<{ statements: number; lines: number; items: number }>(
  `SELECT (SELECT count(*)::int FROM reconciliation_statements) AS statements, (SELECT count(*)::int FROM reconciliation_lines) AS lines,
     (SELECT count(*)::int FROM reconciliation_items) AS items`,
);

/** The action an operator takes on an item of each state: a reversal carried out, an amount adjusted, the rest acknowledged. */
export const ACTIONS: Record<string, 'reverse' | 'adjust' | 'acknowledge'> = {
  reversed_externally: 'reverse', amount_over: 'adjust', amount_under: 'adjust', currency_mismatch: 'acknowledge', ours_missing: 'acknowledge', theirs_missing: 'acknowledge',
};

/**
 * Each difference resolved through the API by the operator key; what waits for a second operator's
 * approval is approved by `approve`. The items that waited, by id.
 */
export async function resolveAll(svc: TestService, midId: number, items: ListedItem[], approve: (path: string) => Promise<{ status: number }>): Promise<number[]> {
  const waited: number[] = [];
  for (const i of items.filter((x) => x.state !== 'matched')) {
    const base = `/v1/admin/mids/${midId}/reconciliation-items/${i.id}`;
    const asked = expectOk(await svc.admin.post(`${base}/resolve`, { action: ACTIONS[i.state], reason: `Scale test: ${i.state}` }));
    if (asked.resolution === 'awaiting_approval') {
      waited.push(i.id);
      const res = await approve(`${base}/approve`);
      if (res.status !== 200) throw new Error(`approval of item ${i.id}: ${res.status}`);
    }
  }
  return waited;
}

export interface DaySides {
  day: string;
  /** what the processor reported, its payments less its reversals (day-totals.sql) */
  theirs_minor: bigint;
  /**
   * what the ledger moved through processor clearing for the day's items: a payment's credit and its
   * adjustment, a reversal's reversing journal
   */
  ledger_minor: bigint;
  /** the differences an operator acknowledged (no money moved): what they reported less what we recorded */
  acknowledged_minor: bigint;
}

/** Each day of the MID's items: the processor's total (ReconciliationService.dayTotals), the ledger's, and what was acknowledged. */
export async function daySides(svc: TestService, midId: number): Promise<DaySides[]> {
  const db = svc.services.db;
  // set-based (one join per side, grouped by day): a lookup per item is 10,000 lookups
  const rows = await db.any<{ day: string; ledger_minor: bigint; acknowledged_minor: bigint }>(
    `WITH items AS (
       SELECT i.*, l.kind AS line_kind FROM reconciliation_items i LEFT JOIN reconciliation_lines l ON l.id = i.line_id WHERE i.mid_id = $1
     ), clearing AS (
       SELECT j.collection_id, j.kind, -sum(p.amount_minor) AS minor
       FROM journals j JOIN postings p ON p.journal_id = j.id JOIN ledger_accounts a ON a.id = p.account_id
       WHERE a.kind = 'processor_clearing' AND j.kind IN ('collection_credit', 'reconciliation_adjustment', 'reconciliation_reversal')
       GROUP BY j.collection_id, j.kind
     ), ledger AS (
       SELECT i.day, sum(c.minor) AS minor FROM items i
       JOIN clearing c ON c.collection_id = i.collection_id
         AND CASE WHEN i.line_kind = 'reversal' THEN c.kind = 'reconciliation_reversal' ELSE c.kind <> 'reconciliation_reversal' END
       GROUP BY i.day
     ), acknowledged AS (
       SELECT i.day, sum(CASE WHEN i.action = 'acknowledge'
         THEN COALESCE(CASE WHEN i.line_kind = 'reversal' THEN -i.theirs_minor ELSE i.theirs_minor END, 0) - COALESCE(i.ours_minor, 0) ELSE 0 END) AS minor
       FROM items i GROUP BY i.day
     )
     SELECT k.day::text AS day, COALESCE(l.minor, 0)::bigint AS ledger_minor, k.minor::bigint AS acknowledged_minor
     FROM acknowledged k LEFT JOIN ledger l ON l.day = k.day ORDER BY k.day`,
    [midId],
  );
  const out: DaySides[] = [];
  for (const r of rows) {
    const t = await svc.services.reconciliation.dayTotals(midId, r.day.slice(0, 10));
    out.push({ day: r.day.slice(0, 10), theirs_minor: t.theirs_minor, ledger_minor: r.ledger_minor, acknowledged_minor: r.acknowledged_minor });
  }
  return out;
}

/**
 * A statement's MID, resolved as an operator resolves it: what waits for a second operator's approval is
 * approved by `approve` (without one, nothing may wait: every difference is under the MID's threshold);
 * nothing is left undecided, each day (at least `minDays`) of the processor's totals equals what the ledger
 * moved for it plus what was acknowledged, what was acknowledged in all is `acknowledgedMinor`, and the
 * ledger has no drift. The items that waited, by id.
 */
export async function expectResolvedDaysEqualLedger(
  svc: TestService, midId: number, acknowledgedMinor: bigint, approve?: (path: string) => Promise<{ status: number }>, minDays = 3,
): Promise<number[]> {
  const waited = await resolveAll(svc, midId, await allItems(svc, midId), approve ?? (async (path) => { throw new Error(`${path} waited for approval`); }));
  if (!approve) expect(waited).toEqual([]);
  const after = await allItems(svc, midId);
  expect(after.filter((i) => i.state !== 'matched' && i.resolution !== 'resolved')).toEqual([]);
  const days = await daySides(svc, midId);
  expect(days.length).toBeGreaterThanOrEqual(minDays);
  for (const d of days) expect({ day: d.day, theirs: d.theirs_minor }).toEqual({ day: d.day, theirs: d.ledger_minor + d.acknowledged_minor });
  expect(days.reduce((a, d) => a + d.acknowledged_minor, 0n)).toBe(acknowledgedMinor);
  expect(await ledgerDrift(svc.services.db)).toEqual([]);
  return waited;
}
