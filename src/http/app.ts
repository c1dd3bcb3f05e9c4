// express carries the bytes; one openapi-backend per document routes, validates and dispatches.
import { randomUUID } from 'node:crypto';
import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { OpenAPIBackend } from 'openapi-backend';
import type { Context } from 'openapi-backend';
import { dropDiscriminatorMappings, makeAjv } from './ajv';
import { isDatabaseUnavailable } from '../db';
import { countingWrites, judgeOutcome, outcomeUnknown } from '../db/outcome';
import { AppError, errorBody, ERROR_CATALOG, outcomeUnknownError, serviceUnavailable } from '../errors';
import type { ErrorCode } from '../errors';
import type { Services } from '../wiring';
import type { Actor } from '../people/sessions';
import type { Principal } from '../merchants/access-tokens';
import type { Handler, RequestContext } from './context';
import type { Reply } from './envelope';
import { fieldErrors } from './validation';
import { mountStatic } from './static';
import { sendStream } from './streaming';
import { mountPages } from './pages/index';
import { mountLinkPages } from './pages/link';
import { mountDashboard } from './dashboard';
import { mountProbes } from './probes';
import { inRequestSpan, noteRoute, observeRequest } from '../telemetry/http';
import type { ProbeState } from './probes';
import { isStreamedBody } from './streamed-body';

export const BODY_LIMIT_BYTES = 64 * 1024;
/** how long a browser keeps to https once told (one year, the usual minimum for preload lists) */
const HSTS_MAX_AGE_SECONDS = 31_536_000;

export { makeAjv };

/** A processor's webhook keeps the exact bytes received: its signature is over them, not over parsed JSON. */
export type RawBodyRequest = Request & { rawBody?: Buffer; emptyBody?: boolean };

function keepRawBody(req: { url?: string }, _res: unknown, buf: Buffer): void {
  if (req.url?.startsWith('/callbacks/')) (req as RawBodyRequest).rawBody = buf;
  if (buf.length === 0) (req as RawBodyRequest).emptyBody = true;
}

export async function loadApi(definition: string): Promise<OpenAPIBackend> {
  // openapi-backend asks for an Ajv for each operation's body, parameters and responses in turn; one Ajv per
  // kind of validation and options serves them all, so the draft 2020-12 meta-schema and the formats are set
  // up a few times per document instead of a few times per operation (each its own instance cost a test
  // file's service about a second of start-up and first requests, measured)
  const ajvs = new Map<string, ReturnType<typeof makeAjv>>();
  const api = new OpenAPIBackend({
    definition,
    quick: true,
    validate: true,
    customizeAjv: (_ajv, opts, context) => {
      const key = `${context} ${JSON.stringify(opts)}`;
      let ajv = ajvs.get(key);
      if (!ajv) ajvs.set(key, (ajv = makeAjv(opts)));
      return ajv;
    },
  });
  await api.init();
  // quick mode compiles validators on first use, so this reaches Ajv before any schema is compiled
  dropDiscriminatorMappings(api.definition);
  return api;
}

/**
 * Whether openapi-backend carries the project's patch (patches/: routing indexes the operations and compiles
 * each path template's matchers once, instead of on every request). Without it every answer is the same, only
 * slower; a production install that skipped the patch step is told so at start-up.
 */
export function routerPatched(api: OpenAPIBackend): boolean {
  return typeof (api.router as unknown as Record<string, unknown>).getOperationIndex === 'function';
}

function sendError(res: Response, code: ErrorCode, message?: string, data: unknown = null, headers: Record<string, string> = {}) {
  res.status(ERROR_CATALOG[code].http).set(headers).json(errorBody(code, message, data));
}

async function send(res: Response, reply: Reply, log: Services['log']) {
  res.status(reply.status ?? 200);
  if (reply.headers) res.set(reply.headers);
  if (reply.stream) return sendStream(res, reply.stream, reply.contentType ?? 'application/octet-stream', log);
  if (reply.contentType && reply.contentType !== 'application/json') {
    res.type(reply.contentType).send(reply.body);
  } else {
    res.json(reply.body);
  }
}

type Authenticate = (authorization: string | undefined) => Promise<Principal | AppError>;
/** A security scheme's check of a request: the caller, or the AppError to answer. */
type SecurityCheck = (c: Context) => Promise<unknown>;

interface ApiSetup {
  api: OpenAPIBackend;
  handlers: Record<string, Handler>;
  services: Services;
  /** security scheme name -> check of the request */
  security: Record<string, SecurityCheck>;
}

/** A scheme's refusal when the request did not even carry its credential (no header, no cookie). */
export class MissingCredential extends AppError {}

/** Most telling first: our own failure is never reported as the caller's (a 503 or 500 outranks a 429, a 429 a 401). */
const REFUSAL_ORDER: ErrorCode[] = ['SERVICE_UNAVAILABLE', 'INTERNAL_ERROR', 'RATE_LIMITED'];

/**
 * The refusal to answer among the security handlers' results: after those of REFUSAL_ORDER, a 403 or
 * 404 outranks a 401, and the refusal of a credential that was sent outranks that of one that was not.
 */
