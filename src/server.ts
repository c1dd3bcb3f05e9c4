// Start and stop one service process: database, migrations, HTTP, background workers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { OpenAPIBackend } from 'openapi-backend';
import type { Config } from './config';
import { observedOf, openDatabase, pingDatabase } from './db';
import type { Database } from './db';
import { migrate, migrationsApplied } from './db/migrate';
import { adminSecurity, auditedHandlers } from './http/access';
import { createHttpApp, loadApi, routerPatched } from './http/app';
import { adminHandlers, merchantHandlers } from './http/handlers';
import { createLogger } from './log';
import type { Logger } from './log';
import { buildServices, workerSpecs } from './wiring';
import type { Services } from './wiring';
import type { DemoCredentials } from './merchants/demo-merchant';
import type { GeneratedLogin } from './people/users';
import { errorBody } from './errors';
import { answerProbe } from './http/probes';
import type { ProbeState } from './http/probes';
import { listenForKicks, remoteKicks, startWorkers } from './workers/loops';
import { startTelemetry } from './telemetry';
import { Figures } from './telemetry/figures';

export const OPENAPI_DIR = path.resolve(__dirname, '..', 'openapi');
const SHUTDOWN_GRACE_MS = 10_000;
/** the probes report the database unreachable when it does not answer within this */
const HEALTH_TIMEOUT_MS = 2000;

export interface StartOptions {
  config: Config;
  log?: Logger;
  /** use this database instead of opening one from the config (tests) */
  database?: Database;
  now?: () => Date;
  /** run the background workers (default true); tests may drive them by hand */
  workers?: boolean;
  /** also hand every finished span to this exporter (tests: an in-memory one), whatever the config says */
  spanExporter?: SpanExporter;
}

export interface RunningService {
  url: string;
  port: number;
  services: Services;
  database: Database;
  /** the demo merchant's credentials when this start created it */
  demo: DemoCredentials | null;
  /** the dashboard sign-in of the first operator, or of the demo merchant's owner, when this start created it */
  firstOperator: GeneratedLogin | null;
  demoUser: GeneratedLogin | null;
  /** the Prometheus endpoint, when METRICS_PORT is set */
  metricsUrl: string | null;
  /** the two documents as loaded and served (none in ROLE=worker); the tests check answers against them */
  specs: { merchant: OpenAPIBackend; admin: OpenAPIBackend } | null;
  close(): Promise<void>;
}

/**
 * ROLE=worker answers the probes (for whatever supervises it, with the same answers as an api process's)
 * and nothing else: the API is served by the ROLE=api processes.
 */
function workerHttp(probes: ProbeState): http.RequestListener {
  const reply = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body));
  return (req, res) => {
    const answer = answerProbe(new URL(req.url ?? '/', 'http://x').pathname, probes);
    if (!answer) return void reply(res, 404, errorBody('NOT_FOUND', 'This process runs the background workers only (ROLE=worker)'));
    void answer.then((a) => reply(res, a.status, a.status === 200 && req.url === '/healthz' ? { ...a.body, role: 'worker' } : a.body, a.headers));
  };
}

export async function startService(o: StartOptions): Promise<RunningService> {
  const log = o.log ?? createLogger();
  const database = o.database ?? (await openDatabase(o.config.databaseUrl, o.config.dataDir, o.config.databasePoolMax));
  const applied = await migrate(database.db);
  if (applied.length > 0) log.info('migrations applied', { applied });
  const telemetry = await startTelemetry(o.config, o.spanExporter);
  const figures = new Figures(telemetry);
  const observed = figures.observing;
  if (observed) observedOf(database.db).figures = figures;
  const services = buildServices({ config: o.config, db: database.db, log, now: o.now ?? (() => new Date()), figures });
  await services.cards.ensureKey();
  const demo = o.config.seedDemo ? await services.demoMerchant.seedDemoIfEmpty() : null;
  const firstOperator = await services.users.ensureFirstOperator();
  const demoUser = demo ? await services.users.createDemoUser(demo.business_id) : null;
  let ready = false;
  const role = o.config.role;
  const [merchantApi, adminApi] = role === 'worker' ? [null, null] : await Promise.all([
    loadApi(path.join(OPENAPI_DIR, 'openapi.yaml')),
    loadApi(path.join(OPENAPI_DIR, 'admin.yaml')),
  ]);
  if (merchantApi && !routerPatched(merchantApi)) log.warn('openapi-backend runs without its patch (patches/): routing rebuilds its matchers on every request; docs/operations.md says how to apply it');
  let draining = false;
  const runsWorkers = role !== 'api' && o.workers !== false;
  const probes: ProbeState = {
    isReady: () => ready,
    isDraining: () => draining,
    databaseReachable: () => pingDatabase(database.db, HEALTH_TIMEOUT_MS),
    migrations: () => migrationsApplied(database.db, HEALTH_TIMEOUT_MS),
    workersRunning: () => (runsWorkers ? services.workers?.running?.() ?? false : null),
  };
  const app = !merchantApi || !adminApi ? workerHttp(probes) : createHttpApp({
    services,
    merchantApi,
    adminApi,
    merchantHandlers,
    adminHandlers: auditedHandlers(adminApi, adminHandlers),
    authenticateJwt: (h) => services.accessTokens.authenticate(h),
    adminSecurity: adminSecurity(services),
    probes,
  });
  const server = http.createServer(app);
  // An idle connection is closed by the client (or the load balancer in front) before the server does: a
  // server that closes first can race a request the client is just sending on it (ECONNRESET). Clients'
  // idle timeouts are under this (undici's is 4 s); a load balancer in front should keep its own below it.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 15_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.config.port, '0.0.0.0', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // ROLE=api hands its kicks to the worker processes; ROLE=worker takes them (real PostgreSQL only)
  let listener: { stop(): Promise<void> } | null = null;
  if (role === 'api') services.workers = remoteKicks(database.db, log);
  else if (runsWorkers) services.workers = startWorkers(workerSpecs(services), log);
  if (role === 'worker' && services.workers) listener = listenForKicks(database.db, services.workers, log);
  if (role !== 'worker') services.configCache.live(database.kind === 'postgres');
  if (telemetry.metricsUrl) {
    figures.observePool(database.db, database.kind);
    if (runsWorkers) figures.observeBacklogs(database.db, services.now, () => services.workers?.lagSeconds?.(), services.config.rates.maxAges);
  }
  ready = true;
  log.info('listening', { port, env: o.config.appEnv, role, database: database.kind });

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      // /readyz fails first while requests are still served, so a load balancer stops sending us new ones
      draining = true;
      if (o.config.shutdownDrainMs > 0) {
        log.info('draining', { seconds: o.config.shutdownDrainMs / 1000 });
        await new Promise((r) => setTimeout(r, o.config.shutdownDrainMs));
      }
      ready = false;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await stopped;
      clearTimeout(timer);
      await listener?.stop();
      await services.configCache.stop();
      await services.workers?.stop();
      // a send still in flight records its outcome before the database closes (else it is sent again)
      await services.notifications.drain();
      await services.liveness.leave().catch((err) => log.warn('could not deregister the process', { err }));
      if (observed && observedOf(database.db).figures === figures) observedOf(database.db).figures = null;
      await telemetry.shutdown();
      if (!o.database) await database.close();
      log.info('stopped');
    })();
    return closing;
  };
  return { url: `http://127.0.0.1:${port}`, port, services, database, demo, firstOperator, demoUser, metricsUrl: telemetry.metricsUrl, specs: merchantApi && adminApi ? { merchant: merchantApi, admin: adminApi } : null, close };
}

