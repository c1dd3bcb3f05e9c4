// Webhook delivery latency: PENDING collections are moved to COMPLETED at a steady rate through the
// service's own applyOutcome in this process, as provider reports would move them; a local receiver
// answers 200 at once. Latency is from the state change (the moment applyOutcome resolves: its transaction
// has committed) to the webhook's arrival, per event. Two ways to run: the service's workers in this
// process too (ROLE=both, one Node process doing the changes, the deliveries and the receiving), or, on a
// real PostgreSQL server, as a production deployment runs: this process as ROLE=api, whose commits kick
// (NOTIFY) a separate ROLE=worker process that delivers.
import { Worker } from 'node:worker_threads';
import type { Config } from '../../src/config';
import type { Principal } from '../../src/merchants/access-tokens';
import { createLogger } from '../../src/log';
import { startService } from '../../src/server';
import { pendingCollections } from './hot-wallet';
import { percentile, round1, sleep } from './lib';

export interface WebhookFigures {
  /** where the deliveries ran: the process making the changes, or a ROLE=worker process of their own */
  processes: 'one' | 'api + worker';
  rate_per_s: number;
  events: number;
  delivered: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

export interface Receiver {
  url: string;
  /** arrival time (epoch ms, sub-millisecond: now()) by gateway_reference, of the first delivery of a COMPLETED event */
  arrivals: Map<string, number>;
  close(): Promise<void>;
}

/** Epoch milliseconds with performance.now()'s resolution: comparable between threads of one machine. */
export const now = () => performance.timeOrigin + performance.now();

/**
 * The receiver runs on a thread of its own: a merchant's endpoint is another program, and answering on the
 * bench's busy main thread (which makes the state changes) delayed each answer by the changes queued before it.
 * It notes the arrival time itself and posts it to the main thread.
 */
const RECEIVER_THREAD = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
const now = () => performance.timeOrigin + performance.now();
const server = http.createServer((req, res) => {
  const at = now();
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(200).end('ok');
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (body.transaction_status === 'COMPLETED') parentPort.postMessage({ ref: body.gateway_reference, at });
    } catch {
      // not a notification: ignored
    }
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => { if (m === 'close') server.close(() => process.exit(0)); });
`;

export async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const thread = new Worker(RECEIVER_THREAD, { eval: true });
  const port = await new Promise<number>((resolve, reject) => {
    thread.once('error', reject);
    thread.on('message', (m: { port?: number; ref?: string; at?: number }) => {
      if (m.port !== undefined) resolve(m.port);
      else if (m.ref !== undefined && m.at !== undefined && !arrivals.has(m.ref)) arrivals.set(m.ref, m.at);
    });
  });
  return {
    url: `http://127.0.0.1:${port}/paycollect`,
    arrivals,
    close: () => new Promise((r) => {
      thread.once('exit', () => r());
      thread.postMessage('close');
    }),
  };
}

export async function webhookLatency(o: {
  config: Config;
  principal: Principal;
  currency: string;
  events: number;
  ratePerSecond: number;
  receiver: Receiver;
  body: (n: number) => Record<string, unknown>;
  /** starts a ROLE=worker process on the same database (once it answers): the deliveries run there */
  worker?: () => Promise<{ stop(): Promise<unknown> }>;
}): Promise<WebhookFigures> {
  const worker = o.worker ? await o.worker() : null;
  const role = worker ? 'api' : 'both';
  const service = await startService({ config: { ...o.config, port: 0, role }, log: createLogger(() => undefined, 'error') }).catch(async (err: unknown) => {
    await worker?.stop();
    throw err;
  });
  try {
    const s = service.services;
    const pending = await pendingCollections(s, o.principal, o.currency, o.events, o.body);
    const changedAt = new Map<string, number>();
    const interval = 1000 / o.ratePerSecond;
    const start = performance.now();
    const changes: Promise<void>[] = [];
    for (const [i, c] of pending.entries()) {
      const wait = start + i * interval - performance.now();
      if (wait > 0) await sleep(wait);
      changes.push(
        s.collections.applyOutcome(c.id, 'COMPLETED').then((moved) => {
          if (!moved) throw new Error(`collection ${c.gateway_reference} was not PENDING`);
          changedAt.set(c.gateway_reference, now());
        }),
      );
    }
    await Promise.all(changes);
    const deadline = performance.now() + 30_000;
    // the receiver may hold an earlier run's arrivals too: this run's are counted by reference
    const arrived = () => [...changedAt.keys()].filter((ref) => o.receiver.arrivals.has(ref)).length;
    while (arrived() < changedAt.size && performance.now() < deadline) await sleep(50);
    const latencies = [...changedAt].filter(([ref]) => o.receiver.arrivals.has(ref)).map(([ref, at]) => Math.max(0, o.receiver.arrivals.get(ref)! - at));
    latencies.sort((a, b) => a - b);
    return {
      processes: worker ? 'api + worker' : 'one',
      rate_per_s: o.ratePerSecond,
      events: changedAt.size,
      delivered: latencies.length,
      p50_ms: round1(percentile(latencies, 50)),
      p99_ms: round1(percentile(latencies, 99)),
      max_ms: round1(latencies[latencies.length - 1] ?? NaN),
    };
  } finally {
    await service.close();
    await worker?.stop();
  }
}
