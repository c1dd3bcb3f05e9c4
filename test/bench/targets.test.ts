// The bench judges each target of docs/performance.md from one run's figures: met, missed, or not measured. The figures here
// are handed in, not measured: nothing is timed.
import { judge, peakRss, ratio, TARGETS, targetTable } from '../../scripts/bench/targets';
import type { RunFigures } from '../../scripts/bench/targets';
import type { HttpFigures } from '../../scripts/bench/lib';
import type { HotWalletFigures } from '../../scripts/bench/hot-wallet';
import type { ReconciliationFigures } from '../../scripts/bench/reconciliation';

const http = (req_per_s: number, more: Partial<HttpFigures> = {}): HttpFigures => ({
  req_per_s,
  p50_ms: 5,
  p99_ms: 20,
  requests: req_per_s * 10,
  errors: 0,
  non_2xx: 0,
  timeouts: 0,
  peak_rss_mb: 150,
  cpu_per_request: { server_ms: 0.5, postgres_ms: 0.3, load_generator_ms: 0.2 },
  window: { start: 0, end: 10_000 },
  ...more,
});
const hot = (per_s: number, completions = 8000, exact_balance = true): HotWalletFigures => ({
  completions,
  concurrency: 50,
  per_s,
  seconds: completions / per_s,
  exact_balance,
  expected_credit_minor: '1',
  wallet_moved_minor: exact_balance ? '1' : '2',
  credit_journals: completions,
  cpu_ms_per_completion: { process_ms: 0.2, postgres_ms: 0.4 },
});
const NONE: RunFigures = { service: null, fixed_rate: null, prism: null, floor: null, hot_wallet: null, refunds: null, webhooks: null, reconciliation: null };
const metOf = (f: RunFigures) => Object.fromEntries(judge(f).map((j) => [j.key, j.met]));

it('holds request-to-pay to twice Prism and 0.7 of the floor, in the same run', () => {
  expect(ratio(http(2000), http(1000))).toBe(2);
  expect(ratio(http(2000), null)).toBeNull();
  expect(ratio(http(2000), http(0))).toBeNull();
  expect(metOf({ ...NONE, service: http(2000), prism: http(1000), floor: http(2857) })).toMatchObject({ vs_prism: true, vs_floor: true });
  expect(metOf({ ...NONE, service: http(1999), prism: http(1000), floor: http(3000) })).toMatchObject({ vs_prism: false, vs_floor: false });
});

it('holds the fixed rate to p99 25 ms at 1000 req/s with no error: a lower offered rate does not count', () => {
  const fixed = (offered_per_s: number, p99_ms: number, errors = 0) => ({ ...http(offered_per_s, { p99_ms, errors }), offered_per_s });
  expect(metOf({ ...NONE, fixed_rate: fixed(1000, 25) }).fixed_rate_p99_ms).toBe(true);
  expect(metOf({ ...NONE, fixed_rate: fixed(1000, 25.1) }).fixed_rate_p99_ms).toBe(false);
  expect(metOf({ ...NONE, fixed_rate: fixed(1000, 10, 1) }).fixed_rate_p99_ms).toBe(false);
  expect(metOf({ ...NONE, fixed_rate: fixed(500, 10) }).fixed_rate_p99_ms).toBe(false);
});

it('holds the hot wallet to 3000/s over at least 8000 completions with the balance exact', () => {
  expect(metOf({ ...NONE, hot_wallet: hot(3000) }).hot_wallet_per_s).toBe(true);
  expect(metOf({ ...NONE, hot_wallet: hot(2999) }).hot_wallet_per_s).toBe(false);
  expect(metOf({ ...NONE, hot_wallet: hot(5000, 2000) }).hot_wallet_per_s).toBe(false);
  expect(metOf({ ...NONE, hot_wallet: hot(5000, 8000, false) }).hot_wallet_per_s).toBe(false);
});

it('holds peak RSS to 200 MB over both measured runs, the higher counting', () => {
  const fixedRate = { ...http(1000, { peak_rss_mb: 201 }), offered_per_s: 1000 };
  expect(peakRss({ ...NONE, service: http(1, { peak_rss_mb: 180 }), fixed_rate: fixedRate })).toBe(201);
  expect(metOf({ ...NONE, service: http(1, { peak_rss_mb: 180 }), fixed_rate: fixedRate }).peak_rss_mb).toBe(false);
  expect(metOf({ ...NONE, service: http(1, { peak_rss_mb: 200 }) }).peak_rss_mb).toBe(true);
});

