// Proves the router's cached operations answer exactly as openapi-backend's own, for every operation of both documents, and that the library still routes through the methods the cache replaces.
import path from 'node:path';
import { OpenAPIBackend, OpenAPIRouter } from 'openapi-backend';
import type { Operation, Request } from 'openapi-backend';
import { cacheOperations } from '../../src/http/operations-cache';
import { specApis } from '../helpers/spec';

const OPENAPI_DIR = path.resolve(__dirname, '..', '..', 'openapi');
const DOCUMENTS = ['openapi.yaml', 'admin.yaml'];
const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'];

async function load(document: string): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({ definition: path.join(OPENAPI_DIR, document), quick: true });
  await api.init();
  return api;
}

/** The same document twice: as the library ships it, and with its operations cached. */
async function pair(document: string) {
  const [shipped, cached] = await Promise.all([load(document), load(document)]);
  cacheOperations(cached);
  return { shipped, cached };
}

/** Paths a client may send for an operation: filled in, with a trailing slash, one segment too many or too few. */
function pathsFor(op: Operation): string[] {
  const filled = op.path.replace(/\{[^}]+\}/g, 'PCK7M2QX9D4W8N3R6T5Y2Z');
  return [filled, `${filled}/`, `${filled}/extra`, filled.slice(0, filled.lastIndexOf('/')) || '/', op.path];
}

/** What routing answers: the operation's id, or the library's refusal (404 or 405) in strict mode. */
function route(api: OpenAPIBackend, req: Request): string {
  try {
    return api.router.matchOperation(req, true).operationId ?? '(no id)';
  } catch (err) {
    return (err as Error).message;
  }
}

describe.each(DOCUMENTS)('%s', (document) => {
  it('lists the same operations as the library, for every operation of the document', async () => {
    const { shipped, cached } = await pair(document);
    const operations = shipped.router.getOperations();
    expect(operations.length).toBeGreaterThan(0);
    expect(cached.router.getOperations()).toEqual(operations);
    for (const op of operations) expect(cached.router.getOperation(op.operationId!)).toEqual(shipped.router.getOperation(op.operationId!));
    expect(cached.router.getOperation('noSuchOperation')).toBeUndefined();
    expect(shipped.router.getOperation('noSuchOperation')).toBeUndefined();
  });

  it('routes every method on every path of the document exactly as the library does', async () => {
    const { shipped, cached } = await pair(document);
    const paths = [...shipped.router.getOperations().flatMap(pathsFor), '/', '/v1', '/v1/nowhere', '/v1/admin/nowhere', '//v1/collections'];
    let routed = 0;
    for (const p of paths) {
      for (const method of METHODS) {
        const req: Request = { method, path: p, headers: {} };
        const answer = route(shipped, req);
        expect({ method, p, answer: route(cached, req) }).toEqual({ method, p, answer });
        expect(cached.router.matchOperation(req)?.operationId).toBe(shipped.router.matchOperation(req)?.operationId);
        if (!answer.includes('404') && !answer.includes('405')) routed++;
      }
    }
    // every operation was reached at least once, so the comparison covered the whole document
    expect(routed).toBeGreaterThanOrEqual(shipped.router.getOperations().length);
  });

  it('builds the list once: every request gets the same frozen operations', async () => {
    const { cached } = await pair(document);
    const first = cached.router.getOperations();
    expect(cached.router.getOperations()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const op = first[0];
    expect(cached.router.matchOperation({ method: op.method, path: pathsFor(op)[0], headers: {} })).toBe(cached.router.getOperation(op.operationId!));
    expect(() => {
      (op as { path: string }).path = '/changed';
    }).toThrow(TypeError);
    expect(op.path).not.toBe('/changed');
  });
});

describe('the library the cache relies on', () => {
  it('still has the router methods the cache replaces', () => {
    for (const method of ['getOperations', 'getOperation', 'matchOperation'] as const) expect(typeof OpenAPIRouter.prototype[method]).toBe('function');
  });

  it('still routes through the router instance, so the cached list is what a request is matched against', async () => {
    const { cached } = await pair('openapi.yaml');
    const lists = jest.spyOn(cached.router, 'getOperations');
    const byId = jest.spyOn(cached.router, 'getOperation');
    const handled = await cached.handleRequest({ method: 'GET', path: '/v1/nowhere', headers: {} }).catch((err: Error) => err.message);
    expect(handled).toMatch(/^404/);
    expect(lists).toHaveBeenCalled();
    const op = cached.router.getOperations()[0];
    cached.validator.validateRequest({ method: op.method, path: pathsFor(op)[0], headers: {} }, op.operationId!);
    expect(byId).toHaveBeenCalledWith(op.operationId);
  });

  it('refuses to start on a router that lacks a method it replaces', async () => {
    const api = await load('openapi.yaml');
    Object.defineProperty(api.router, 'getOperations', { value: undefined });
    expect(() => cacheOperations(api)).toThrow(/no getOperations\(\)/);
  });

  it('is what the service loads: both documents answer from one built list', async () => {
    const { merchant, admin } = await specApis();
    for (const api of [merchant, admin]) expect(api.getOperations()).toBe(api.getOperations());
  });
});