function refusalOf(c: Context): AppError {
  const results = Object.values(c.security ?? {}).map((r) => (r as { error?: unknown })?.error).filter((e) => e instanceof AppError);
  for (const code of REFUSAL_ORDER) {
    const found = results.find((e) => e.code === code);
    if (found) return found;
  }
  return results.find((e) => e.code !== 'UNAUTHORIZED') ?? results.find((e) => !(e instanceof MissingCredential)) ?? results[0] ?? new AppError('UNAUTHORIZED');
}

/**
 * A failure that is not an AppError, as the error to answer: our outage is a 503 (OUTCOME_UNKNOWN when a
 * write of the request may have committed, else SERVICE_UNAVAILABLE), anything else a 500 (logged).
 */
function failureOf(err: unknown, log: Services['log'], context: Record<string, unknown>): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) {
    const unknown = outcomeUnknown(err);
    log.warn(unknown ? 'database lost after a write was sent: outcome unknown' : 'database unavailable', { ...context, err });
    return unknown ? outcomeUnknownError() : serviceUnavailable();
  }
  log.error('unhandled error', { ...context, err });
  return new AppError('INTERNAL_ERROR');
}

/** openapi-backend runs security before validation, so an anonymous caller learns nothing about the rules. */
function wire({ api, handlers, services, security }: ApiSetup) {
  for (const [scheme, check] of Object.entries(security)) {
    api.registerSecurityHandler(scheme, async (c: Context) => {
      try {
        const who = await check(c);
        return who instanceof AppError ? { error: who } : { principal: who };
      } catch (err) {
        // a check that could not run (the database is down) is our failure, never the caller's 401
        return { error: failureOf(err, services.log, { path: c.request.path }) };
      }
    });
  }
  api.register('unauthorizedHandler', (c: Context, _req: Request, res: Response) => {
    noteRoute(res, c.operation?.path);
    const e = refusalOf(c);
    sendError(res, e.code, e.message, e.data, e.headers);
  });
  for (const op of api.getOperations()) {
    const handler = handlers[op.operationId ?? ''];
    api.register(op.operationId ?? '', async (c: Context, req: Request, res: Response) => {
      noteRoute(res, op.path);
      if (!handler) throw new Error(`no handler for operation ${op.operationId}`);
      const found = (scheme: string) => (c.security?.[scheme] as { principal?: unknown } | undefined)?.principal ?? null;
      const principal = found('JWT') as Principal | null;
      const actor = (found('OperatorKey') ?? found('SessionCookie')) as Actor | null;
      const ctx: RequestContext = { services, requestId: String(res.getHeader('X-Request-Id')), req, principal, actor };
      const reply = await countingWrites(() =>
        handler(c, ctx).catch((err: unknown) => {
          if (isDatabaseUnavailable(err)) judgeOutcome(err);
          throw err;
        }),
      );
      await send(res, reply, services.log);
    });
  }
  api.register('validationFail', (c: Context, _req: Request, res: Response) => {
    noteRoute(res, c.operation?.path);
    sendError(res, 'VALIDATION_ERROR', undefined, fieldErrors(c.validation.errors));
  });
  api.register('notFound', (_c: Context, _req: Request, res: Response) => sendError(res, 'NOT_FOUND'));
  api.register('methodNotAllowed', (_c: Context, _req: Request, res: Response) => sendError(res, 'METHOD_NOT_ALLOWED'));
}

function isDecodable(p: string): boolean {
  try {
    decodeURIComponent(p);
    return true;
  } catch {
    return false;
  }
}

function isBodyReadError(e: { status?: number; type?: string }, req: Request): boolean {
  return e.type?.startsWith('request.') === true || (e.status === 400 && e.type === undefined && req.header('content-encoding') !== undefined);
}

function undecodableMessage(req: Request): string {
  const encoding = req.header('content-encoding');
  return encoding
    ? `The request body does not decode with its Content-Encoding (${encoding.slice(0, 32)})`
    : 'The request body could not be read in full';
}

export interface HttpAppOptions {
  services: Services;
  merchantApi: OpenAPIBackend;
  adminApi: OpenAPIBackend;
  merchantHandlers: Record<string, Handler>;
  adminHandlers: Record<string, Handler>;
  authenticateJwt: Authenticate;
  /** admin.yaml's schemes: the operator key and the dashboard's session cookie */
  adminSecurity: Record<string, SecurityCheck>;
  /** what /healthz, /livez and /readyz report */
  probes: ProbeState;
}

