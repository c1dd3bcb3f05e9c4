// N API processes behind the simplest load balancer: a TCP proxy in the bench's own process that hands
// each new connection to the next port in turn (autocannon's keep-alive connections are then spread
// evenly), plus one ROLE=worker process for the background work.
import net from 'node:net';
import path from 'node:path';
import { freePort, loadPost, startChild, stopChild, waitForHttp } from './lib';
import type { Child, HttpFigures, LoadSettings } from './lib';

export async function roundRobinProxy(ports: number[]): Promise<{ port: number; close(): Promise<void> }> {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(ports[next++ % ports.length], '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Request-to-pay on `apis` ROLE=api processes and one ROLE=worker process sharing the database in
 * `env`, behind roundRobinProxy. CPU and RSS are those of the first API process.
 */
export async function measureRoundRobin(o: {
  apis: number;
  env: NodeJS.ProcessEnv;
  work: string;
  settings: LoadSettings;
  headers: Record<string, string>;
  makeBody: (n: number) => string;
}): Promise<HttpFigures & { processes: number }> {
  const children: Child[] = [];
  let proxy: Awaited<ReturnType<typeof roundRobinProxy>> | null = null;
  try {
    const ports: number[] = [];
    for (let i = 0; i < o.apis; i++) {
      const port = await freePort();
      ports.push(port);
      children.push(startChild(`api ${i + 1}`, process.execPath, ['--import', 'tsx', 'src/main.ts'], { ...o.env, PORT: String(port), ROLE: 'api' }, path.join(o.work, `api-${i + 1}.log`)));
    }
    const workerPort = await freePort();
    children.push(startChild('worker', process.execPath, ['--import', 'tsx', 'src/main.ts'], { ...o.env, PORT: String(workerPort), ROLE: 'worker' }, path.join(o.work, 'worker.log')));
    for (const [i, port] of [...ports, workerPort].entries()) await waitForHttp(`http://127.0.0.1:${port}/healthz`, children[i]);
    proxy = await roundRobinProxy(ports);
    // a first request on each process (a new connection each, so each process in turn) before the clock runs
    for (let i = 0; i < 2 * o.apis; i++) {
      const res = await fetch(`http://127.0.0.1:${proxy.port}/v1/collections/request-to-pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', connection: 'close', ...o.headers },
        body: o.makeBody(-1 - i),
      });
      if (res.status !== 200) throw new Error(`round-robin priming request: ${res.status} ${await res.text()}`);
    }
    process.stdout.write(`  ${o.apis} API processes + 1 worker behind a round-robin: ${o.settings.warmupSeconds} s warm-up, ${o.settings.durationSeconds} s at ${o.settings.connections} connections\n`);
    const figures = await loadPost({
      url: `http://127.0.0.1:${proxy.port}/v1/collections/request-to-pay`,
      headers: { 'content-type': 'application/json', accept: 'application/json', ...o.headers },
      makeBody: o.makeBody,
      settings: o.settings,
      pid: children[0].pid,
      databaseUrl: o.env.DATABASE_URL || null,
    });
    return { ...figures, processes: o.apis };
  } finally {
    await proxy?.close();
    for (const c of children) await stopChild(c, 5000);
  }
}
