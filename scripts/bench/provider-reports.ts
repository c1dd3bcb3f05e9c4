// Provider-report worker lag: the service runs in this process with its workers on, and collections to
// a designated success number are requested through its own request-to-pay at a steady rate with the
// simulated customer answering at once, so each stores a report due at its creation. Lag is from a
// report's due time to the commit that applied it (processed_at - due_at, both on the service clock).
// First a backlog: as many reports all due at once, and how fast the worker's run drains them (what it sustains).
import type { Config } from '../../src/config';
import type { Principal } from '../../src/merchants/access-tokens';
import { createLogger } from '../../src/log';
import { startService } from '../../src/server';
import type { Services } from '../../src/wiring';
import { percentile, round1, sleep } from './lib';

export interface ProviderReportFigures {
  rate_per_s: number;
  reports: number;
  lag_p50_ms: number;
  lag_p99_ms: number;
  lag_max_ms: number;
  /** a backlog of `reports` all due at once, drained by the worker */
  backlog_drained_per_s: number;
}

async function lagOf(s: Services, ids: bigint[]) {
  const rows = await s.db.any<{ lag_ms: number | null }>(
    `SELECT (EXTRACT(EPOCH FROM (e.processed_at - e.due_at)) * 1000)::float8 AS lag_ms
     FROM provider_events e WHERE e.collection_id = ANY($1::bigint[])`,
    [ids],
  );
  return rows.map((r) => r.lag_ms);
}

async function allApplied(s: Services, ids: bigint[], timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const { n } = await s.db.one<{ n: number }>(
      'SELECT count(*)::int AS n FROM provider_events WHERE collection_id = ANY($1::bigint[]) AND processed_at IS NULL',
      [ids],
    );
    if (n === 0) return true;
    if (performance.now() > deadline) return false;
    await sleep(20);
  }
}

export async function providerReportLag(o: {
  config: Config;
  principal: Principal;
  reports: number;
  ratePerSecond: number;
  body: (n: number) => Record<string, unknown>;
}): Promise<ProviderReportFigures> {
  const config = { ...o.config, port: 0, sandboxMmDelayMs: 0 };
  const quiet = createLogger(() => undefined, 'error');
  // the backlog: requested with the workers off, then drained by the worker's own run, batch after batch
  let service = await startService({ config, log: quiet, workers: false });
  let drainSeconds: number;
  try {
    const s = service.services;
    for (let i = 0; i < o.reports; i += 20) {
      await Promise.all(Array.from({ length: Math.min(20, o.reports - i) }, (_, k) => s.collections.requestToPay(o.principal, o.body(i + k) as never)));
    }
    const drainStart = performance.now();
    let drained = 0;
    for (let n = await s.collections.processProviderEvents(); n > 0; n = await s.collections.processProviderEvents()) drained += n;
    drainSeconds = (performance.now() - drainStart) / 1000;
    if (drained < o.reports) throw new Error(`the backlog held ${drained} reports, not ${o.reports}`);
  } finally {
    await service.close();
  }
  service = await startService({ config, log: quiet });
  try {
    const s = service.services;
    const ids: bigint[] = [];
    const interval = 1000 / o.ratePerSecond;
    const start = performance.now();
    const requests: Promise<void>[] = [];
    for (let i = 0; i < o.reports; i++) {
      const wait = start + i * interval - performance.now();
      if (wait > 0) await sleep(wait);
      requests.push(s.collections.requestToPay(o.principal, o.body(o.reports + i) as never).then(({ row }) => void ids.push(row.id)));
    }
    await Promise.all(requests);
    if (!(await allApplied(s, ids, 120_000))) throw new Error('provider reports were not applied within 120 s');
    const lags = (await lagOf(s, ids)).map((v) => v ?? NaN).sort((a, b) => a - b);
    return {
      rate_per_s: o.ratePerSecond,
      reports: lags.length,
      lag_p50_ms: round1(percentile(lags, 50)),
      lag_p99_ms: round1(percentile(lags, 99)),
      lag_max_ms: round1(lags[lags.length - 1] ?? NaN),
      backlog_drained_per_s: Math.round(o.reports / drainSeconds),
    };
  } finally {
    await service.close();
  }
}
