// One webhook delivery attempt over node:http(s): no redirects followed (a 3xx is a failure), a hard
// timeout over the whole exchange, at most 1 KiB of the answer kept for the delivery log, and, unless
// private addresses are allowed, a socket lookup that refuses non-public addresses. Connections are kept
// alive between attempts to one endpoint (a new TCP and TLS handshake per notification is most of an
// attempt's time), in agents of their own for guarded and unguarded lookups, so a socket opened without
// the guard is never lent to an attempt that needs it. A socket that ended an attempt badly (timeout,
// error, an answer longer than the log keeps) is destroyed, never reused.
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { assertPublicHost, BlockedAddressError, guardedLookup, hostOf } from './ssrf';

export const RESPONSE_BODY_MAX_BYTES = 1024;
/**
 * An idle kept-alive socket is closed after this long: well under the usual servers' own idle timeouts
 * (5 s in node and Apache), so a request is rarely written to a socket the receiver is closing.
 */
const IDLE_SOCKET_MS = 2000;

const agentOptions = { keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' } as const;
const agents = {
  guarded: { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) },
  open: { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) },
};

export interface AttemptOutcome {
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string | null;
}

export interface PostOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

const ERROR_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed while sending',
};

/** A log-safe description of a network error. */
export function describeError(err: unknown, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `timeout after ${timeoutMs} ms`;
  if (err instanceof BlockedAddressError) return `refused: ${err.message}`;
  const code = (err as { code?: string })?.code ?? '';
  if (ERROR_TEXT[code]) return ERROR_TEXT[code];
  if (/^(ERR_TLS|CERT_|DEPTH_|UNABLE_TO|SELF_SIGNED)/.test(code)) return `TLS error: ${code}`;
  return code ? `request failed: ${code}` : 'request failed';
}

/** Postgres TEXT refuses NUL; the log keeps the rest of the answer as text. */
function logText(chunks: Buffer[]): string | null {
  const text = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_MAX_BYTES).toString('utf8').replace(/\u0000/g, '');
  return text === '' ? null : text;
}

function outcomeOf(status: number, body: string | null): Omit<AttemptOutcome, 'durationMs'> {
  const ok = status >= 200 && status < 300;
  const error = ok ? null : status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
  return { ok, httpStatus: status, error, responseBody: body };
}

function send(url: URL, o: PostOptions, started: number): Promise<AttemptOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    let socket: Socket | null = null;
    /** keep: the answer was read to its end, so the socket may serve the next attempt */
    const done = (out: Omit<AttemptOutcome, 'durationMs'>, keep = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!keep) {
        req.destroy();
        // the socket too: from Node 24 a request whose whole answer has arrived gives its socket back to the
        // agent on destroy() instead of closing it, so an answer cut off for the log would be followed on it
        socket?.destroy();
      }
      resolve({ ...out, durationMs: Date.now() - started });
    };
    const fail = (err: unknown) =>
      done({ ok: false, httpStatus: null, error: describeError(err, o.timeoutMs, timedOut), responseBody: null });
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      headers: { ...o.headers, 'content-length': String(Buffer.byteLength(o.body)) },
      agent: (o.allowPrivate ? agents.open : agents.guarded)[url.protocol as 'http:' | 'https:'],
      lookup: o.allowPrivate ? undefined : guardedLookup,
    });
    const timer = setTimeout(() => {
      timedOut = true;
      fail(new Error('timeout'));
    }, o.timeoutMs);
    req.on('socket', (s: Socket) => {
      socket = s;
    });
    req.on('error', fail);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (keep = false) => done(outcomeOf(res.statusCode ?? 0, logText(chunks)), keep);
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_BODY_MAX_BYTES) finish();
      });
      res.on('end', () => finish(true));
      res.on('error', () => finish());
      res.on('aborted', () => finish());
    });
    req.end(o.body);
  });
}

/** POSTs one signed notification; never throws: every failure is an outcome for the log. */
export async function postWebhook(o: PostOptions): Promise<AttemptOutcome> {
  const started = Date.now();
  const refused = (error: string): AttemptOutcome => ({ ok: false, httpStatus: null, error, durationMs: Date.now() - started, responseBody: null });
  let url: URL;
  try {
    url = new URL(o.url);
  } catch {
    return refused('invalid webhook URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refused('webhook URL must use http or https');
  if (!o.allowPrivate) {
    try {
      await assertPublicHost(hostOf(url));
    } catch (err) {
      return refused(describeError(err, o.timeoutMs, false));
    }
  }
  return send(url, o, started);
}