it('holds webhooks to p99 250 ms at 500 changes/s with every one delivered, judging the first figure', () => {
  const w = (p99_ms: number, delivered = 1000, rate_per_s = 500) => ({ processes: 'api + worker' as const, rate_per_s, events: 1000, delivered, p50_ms: 1, p99_ms, max_ms: p99_ms });
  expect(metOf({ ...NONE, webhooks: [w(250), w(2000)] }).webhook_p99_ms).toBe(true);
  expect(metOf({ ...NONE, webhooks: [w(251)] }).webhook_p99_ms).toBe(false);
  expect(metOf({ ...NONE, webhooks: [w(10, 999)] }).webhook_p99_ms).toBe(false);
  expect(metOf({ ...NONE, webhooks: [w(10, 1000, 200)] }).webhook_p99_ms).toBe(false);
});

it('holds refunds to no regression: exact, no error, at least the earlier quiet runs lowest rate', () => {
  const r = (per_s: number, errors = 0, exact_balance = true) => ({ refunds: 1000, concurrency: 20, per_s, seconds: 1, errors, exact_balance, expected_debit_minor: '1', available_moved_minor: '1', hold_journals: 1000 });
  expect(metOf({ ...NONE, refunds: r(TARGETS.refunds_per_s) }).refunds_per_s).toBe(true);
  expect(metOf({ ...NONE, refunds: r(TARGETS.refunds_per_s - 1) }).refunds_per_s).toBe(false);
  expect(metOf({ ...NONE, refunds: r(500, 1) }).refunds_per_s).toBe(false);
  expect(metOf({ ...NONE, refunds: r(500, 0, false) }).refunds_per_s).toBe(false);
});

it('holds a statement to 100,000 rows in a minute, all matched, nothing made twice, memory flat while it streams', () => {
  const rec = (more: Partial<ReconciliationFigures> = {}): ReconciliationFigures => ({
    rows: 100_000, lines: 50_000, seconds: 30, matched: 50_000, again_seconds: 2, again_created: false, items_after_again: 50_000,
    rss_start_mb: 120, peak_rss_mb: 140, rss_by_tenth_mb: [130, 131, 132, 130, 133, 134, 131, 132, 133, 134],
    live_heap_start_mb: 40, live_heap_by_tenth_mb: [42, 43, 42, 44, 43, 42, 44, 45, 44, 43], database: 'postgres', ...more,
  });
  expect(metOf({ ...NONE, reconciliation: rec() })).toMatchObject({ reconciliation_seconds: true, reconciliation_growth_mb: true });
  expect(metOf({ ...NONE, reconciliation: rec({ seconds: 61 }) }).reconciliation_seconds).toBe(false);
  expect(metOf({ ...NONE, reconciliation: rec({ rows: 10_000 }) }).reconciliation_seconds).toBe(false);
  expect(metOf({ ...NONE, reconciliation: rec({ matched: 49_999 }) }).reconciliation_seconds).toBe(false);
  expect(metOf({ ...NONE, reconciliation: rec({ again_created: true }) }).reconciliation_seconds).toBe(false);
  expect(metOf({ ...NONE, reconciliation: rec({ items_after_again: 50_001 }) }).reconciliation_seconds).toBe(false);
  // a file held whole grows with its rows
  expect(metOf({ ...NONE, reconciliation: rec({ live_heap_by_tenth_mb: [42, 47, 52, 57, 62, 67, 72, 77, 82, 87] }) }).reconciliation_growth_mb).toBe(false);
  expect(metOf({ ...NONE, reconciliation: rec({ live_heap_by_tenth_mb: [42, 43] }) }).reconciliation_growth_mb).toBe(false);
});

it('prints every measured target with its figure and met or MISSED, and leaves out what the run did not measure', () => {
  const table = targetTable(judge({ ...NONE, service: http(2000), prism: http(1200), floor: http(2500) }));
  expect(table).toMatch(/\| request-to-pay \/ Prism mock +\| 1\.67x +\| >= 2x +\| MISSED \|/);
  expect(table).toMatch(/\| request-to-pay \/ one-INSERT floor +\| 0\.80x +\| >= 0\.7x +\| met +\|/);
  expect(table).not.toContain('hot-wallet');
  expect(targetTable(judge(NONE))).toBe('');
});
