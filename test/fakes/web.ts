// Small pieces the hosted-checkout fakes (Paystack, BTCPay) share: bodies, pages, timers, outage modes
// and webhook deliveries with retries over real HTTP.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * up: normal; error: 503 on API calls; reset: API connections dropped before anything is done; hang: API
 * calls never answered; lose: API calls carried out, then their connections dropped (a lost answer).
 */
export type FakeMode = 'up' | 'error' | 'reset' | 'hang' | 'lose';
export const FAKE_MODES: readonly FakeMode[] = ['up', 'error', 'reset', 'hang', 'lose'];

export async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function htmlPage(vendor: string, title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · ${esc(vendor)}</title></head><body><main><h1>${esc(title)}</h1>${body}</main></body></html>`;
}

export function parseJson(raw: string): unknown {
  try {
    return raw ? JSON.parse(raw) : null;
  } catch {
    return undefined;
  }
}

export interface Delivery {
  /** what the delivery was about (a reference or an invoice id) */
  subject: string;
  attempt: number;
  status: number | string;
}

/** An HTTP server with an outage switch, timers that stop with it, and webhook deliveries with retries. */
export abstract class FakeServer {
  mode: FakeMode = 'up';
  url = '';
  readonly deliveries: Delivery[] = [];
  private server: http.Server | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly hung = new Set<http.ServerResponse>();
  /** webhooks scheduled or on the wire whose retries have not run out */
  private pendingDeliveries = 0;

  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, raw: string): Promise<void> | void;

  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://fake');
      readBody(req)
        .then((raw) => this.handle(req, res, url, raw))
        .catch((e: Error) => res.writeHead(500).end(e.message));
    });
    await new Promise<void>((resolve) => this.server!.listen(port, host, resolve));
    this.url = `http://${host}:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** Stops accepting connections (callers get ECONNREFUSED) until listen() on the same port. */
  async unplug(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  async plugIn(): Promise<void> {
    const { hostname, port } = new URL(this.url);
    await new Promise<void>((resolve) => this.server!.listen(Number(port), hostname, resolve));
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    for (const r of this.hung) r.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** An API call under the current mode: false when the mode already dealt with it. */
  protected answerable(req: http.IncomingMessage, res: http.ServerResponse, unavailable: unknown): boolean {
    if (this.mode === 'reset') req.socket.destroy();
    else if (this.mode === 'hang') this.hung.add(res);
    else if (this.mode === 'error') res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify(unavailable));
    return this.mode === 'up' || this.mode === 'lose';
  }

  /** An API call's answer; in mode `lose` the work is done but the answer never arrives. */
  protected answer(req: http.IncomingMessage, res: http.ServerResponse, status: number, v: unknown): void {
    if (this.mode === 'lose') req.socket.destroy();
    else this.json(res, status, v);
  }

  protected later(ms: number, fn: () => Promise<void> | void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      void fn();
    }, ms);
    this.timers.add(t);
  }

  /**
   * POSTs a webhook after delaysMs[attempt]; a delivery whose answer `retry` accepts (an HTTP status, or an
   * error name when none came) is sent again after the next delay until the delays run out.
   * request(attempt) may change per attempt (BTCPay marks redeliveries).
   */
  protected deliver(
    url: string,
    subject: string,
    delaysMs: number[],
    retry: (status: number | string) => boolean,
    request: (attempt: number) => { body: Buffer; headers: Record<string, string> },
    attempt = 0,
  ): void {
    if (attempt >= delaysMs.length) return;
    this.pendingDeliveries += 1;
    this.later(delaysMs[attempt], async () => {
      const { body, headers } = request(attempt);
      let status: number | string;
      try {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: new Uint8Array(body), signal: AbortSignal.timeout(5000) });
        status = res.status;
        await res.arrayBuffer();
      } catch (e) {
        status = (e as Error).name;
      }
      this.deliveries.push({ subject, attempt: attempt + 1, status });
      if (retry(status)) this.deliver(url, subject, delaysMs, retry, request, attempt + 1);
      this.pendingDeliveries -= 1;
    });
  }

  /** Resolves once every webhook sent so far is answered for good or out of retries. */
  async deliveriesDone(timeoutMs = 15_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (this.pendingDeliveries > 0) {
      if (Date.now() > end) throw new Error('webhook deliveries still pending');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  protected json(res: http.ServerResponse, status: number, v: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' }).end(v === undefined ? '' : JSON.stringify(v));
  }

  protected html(res: http.ServerResponse, status: number, body: string): void {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  }

  protected redirect(res: http.ServerResponse, to: string): void {
    res.writeHead(302, { location: to }).end();
  }
}
