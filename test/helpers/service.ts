// Starts a whole service on a real port with a fresh database for one test file, plus HTTP clients
// whose every response is validated against the spec.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { loadConfig } from '../../src/config';
import type { Config } from '../../src/config';
import type { Database } from '../../src/db';
import { createLogger } from '../../src/log';
import { startService } from '../../src/server';
import type { RunningService } from '../../src/server';
import { freshDatabase } from './db';
import { checkResponse, useLoadedSpecs } from './spec';

export const OPERATOR_KEY = 'op_test_operator_key_0123456789';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** raw body sent as is (no JSON encoding) */
  raw?: string | Buffer;
  /** skip spec validation (for requests that deliberately leave the contract, e.g. wrong media type) */
  unchecked?: boolean;
}

export class Client {
  constructor(
    readonly baseUrl: string,
    readonly auth: () => string | undefined,
  ) {}

  async request<T = any>(method: string, urlPath: string, body?: unknown, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    const authorization = this.auth();
    if (authorization && !('authorization' in headers)) headers.authorization = authorization;
    let payload: string | Buffer | undefined;
    if (opts.raw !== undefined) payload = opts.raw;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const bodyInit = typeof payload === 'string' || payload === undefined ? payload : new Uint8Array(payload);
    const res = await fetch(this.baseUrl + urlPath, { method, headers, body: bodyInit, redirect: 'manual' });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const parsed = type.includes('json') && text ? JSON.parse(text) : text;
    if (!opts.unchecked) await checkResponse(method, urlPath, res.status, parsed, type || 'application/json');
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(p: string, opts?: RequestOptions) {
    return this.request<T>('GET', p, undefined, opts);
  }
  post<T = any>(p: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('POST', p, body, opts);
  }
  patch<T = any>(p: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('PATCH', p, body, opts);
  }
  put<T = any>(p: string, body?: unknown, opts?: RequestOptions) {
    return this.request<T>('PUT', p, body, opts);
  }
  delete<T = any>(p: string, opts?: RequestOptions) {
    return this.request<T>('DELETE', p, undefined, opts);
  }
}

export interface TestService extends RunningService {
  config: Config;
  logs: string[];
  /** operator API client (Bearer operator key) */
  admin: Client;
  /** anonymous client; use merchantClient() for a JWT */
  anon: Client;
  merchant(token: string): Client;
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  database?: Database;
  now?: () => Date;
  /** run the background workers (default true); false lets a test drive them by hand */
  workers?: boolean;
  /** record spans here (test/telemetry/traces.test.ts) */
  spanExporter?: SpanExporter;
}

export async function startTestService(o: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paycollect-test-'));
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    APP_ENV: 'sandbox',
    OPERATOR_API_KEY: OPERATOR_KEY,
    SEED_DEMO: 'false',
    RATE_LIMIT_RPS: '0',
    // a test's close() stops at once; the drain after SIGTERM is tested on its own (test/http/probes.test.ts)
    SHUTDOWN_DRAIN_SECONDS: '0',
    ...o.env,
  });
  const logs: string[] = [];
  const database = o.database ?? (await freshDatabase());
  const running = await startService({ config, database, log: createLogger((l) => logs.push(l), 'debug'), now: o.now, workers: o.workers, spanExporter: o.spanExporter });
  useLoadedSpecs(running.specs);
  const url = running.url;
  config.publicBaseUrl = o.env?.PUBLIC_BASE_URL ?? url;
  return {
    ...running,
    config,
    logs,
    admin: new Client(url, () => `Bearer ${OPERATOR_KEY}`),
    anon: new Client(url, () => undefined),
    merchant: (token: string) => new Client(url, () => token),
    close: async () => {
      await running.close();
      if (!o.database) await database.close();
    },
  };
}
