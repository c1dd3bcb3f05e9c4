// The targets `npm run bench` holds its figures to (docs/performance.md), each judged met or missed from the
// figures of one run: pure, so test/bench/targets.test.ts checks every judgement without timing anything.
import type { HttpFigures } from './lib';
import type { HotWalletFigures } from './hot-wallet';
import type { RefundFigures } from './refunds';
import type { WebhookFigures } from './webhooks';
import type { ReconciliationFigures } from './reconciliation';

export const TARGETS = {
  /** request-to-pay answered per second against the Prism mock of the same contract, same load, same run */
  vs_prism: 2,
  /** ... and against a node:http server doing one INSERT per request */
  vs_floor: 0.7,
  /** the fixed offered load, open loop, after the 50-connection run */
  fixed_rate_per_s: 1000,
  fixed_rate_p99_ms: 25,
  hot_wallet_per_s: 3000,
  /** a hot-wallet figure over fewer completions lasts about a second and swings with the machine */
  hot_wallet_min_completions: 8000,
  peak_rss_mb: 200,
  webhook_rate_per_s: 500,
  webhook_p99_ms: 250,
  /** refunds per second on one hot wallet: the lowest of the three quiet runs before this work, so less is a regression */
  refunds_per_s: 76,
  /** a statement of this many rows taken in and matched within this many seconds */
  reconciliation_rows: 100_000,
  reconciliation_seconds: 60,
  /** streaming: what the process holds (its heap after a full collection) at the last tenth of the rows at most this far above the first tenth's */
  reconciliation_growth_mb: 8,
};

/** What one run measured, as far as the targets need it; null where the run did not measure it. */
export interface RunFigures {
  service: HttpFigures | null;
  fixed_rate: (HttpFigures & { offered_per_s: number }) | null;
  prism: HttpFigures | null;
  floor: HttpFigures | null;
  hot_wallet: HotWalletFigures | null;
  refunds: RefundFigures | null;
  /** the first is the one held to the target (the deliveries in a worker process where there is a server) */
  webhooks: WebhookFigures[] | null;
  reconciliation: ReconciliationFigures | null;
}

export interface Judged {
  key: string;
  what: string;
  figure: string;
  target: string;
  /** null: not measured in this run */
  met: boolean | null;
}

const fmt = (n: number | null | undefined, digits = 0) => (n === null || n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits));

/** a / b answered per second, two decimals; null when either is missing or b answered nothing */
export function ratio(a: HttpFigures | null, b: HttpFigures | null): number | null {
  return a && b && b.req_per_s > 0 ? Math.round((a.req_per_s / b.req_per_s) * 100) / 100 : null;
}

/** The highest resident memory sampled in the service's measured runs (50 connections and the fixed rate). */
export function peakRss(f: RunFigures): number | null {
  const peaks = [f.service?.peak_rss_mb, f.fixed_rate?.peak_rss_mb].filter((v): v is number => typeof v === 'number');
  return peaks.length > 0 ? Math.max(...peaks) : null;
}

