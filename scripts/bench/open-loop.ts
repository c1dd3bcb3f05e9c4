// A fixed offered load, sent open-loop: request i leaves at start + i / rate whatever the answers do, and
// its latency counts from that planned moment (so a stall shows in the figures instead of slowing the
// sender: no coordinated omission). autocannon's overallRate is not that: each connection sends its
// share of a second's requests back to back at the start of every second, a burst at full concurrency.
import http from 'node:http';
import { percentile, round1 } from './lib';

export interface OpenLoopFigures {
  sent: number;
  answered_2xx: number;
  errors: number;
  latencies_ms: number[];
  p50_ms: number;
  p99_ms: number;
  /** 2xx answers a second over the run */
  req_per_s: number;
}

export async function openLoopPost(o: { url: string; headers: Record<string, string>; makeBody: (n: number) => string; rate: number; seconds: number; timeoutMs?: number }): Promise<OpenLoopFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const total = Math.round(o.rate * o.seconds);
  const latencies: number[] = [];
  let ok = 0;
  let errors = 0;
  let sent = 0;
  const done: Promise<void>[] = [];
  const start = performance.now();
  const one = (n: number, planned: number) =>
    new Promise<void>((resolve) => {
      const body = o.makeBody(n);
      const req = http.request(o.url, { method: 'POST', agent, headers: { ...o.headers, 'content-length': Buffer.byteLength(body) }, timeout: o.timeoutMs ?? 10_000 }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - planned);
          if (res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300) ok++;
          else errors++;
          resolve();
        });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * o.rate));
      for (; sent < due; sent++) done.push(one(sent + 1, start + (sent * 1000) / o.rate));
      if (sent >= total) {
        clearInterval(tick);
        resolve();
      }
    }, 1);
  });
  await Promise.all(done);
  const elapsedS = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    sent,
    answered_2xx: ok,
    errors,
    latencies_ms: latencies,
    p50_ms: round1(percentile(latencies, 50)),
    p99_ms: round1(percentile(latencies, 99)),
    req_per_s: round1(ok / elapsedS),
  };
}
