// Proves what deploy/ ships is valid: the alert rules pass `promtool check rules` (and the market-rate and reconciliation alerts their `promtool test rules` cases, test/deploy/*-alerts.promtool.yml), the rules and the Grafana dashboard name
// only metrics the service exports (and the dashboard JSON is well formed), and the systemd unit passes
// `systemd-analyze verify` with its hardening in place. The two tools are skipped with their reason outside CI when absent.
// Alike in every pass: it checks the files under deploy/ and opens no database.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { needsTool } from '../helpers/requires';
import { prometheusNames } from '../../src/telemetry/figures';

const ROOT = path.resolve(__dirname, '..', '..');
const RULES = path.join(ROOT, 'deploy', 'prometheus', 'alerts.yml');
const DASHBOARD = path.join(ROOT, 'deploy', 'grafana', 'paycollect.json');
const UNIT = path.join(ROOT, 'deploy', 'systemd', 'paycollect.service');
const RULE_TESTS = path.join(ROOT, 'test', 'deploy', 'market-rate-alerts.promtool.yml');
const RECONCILIATION_RULE_TESTS = path.join(ROOT, 'test', 'deploy', 'reconciliation-alerts.promtool.yml');
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'inf', 'nan']);

/** The metric names a PromQL expression reads: what is left once strings, matchers, ranges, groupings and function calls are taken out. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\boffset\s+-?\w+/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/([a-zA-Z_:][\w:]*)\s*(\()?/g)].filter((m) => !m[2] && !KEYWORDS.has(m[1])).map((m) => m[1]);
}

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const rules = (parse(readFileSync(RULES, 'utf8')) as { groups: { name: string; rules: Rule[] }[] }).groups.flatMap((g) => g.rules);
const recorded = rules.flatMap((r) => (r.record ? [r.record] : []));
const { histograms, counters, gauges } = prometheusNames();
/** what a scrape of the service shows (test/telemetry/metrics.test.ts finds each), Prometheus's own `up`, and the recording rules */
const known = new Set([...histograms.flatMap((h) => ['_count', '_sum', '_bucket'].map((s) => h + s)), ...counters, ...gauges, 'up', ...recorded]);

describe('Prometheus alert rules (deploy/prometheus/alerts.yml)', () => {
  needsTool('promtool', 'prometheus').it('pass promtool check rules', async () => {
    const run = spawnSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  needsTool('promtool', 'prometheus').it('fire the market-rate alerts when a pair is stale or a jump is held, and only then (promtool test rules)', async () => {
    const run = spawnSync('promtool', ['test', 'rules', RULE_TESTS], { encoding: 'utf8' });
    expect([run.status, run.stdout + run.stderr]).toEqual([0, expect.stringContaining('SUCCESS')]);
  });

  needsTool('promtool', 'prometheus').it("fire the reconciliation alert when a MID's oldest undecided item passes two days, and only then (promtool test rules)", async () => {
    const run = spawnSync('promtool', ['test', 'rules', RECONCILIATION_RULE_TESTS], { encoding: 'utf8' });
    expect([run.status, run.stdout + run.stderr]).toEqual([0, expect.stringContaining('SUCCESS')]);
  });

  it('read only exported metrics and cover what an operator must hear about', () => {
    for (const r of rules) {
      const names = metricNames(r.expr);
      expect([r.alert ?? r.record, names.length > 0]).toEqual([r.alert ?? r.record, true]);
      for (const n of names) expect([r.alert ?? r.record, n, known.has(n)]).toEqual([r.alert ?? r.record, n, true]);
      if (r.alert) {
        expect(['info', 'warning', 'critical']).toContain(r.labels?.severity);
        expect(r.annotations?.summary).toBeTruthy();
      }
    }
    const alerts = rules.map((r) => r.alert).filter(Boolean);
    for (const needed of ['PayCollectServerErrors', 'PayCollectSuccessRateDrop10', 'PayCollectSuccessRateDrop20', 'PayCollectSuccessRateDrop30', 'PayCollectProcessorErrors', 'PayCollectWebhookBacklogOld', 'PayCollectDatabaseUnavailable', 'PayCollectWorkerLag', 'PayCollectMarketRateStale', 'PayCollectMarketRateJumpHeld', 'PayCollectReconciliationUndecided']) {
      expect(alerts).toContain(needed);
    }
  });

  it('finds a misspelt metric (the check itself can fail)', () => {
    expect(metricNames('sum by (mid) (rate(paycollect_collections_finishd_total{status="COMPLETED"}[5m])) > 0').filter((n) => !known.has(n))).toEqual([
      'paycollect_collections_finishd_total',
    ]);
  });
});

describe('Grafana dashboard (deploy/grafana/paycollect.json)', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    uid: string;
    title: string;
    panels: { id: number; title: string; type: string; targets: { refId: string; expr: string }[] }[];
  };

  it('is valid dashboard JSON whose every query reads exported metrics', () => {
    expect(dashboard.uid).toBe('paycollect');
    expect(dashboard.panels.length).toBeGreaterThan(10);
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    for (const p of dashboard.panels) {
      expect(['timeseries', 'stat']).toContain(p.type);
      expect(p.targets.length).toBeGreaterThan(0);
      for (const t of p.targets) {
        const names = metricNames(t.expr);
        expect([p.title, names.length > 0]).toEqual([p.title, true]);
        for (const n of names) expect([p.title, n, known.has(n)]).toEqual([p.title, n, true]);
      }
    }
    // every figure of our own has a panel
    const shown = new Set(dashboard.panels.flatMap((p) => p.targets.flatMap((t) => metricNames(t.expr))));
    for (const n of [...counters, ...gauges]) expect([n, shown.has(n)]).toEqual([n, true]);
  });
});

describe('systemd unit (deploy/systemd/paycollect.service)', () => {
  const unit = readFileSync(UNIT, 'utf8');

  it('runs the build as a dedicated user, hardened, restarted on failure', () => {
    for (const line of ['User=paycollect', 'ProtectSystem=strict', 'NoNewPrivileges=yes', 'Restart=on-failure', 'PrivateTmp=yes', 'ExecStart=/usr/bin/node /opt/paycollect/dist/main.js']) {
      expect(unit.split('\n')).toContain(line);
    }
  });

  needsTool('systemd-analyze', 'systemd').it('passes systemd-analyze verify', async () => {
    const copy = path.join(mkdtempSync(path.join(os.tmpdir(), 'paycollect-unit-')), 'paycollect.service');
    copyFileSync(UNIT, copy);
    const run = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    // a unit key it does not know, or in the wrong section, is a warning on stderr with status 0: refuse those too
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
