// The dashboard's overview: for one business or all, today's (UTC) and the last 30 days'
// collections by payment method with their success rate and completed volume per currency (summed from
// the days), the last 30 days day by day per method and currency (the chart over time); for
// operators also the same per processor and MID over 30 days and what waits on them (failing webhooks,
// held payments and refunds, unknown outcomes). Read in one snapshot; amounts stay in minor units until
// the record.
import { DAY_MS } from '../domain/time';
import { reportSql, SNAPSHOT } from './sql';
import type { DbOf } from './sql';

const midsSql = reportSql('overview-mids.sql');
const daysSql = reportSql('overview-days.sql');
const attentionSql = reportSql('overview-attention.sql');

/** One group's counts as the statements return them, per currency. */
export interface CountRow {
  currency: string;
  collections: number;
  completed: number;
  final: number;
  volume_minor: bigint;
}

export interface MethodRow extends CountRow {
  payment_method: string;
}

/** One UTC day (YYYY-MM-DD) of one method and currency. */
export interface DayRow extends MethodRow {
  day: string;
}

export interface MidRow extends CountRow {
  service_type: string;
  mid_id: number;
  business_id: number;
}

export interface Attention {
  failing_webhooks: number;
  held_payments: number;
  held_refunds: number;
  unknown_outcomes: number;
}

export interface OverviewData {
  asOf: Date;
  today: { from: Date; rows: MethodRow[] };
  last30Days: { from: Date; rows: MethodRow[] };
  /** the last 30 days, day by day, oldest first */
  days: DayRow[];
  /** operators only */
  mids: MidRow[] | null;
  attention: Attention | null;
}

export class Overviews {
  constructor(
    private readonly db: DbOf,
    private readonly now: () => Date,
  ) {}

  /** `operator`: add the processors' side (per MID, and what waits on an operator). */
  async of(businessId: number | null, operator: boolean): Promise<OverviewData> {
    const asOf = this.now();
    const today = new Date(Math.floor(asOf.getTime() / DAY_MS) * DAY_MS);
    const monthAgo = new Date(today.getTime() - 29 * DAY_MS);
    return this.db().tx({ mode: SNAPSHOT }, async (t) => {
      const days = await t.any<DayRow>(daysSql, { from: monthAgo, business_id: businessId });
      const mids = operator ? await t.any<MidRow>(midsSql, { from: monthAgo, business_id: businessId }) : null;
      const attention = operator ? await t.one<Attention>(attentionSql, { business_id: businessId }) : null;
      const todays = byMethod(days.filter((d) => d.day >= utcDay(today)));
      return { asOf, today: { from: today, rows: todays }, last30Days: { from: monthAgo, rows: byMethod(days) }, days, mids, attention };
    });
  }
}

/** A UTC day as the days' statement writes it (YYYY-MM-DD). */
function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Days' rows summed per payment method and currency, ordered by method, then currency. */
export function byMethod(days: readonly DayRow[]): MethodRow[] {
  const sums = new Map<string, MethodRow>();
  for (const { payment_method, currency, collections, completed, final, volume_minor } of days) {
    const key = `${payment_method} ${currency}`;
    const s = sums.get(key);
    if (!s) sums.set(key, { payment_method, currency, collections, completed, final, volume_minor });
    else Object.assign(s, { collections: s.collections + collections, completed: s.completed + completed, final: s.final + final, volume_minor: s.volume_minor + volume_minor });
  }
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...sums.values()].sort((a, b) => order(a.payment_method, b.payment_method) || order(a.currency, b.currency));
}
