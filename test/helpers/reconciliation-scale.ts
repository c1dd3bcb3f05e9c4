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
  currency: string;
  /** what the processor reported in the currency, its payments less its reversals (day-totals.sql) */
  theirs_minor: bigint;
  /**
   * what the ledger moved through processor clearing in the currency for the day's items: a payment's
   * credit and its adjustment, a reversal's reversing journal
   */
  ledger_minor: bigint;
  /**
   * the differences an operator acknowledged (no money moved): what they reported in the currency less what
   * we recorded in it (an item of another currency counts its two sides under their two currencies)
   */
  acknowledged_minor: bigint;
}

/**
 * Each day and currency of the MID's items: the processor's total (ReconciliationService.dayTotals), the
 * ledger's, and what was acknowledged; a currency one of them has and another has not is 0 there.
 */
export async function daySides(svc: TestService, midId: number): Promise<DaySides[]> {
  const db = svc.services.db;
  // set-based (one join per side, grouped by day and currency): a lookup per item is 10,000 lookups
  const rows = await db.any<{ day: string; currency: string; ledger_minor: bigint; acknowledged_minor: bigint }>(
    `WITH items AS (
       SELECT i.*, l.kind AS line_kind FROM reconciliation_items i LEFT JOIN reconciliation_lines l ON l.id = i.line_id WHERE i.mid_id = $1
     ), clearing AS (
       SELECT j.collection_id, j.kind, a.currency, -sum(p.amount_minor) AS minor
       FROM journals j JOIN postings p ON p.journal_id = j.id JOIN ledger_accounts a ON a.id = p.account_id
       WHERE a.kind = 'processor_clearing' AND j.kind IN ('collection_credit', 'reconciliation_adjustment', 'reconciliation_reversal')
       GROUP BY j.collection_id, j.kind, a.currency
     ), ledger AS (
       SELECT i.day, c.currency, sum(c.minor) AS minor FROM items i
       JOIN clearing c ON c.collection_id = i.collection_id
         AND CASE WHEN i.line_kind = 'reversal' THEN c.kind = 'reconciliation_reversal' ELSE c.kind <> 'reconciliation_reversal' END
       GROUP BY i.day, c.currency
     ), acknowledged AS (
       SELECT i.day, s.currency, sum(s.minor) AS minor
       FROM items i CROSS JOIN LATERAL (VALUES
         (i.theirs_currency, CASE WHEN i.line_kind = 'reversal' THEN -i.theirs_minor ELSE i.theirs_minor END), (i.ours_currency, -i.ours_minor)
       ) s (currency, minor)
       WHERE i.action = 'acknowledge' AND s.currency IS NOT NULL
       GROUP BY i.day, s.currency
     )
     SELECT COALESCE(l.day, k.day)::text AS day, COALESCE(l.currency, k.currency)::text AS currency,
       COALESCE(l.minor, 0)::bigint AS ledger_minor, COALESCE(k.minor, 0)::bigint AS acknowledged_minor
     FROM ledger l FULL JOIN acknowledged k ON k.day = l.day AND k.currency = l.currency`,
    [midId],
  );
  const key = (day: string, currency: string) => `${day} ${currency}`;
  const sides = new Map(rows.map((r) => [key(r.day.slice(0, 10), r.currency), r]));
  const days = await db.any<{ day: string }>('SELECT DISTINCT day::text AS day FROM reconciliation_items WHERE mid_id = $1 ORDER BY day', [midId]);
  const out: DaySides[] = [];
  for (const { day } of days) {
    const theirs = new Map((await svc.services.reconciliation.dayTotals(midId, day)).currencies.map((c) => [c.currency, c.theirs_minor]));
    const currencies = new Set([...theirs.keys(), ...[...sides.values()].filter((r) => r.day.slice(0, 10) === day).map((r) => r.currency)]);
    for (const currency of [...currencies].sort()) {
      const r = sides.get(key(day, currency));
      out.push({ day, currency, theirs_minor: theirs.get(currency) ?? 0n, ledger_minor: r?.ledger_minor ?? 0n, acknowledged_minor: r?.acknowledged_minor ?? 0n });
    }
  }
  return out;
}

/**
 * The days (at least `minDays`) of a resolved MID: in each day's every currency, the processor's total equals
 * what the ledger moved for it plus what was acknowledged, to the minor unit.
 */
export function expectDaysEqualLedger(days: DaySides[], minDays = 3): void {
  expect(new Set(days.map((d) => d.day)).size).toBeGreaterThanOrEqual(minDays);
  for (const d of days) expect({ day: d.day, currency: d.currency, theirs: d.theirs_minor }).toEqual({ day: d.day, currency: d.currency, theirs: d.ledger_minor + d.acknowledged_minor });
}

/**
 * A statement's MID, resolved as an operator resolves it: what waits for a second operator's approval is
 * approved by `approve` (without one, nothing may wait: every difference is under the MID's threshold);
 * nothing is left undecided, each day (at least `minDays`) of the processor's totals in each currency equals
 * what the ledger moved for it plus what was acknowledged (expectDaysEqualLedger), what was acknowledged in
 * all is `acknowledgedMinor` per currency (the MID's one currency when a single figure), and the ledger has
 * no drift. The items that waited, by id.
 */
export async function expectResolvedDaysEqualLedger(
  svc: TestService, midId: number, acknowledgedMinor: bigint | Record<string, bigint>, approve?: (path: string) => Promise<{ status: number }>, minDays = 3,
): Promise<number[]> {
  const waited = await resolveAll(svc, midId, await allItems(svc, midId), approve ?? (async (path) => { throw new Error(`${path} waited for approval`); }));
  if (!approve) expect(waited).toEqual([]);
  const after = await allItems(svc, midId);
  expect(after.filter((i) => i.state !== 'matched' && i.resolution !== 'resolved')).toEqual([]);
  const days = await daySides(svc, midId);
  expectDaysEqualLedger(days, minDays);
  const acknowledged: Record<string, bigint> = {};
  for (const d of days) acknowledged[d.currency] = (acknowledged[d.currency] ?? 0n) + d.acknowledged_minor;
  if (typeof acknowledgedMinor === 'bigint') {
    expect(Object.keys(acknowledged)).toHaveLength(1);
    expect(Object.values(acknowledged)[0]).toBe(acknowledgedMinor);
  } else expect(acknowledged).toEqual(acknowledgedMinor);
  expect(await ledgerDrift(svc.services.db)).toEqual([]);
  return waited;
}
