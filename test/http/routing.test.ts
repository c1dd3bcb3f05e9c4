// Proves openapi-backend, as patched by patches/ and loaded by the service, routes and parses every method and path of both documents exactly as the unpatched library does, and that a request no longer rebuilds the operations list or a path matcher.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { OpenAPIBackend, Operation, Request } from 'openapi-backend';
import { OpenAPIRouter as ShippedRouter } from 'openapi-backend-shipped/router';
import { loadApi, routerPatched } from '../../src/http/app';

// counts how often a router compiles a path template's matchers (bath), around the real implementation
jest.mock('bath-es5', () => {
  const actual = jest.requireActual<typeof import('bath-es5')>('bath-es5');
  const counted = jest.fn(actual.default);
  return { __esModule: true, ...actual, default: counted, bath: counted };
});
import bath from 'bath-es5';

const ROOT = path.resolve(__dirname, '..', '..');
const OPENAPI_DIR = path.join(ROOT, 'openapi');
const DOCUMENTS = ['openapi.yaml', 'admin.yaml'];
const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'];
const compiled = bath as unknown as jest.Mock;

/** The router methods both copies share, as this test calls them. */
interface Router {
  matchOperation(req: Request, strict?: boolean): Operation | undefined;
  getOperations(): Operation[];
  getOperation(id: string): Operation | undefined;
  parseRequest(req: Request, operation?: Operation): { params: unknown; query: unknown; headers: unknown; cookies: unknown; requestBody: unknown };
}

/** The service's loaded document, and the unpatched library's router over the same dereferenced definition. */
async function pair(document: string): Promise<{ api: OpenAPIBackend; patched: Router; shipped: Router }> {
  const api = await loadApi(path.join(OPENAPI_DIR, document));
  const shipped = new ShippedRouter({ definition: api.definition, apiRoot: api.apiRoot }) as unknown as Router;
  return { api, patched: api.router as unknown as Router, shipped };
}

/** Paths a client may send for an operation: filled in, percent-encoded, with a trailing slash, one segment too many or too few. */
function pathsFor(op: Operation): string[] {
  const filled = op.path.replace(/\{[^}]+\}/g, 'PCK7M2QX9D4W8N3R6T5Y2Z');
  const encoded = op.path.replace(/\{[^}]+\}/g, 'a%20b%2Fc');
  return [filled, encoded, `${filled}/`, `${filled}/extra`, filled.slice(0, filled.lastIndexOf('/')) || '/', op.path];
}

/** What routing answers: the operation's id, or the library's refusal (404 or 405) in strict mode. */
function route(router: Router, req: Request): string {
  try {
    return router.matchOperation(req, true)!.operationId ?? '(no id)';
  } catch (err) {
    return (err as Error).message;
  }
}

describe.each(DOCUMENTS)('%s', (document) => {
  it('routes every method on every path of the document exactly as the unpatched library does', async () => {
    const { patched, shipped } = await pair(document);
    const operations = shipped.getOperations();
    const paths = [...operations.flatMap(pathsFor), '/', '/v1', '/v1/nowhere', '/v1/admin/nowhere', '//v1/collections', '/v1/collections?x=1'];
    let routed = 0;
    for (const p of paths) {
      for (const method of METHODS) {
        const req: Request = { method, path: p, headers: {} };
        const answer = route(shipped, req);
        expect({ method, p, answer: route(patched, req) }).toEqual({ method, p, answer });
        expect({ method, p, lenient: patched.matchOperation(req)?.operationId }).toEqual({ method, p, lenient: shipped.matchOperation(req)?.operationId });
        if (!answer.includes('404') && !answer.includes('405')) routed++;
      }
    }
    // every operation was reached at least once, so the comparison covered the whole document
    expect(routed).toBeGreaterThanOrEqual(operations.length);
  });

  it('finds every operation by id, and parses every path and query as the unpatched library does', async () => {
    const { patched, shipped } = await pair(document);
    expect(patched.getOperations()).toEqual(shipped.getOperations());
    for (const op of shipped.getOperations()) {
      expect(patched.getOperation(op.operationId!)).toEqual(op);
      for (const p of pathsFor(op)) {
        const req: Request = { method: op.method, path: p, query: { per_page: '5', status: ['PENDING', 'FAILED'] }, headers: { Cookie: 'a=1', 'X-Request-Id': 'r1' }, body: '{"amount":1}' };
        expect({ p, parsed: patched.parseRequest(req, op) }).toEqual({ p, parsed: shipped.parseRequest(req, op) });
      }
    }
    expect(patched.getOperation('noSuchOperation')).toBeUndefined();
  });
});

