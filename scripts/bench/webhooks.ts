// Webhook delivery latency: PENDING collections are moved to COMPLETED at a steady rate through the
// sandbox `simulate` operation of the running service; a local receiver answers 200 at once. Latency is
// from the state change (the moment simulate's 200 arrives: the transaction has committed) to the
// webhook's arrival at the receiver, for each event.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { percentile, round1, sleep } from './lib';

export interface WebhookFigures {
  rate_per_s: number;
  events: number;
  delivered: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

export interface Receiver {
  url: string;
  /** arrival time (performance.now()) by gateway_reference, of the first delivery of a COMPLETED event */
  arrivals: Map<string, number>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200).end('ok');
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { gateway_reference: string; transaction_status: string };
        if (body.transaction_status === 'COMPLETED' && !arrivals.has(body.gateway_reference)) arrivals.set(body.gateway_reference, at);
      } catch {
        // not a notification: ignored
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/paycollect`,
    arrivals,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export async function webhookLatency(o: { baseUrl: string; authorization: string; references: string[]; ratePerSecond: number; receiver: Receiver }): Promise<WebhookFigures> {
  const changedAt = new Map<string, number>();
  const failures: string[] = [];
  const interval = 1000 / o.ratePerSecond;
  const start = performance.now();
  const sends: Promise<void>[] = [];
  for (const [i, ref] of o.references.entries()) {
    const wait = start + i * interval - performance.now();
    if (wait > 0) await sleep(wait);
    sends.push(
      fetch(`${o.baseUrl}/v1/sandbox/collections/${ref}/simulate`, {
        method: 'POST',
        headers: { authorization: o.authorization, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ outcome: 'COMPLETED' }),
      }).then(async (res) => {
        const at = performance.now();
        const text = await res.text();
        if (res.status === 200) changedAt.set(ref, at);
        else failures.push(`${ref}: ${res.status} ${text.slice(0, 300)}`);
      }),
    );
  }
  await Promise.all(sends);
  if (failures.length > 0) throw new Error(`simulate failed for ${failures.length} collections, e.g. ${failures[0]}`);
  const deadline = performance.now() + 30_000;
  while (o.receiver.arrivals.size < changedAt.size && performance.now() < deadline) await sleep(50);
  const latencies = [...changedAt].filter(([ref]) => o.receiver.arrivals.has(ref)).map(([ref, at]) => Math.max(0, o.receiver.arrivals.get(ref)! - at));
  latencies.sort((a, b) => a - b);
  return {
    rate_per_s: o.ratePerSecond,
    events: changedAt.size,
    delivered: latencies.length,
    p50_ms: round1(percentile(latencies, 50)),
    p99_ms: round1(percentile(latencies, 99)),
    max_ms: round1(latencies[latencies.length - 1] ?? NaN),
  };
}