/** Every target of the run, with its figure and whether it was met. */
export function judge(f: RunFigures, t = TARGETS): Judged[] {
  const rows: Judged[] = [];
  // judged on the rates themselves, not on the ratio rounded for printing (1.999x is not 2x)
  const against = (key: string, what: string, other: HttpFigures | null, target: number) => {
    const r = ratio(f.service, other);
    const met = r === null ? null : f.service!.req_per_s >= target * other!.req_per_s;
    rows.push({ key, what, figure: r === null ? '-' : `${fmt(r, 2)}x`, target: `>= ${target}x`, met });
  };
  against('vs_prism', 'request-to-pay / Prism mock', f.prism, t.vs_prism);
  against('vs_floor', 'request-to-pay / one-INSERT floor', f.floor, t.vs_floor);
  rows.push({ key: 'zero_errors', what: 'request-to-pay errors at 50 connections', figure: f.service ? String(f.service.errors) : '-', target: '0', met: f.service ? f.service.errors === 0 : null });
  const fixed = f.fixed_rate;
  const fixedMet = fixed ? fixed.offered_per_s >= t.fixed_rate_per_s && fixed.errors === 0 && fixed.p99_ms <= t.fixed_rate_p99_ms : null;
  rows.push({
    key: 'fixed_rate_p99_ms',
    what: 'request-to-pay p99 at a fixed rate, open loop, after the 50-connection load',
    figure: fixed ? `${fmt(fixed.p99_ms, 1)} ms at ${fixed.offered_per_s} req/s (${fmt(fixed.req_per_s)} answered, ${fixed.errors} errors)` : '-',
    target: `<= ${t.fixed_rate_p99_ms} ms at ${t.fixed_rate_per_s} req/s, 0 errors`,
    met: fixedMet,
  });
  const hot = f.hot_wallet;
  rows.push({
    key: 'hot_wallet_per_s',
    what: 'hot-wallet completions',
    figure: hot ? `${fmt(hot.per_s)}/s over ${hot.completions}, balance ${hot.exact_balance ? 'exact' : 'WRONG'}` : '-',
    target: `>= ${t.hot_wallet_per_s}/s over >= ${t.hot_wallet_min_completions}, exact`,
    met: hot ? hot.exact_balance && hot.completions >= t.hot_wallet_min_completions && hot.per_s >= t.hot_wallet_per_s : null,
  });
  const rss = peakRss(f);
  rows.push({ key: 'peak_rss_mb', what: 'service peak RSS under that load', figure: rss === null ? '-' : `${fmt(rss)} MB`, target: `<= ${t.peak_rss_mb} MB`, met: rss === null ? null : rss <= t.peak_rss_mb });
  const w = f.webhooks?.[0] ?? null;
  rows.push({
    key: 'webhook_p99_ms',
    what: `webhook latency${w ? (w.processes === 'one' ? ', deliveries in the changing process' : ', API process + worker process') : ''}`,
    figure: w ? `p99 ${fmt(w.p99_ms)} ms at ${w.rate_per_s}/s (${w.delivered}/${w.events} delivered)` : '-',
    target: `<= ${t.webhook_p99_ms} ms at ${t.webhook_rate_per_s}/s, all delivered`,
    met: w ? w.rate_per_s >= t.webhook_rate_per_s && w.delivered === w.events && w.p99_ms <= t.webhook_p99_ms : null,
  });
  const r = f.refunds;
  rows.push({
    key: 'refunds_per_s',
    what: 'hot-wallet refunds through the API (no regression)',
    figure: r ? `${fmt(r.per_s)}/s, ${r.errors} errors, balance ${r.exact_balance ? 'exact' : 'WRONG'}` : '-',
    target: `>= ${t.refunds_per_s}/s, 0 errors, exact`,
    met: r ? r.exact_balance && r.errors === 0 && r.per_s >= t.refunds_per_s : null,
  });
  const rec = f.reconciliation;
  rows.push({
    key: 'reconciliation_seconds',
    what: 'a statement taken in and matched',
    figure: rec ? `${fmt(rec.seconds, 1)} s for ${rec.rows} rows, ${rec.matched} of ${rec.lines} matched; again ${fmt(rec.again_seconds, 1)} s, ${rec.again_created ? 'CREATED' : 'nothing'} created` : '-',
    target: `<= ${t.reconciliation_seconds} s for >= ${t.reconciliation_rows} rows, all matched, nothing the second time`,
    met: rec ? rec.rows >= t.reconciliation_rows && rec.seconds <= t.reconciliation_seconds && rec.matched === rec.lines && !rec.again_created && rec.items_after_again === rec.lines : null,
  });
  const live = rec?.live_heap_by_tenth_mb ?? [];
  const growth = live.length === 10 ? live[9] - live[0] : null;
  rows.push({
    key: 'reconciliation_growth_mb',
    what: 'memory held while the statement streams in (live heap, last tenth of the rows against the first)',
    figure: rec ? `${growth === null ? '-' : `${growth >= 0 ? '+' : ''}${fmt(growth, 1)} MB`} (${live.map((v) => fmt(v, 1)).join(', ')} MB; resident peak ${fmt(rec.peak_rss_mb)} MB)` : '-',
    target: `<= +${t.reconciliation_growth_mb} MB`,
    met: rec ? growth !== null && growth <= t.reconciliation_growth_mb : null,
  });
  return rows;
}

/** The judged targets as a table with a met/missed column; targets not measured in this run are left out. */
export function targetTable(rows: Judged[]): string {
  const shown = rows.filter((r) => r.met !== null).map((r) => [r.what, r.figure, r.target, r.met ? 'met' : 'MISSED']);
  if (shown.length === 0) return '';
  const head = ['target', 'figure', 'to meet', ''];
  const w = head.map((h, i) => Math.max(h.length, ...shown.map((row) => row[i].length)));
  const line = (c: string[]) => '| ' + c.map((v, i) => v.padEnd(w[i])).join(' | ') + ' |';
  return [line(head), '|' + w.map((n) => '-'.repeat(n + 2)).join('|') + '|', ...shown.map(line)].join('\n');
}