describe('a request through the patched library', () => {
  /** One request through handleRequest: parse, route, parse, validate (the third parse); the handlers only say where it ended. */
  async function handled(document: string) {
    const api = await loadApi(path.join(OPENAPI_DIR, document));
    api.registerSecurityHandler('JWT', () => true);
    api.register({
      notImplemented: (c) => `reached ${c.operation.operationId}`,
      unauthorizedHandler: (c) => `refused ${c.operation.operationId}`,
      validationFail: (c) => `invalid ${c.operation.operationId}`,
      notFound: () => 'not found',
      methodNotAllowed: () => 'method not allowed',
    });
    return api;
  }

  it('rebuilds neither the operations list nor a path matcher once each operation has been matched', async () => {
    const api = await handled('openapi.yaml');
    const requests: Request[] = [
      { method: 'POST', path: '/v1/collections/request-to-pay', headers: { 'content-type': 'application/json' }, body: { amount: 1 } },
      { method: 'GET', path: '/v1/collections/PCK7M2QX9D4W8N3R6T5Y2Z', headers: {} },
      { method: 'GET', path: '/v1/collections', query: { per_page: '5' }, headers: {} },
    ];
    // the first round may build the index and one matcher per template
    for (const req of requests) await api.handleRequest(req);
    const lists = jest.spyOn(api.router, 'getOperations');
    compiled.mockClear();
    const answers: unknown[] = [];
    for (let i = 0; i < 10; i++) for (const req of requests) answers.push(await api.handleRequest(req));
    expect(new Set(answers)).toEqual(new Set(['invalid requestToPay', 'reached getCollection', 'reached listCollections']));
    // the unpatched library flattens the document once or twice per request and compiles a matcher in two of its three parses
    expect({ listsBuilt: lists.mock.calls.length, matchersCompiled: compiled.mock.calls.length }).toEqual({ listsBuilt: 0, matchersCompiled: 0 });
  });

  it('still answers an unknown path and an unknown method as before', async () => {
    const api = await handled('openapi.yaml');
    expect(await api.handleRequest({ method: 'GET', path: '/v1/nowhere', headers: {} })).toBe('not found');
    expect(await api.handleRequest({ method: 'DELETE', path: '/v1/collections/request-to-pay', headers: {} })).toBe('method not allowed');
  });

  it('builds the index again when the router is given another definition', async () => {
    const { api, shipped } = await pair('openapi.yaml');
    const router = api.router as unknown as Router & { definition: OpenAPIBackend['definition'] };
    const req: Request = { method: 'GET', path: '/v1/only-here', headers: {} };
    expect(route(router, req)).toMatch(/^404/);
    router.definition = { ...api.definition, paths: { ...api.definition.paths, '/v1/only-here': { get: { operationId: 'onlyHere', responses: {} } } } };
    expect(route(router, req)).toBe('onlyHere');
    expect(route(shipped, req)).toMatch(/^404/);
  });
});

describe('the patch', () => {
  it('is applied to the copy the service loads, and made for the version installed', async () => {
    const { api } = await pair('openapi.yaml');
    expect(routerPatched(api)).toBe(true);
    const version = (dir: string) => (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', dir, 'package.json'), 'utf8')) as { version: string }).version;
    const installed = version('openapi-backend');
    // the unpatched copy this test compares against is the same release
    expect(version('openapi-backend-shipped')).toBe(installed);
    expect(readdirSync(path.join(ROOT, 'patches')).filter((f) => f.startsWith('openapi-backend+'))).toEqual([`openapi-backend+${installed}.patch`]);
  });

  it('is absent from the unpatched copy, so the comparisons above compare two different routers', () => {
    expect(typeof (ShippedRouter.prototype as unknown as Record<string, unknown>).getOperationIndex).toBe('undefined');
  });
});