export function createHttpApp(o: HttpAppOptions): express.Express {
  const { services } = o;
  const log = services.log;
  wire({ api: o.merchantApi, handlers: o.merchantHandlers, services, security: { JWT: (c) => o.authenticateJwt(c.request.headers.authorization as string | undefined) } });
  wire({ api: o.adminApi, handlers: o.adminHandlers, services, security: o.adminSecurity });

  /** The document that answers a path, or null for the rest of the site. */
  const apiOf = (p: string): OpenAPIBackend | null => {
    // processors' callbacks are declared in the operator document, without its credential
    if (p === '/v1/admin' || p.startsWith('/v1/admin/') || p.startsWith('/callbacks/')) return o.adminApi;
    return p.startsWith('/v1/') ? o.merchantApi : null;
  };

  const app = express();
  app.disable('x-powered-by');
  // TRUST_PROXY names the proxies in front (none by default): behind one of them req.ip is the address it
  // forwarded, read right to left in X-Forwarded-For up to the first peer not trusted, so a client cannot
  // name its own address; without it every forwarded header is ignored (docs/operations.md).
  app.set('trust proxy', services.config.trustProxy.length > 0 ? services.config.trustProxy : false);
  // No answer carries an ETag or is ever 304 Not Modified (docs/contract/errors.md, "Caching"): each answer is
  // the whole current state, and express would otherwise hash every body, POSTs included. Files (the
  // documents, the dashboard) keep Last-Modified, which their own conditional requests use.
  app.set('etag', false);
  Object.defineProperty(app.request, 'fresh', { configurable: true, get: () => false });

  // A deployment whose PUBLIC_BASE_URL is https is served over https (a proxy in front terminates TLS):
  // browsers are told to come back over https only, for a year. A browser ignores the header on a
  // plain http answer, so no forwarded header (X-Forwarded-Proto) has to be trusted to decide.
  if (new URL(services.config.publicBaseUrl).protocol === 'https:') {
    app.use((_req: Request, res: Response, next: NextFunction) => {
      res.setHeader('Strict-Transport-Security', `max-age=${HSTS_MAX_AGE_SECONDS}`);
      next();
    });
  }

  app.use((req: Request, res: Response, next: NextFunction) => {
    const given = req.header('x-request-id');
    const id = given && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    const observed = observeRequest(services.figures, req, res);
    res.on('finish', () => {
      const ms = performance.now() - started;
      log.info('request', { request_id: id, method: req.method, path: req.path, status: res.statusCode, duration_ms: Math.round(ms * 10) / 10, ...observed.logFields() });
    });
    observed.run(next);
  });

  // Routers decode path parameters; a path that does not decode names nothing anywhere.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (isDecodable(req.path)) return next();
    sendError(res, 'VALIDATION_ERROR', undefined, [{ field: 'path', message: 'is not percent-encoded UTF-8' }]);
  });

  // The probes, the documents, the dashboard and the payment pages: a router of their own, which a call of
  // the API skips as one layer instead of testing each of their routes (express allocates per layer passed).
  const site = express.Router();
  mountProbes(site, o.probes);
  mountStatic(site);
  mountDashboard(site);
  mountPages(site, services);
  mountLinkPages(site, services);
  app.use((req: Request, res: Response, next: NextFunction) => (apiOf(req.path) ? next() : site(req, res, next)));

  // A body must be JSON and at most 64 KiB; the size is checked before anything is read. A processor's
  // statement file (text/csv) is the exception: its handler reads it as it arrives, up to its own limit.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (isStreamedBody(req)) return next();
    const length = Number(req.header('content-length') ?? 0);
    if (length > BODY_LIMIT_BYTES) return sendError(res, 'PAYLOAD_TOO_LARGE');
    const hasBody = length > 0 || req.header('transfer-encoding') !== undefined;
    if (hasBody && !req.is('application/json')) return sendError(res, 'UNSUPPORTED_MEDIA_TYPE');
    next();
  });
  app.use(express.json({ limit: BODY_LIMIT_BYTES, strict: false, verify: keepRawBody }));
  app.use((req: Request, res: Response, next: NextFunction) => {
    const api = apiOf(req.path);
    if (!api) return next();
    // The JSON parser reads zero bytes as {}; they are no body, so an operation whose body is required
    // refuses them as it refuses a request without one.
    if ((req as RawBodyRequest).emptyBody) req.body = undefined;
    inRequestSpan(res, () =>
      api.handleRequest(
        // a streamed body is not read here: the operation's validation sees it as present, its handler reads it
        { method: req.method, path: req.path, query: req.query as Record<string, string | string[]>, headers: req.headers as Record<string, string | string[]>, body: isStreamedBody(req) ? 'text/csv' : req.body },
        req,
        res,
      ),
    ).catch(next);
  });
  app.use((_req: Request, res: Response) => sendError(res, 'NOT_FOUND'));

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return void res.end();
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.too.large') return sendError(res, 'PAYLOAD_TOO_LARGE');
    if (e.type === 'entity.parse.failed') return sendError(res, 'INVALID_JSON');
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') return sendError(res, 'UNSUPPORTED_MEDIA_TYPE');
    // The body reader's other refusals (a body that does not inflate, a length that does not match)
    // carry a 4xx status and no type: the body cannot be read, so it cannot be JSON.
    if (isBodyReadError(e, req)) return sendError(res, 'INVALID_JSON', undecodableMessage(req));
    const failure = failureOf(err, log, { request_id: res.getHeader('X-Request-Id'), path: req.path });
    return sendError(res, failure.code, failure.message, failure.data, failure.headers);
  });
  return app;
}
