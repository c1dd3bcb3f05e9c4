// Every response a test receives is checked against the OpenAPI documents: an undocumented status
// or a body that breaks its schema fails the test.
import path from 'node:path';
import type { OpenAPIBackend } from 'openapi-backend';
import { loadApi, makeAjv } from '../../src/http/app';
import { ERROR_CATALOG } from '../../src/errors';

const OPENAPI_DIR = path.resolve(__dirname, '..', '..', 'openapi');
let apis: Promise<{ merchant: OpenAPIBackend; admin: OpenAPIBackend }> | null = null;

export function specApis() {
  apis ??= Promise.all([loadApi(path.join(OPENAPI_DIR, 'openapi.yaml')), loadApi(path.join(OPENAPI_DIR, 'admin.yaml'))]).then(
    ([merchant, admin]) => ({ merchant, admin }),
  );
  return apis;
}

function assertErrorShape(body: unknown, status: number, where: string) {
  const b = body as Record<string, unknown>;
  const code = b?.code as keyof typeof ERROR_CATALOG;
  if (!b || typeof b !== 'object' || b.status !== 'error' || typeof b.message !== 'string' || !(code in ERROR_CATALOG) || !('data' in b)) {
    throw new Error(`${where}: not an error envelope: ${JSON.stringify(body)}`);
  }
  if (ERROR_CATALOG[code].http !== status) throw new Error(`${where}: ${code} answered with HTTP ${status}`);
}

/** A body of a media type other than JSON (the PEM key) is checked against that media type's schema. */
function checkOtherMediaType(operation: { responses?: Record<string, unknown> }, status: number, contentType: string, body: unknown, where: string) {
  const content = (operation.responses?.[String(status)] as { content?: Record<string, { schema?: object }> } | undefined)?.content ?? {};
  const mediaType = contentType.split(';')[0].trim();
  const schema = content[mediaType]?.schema;
  if (!schema) throw new Error(`${where}: media type ${mediaType} is not documented (documented: ${Object.keys(content).join(', ')})`);
  const validate = makeAjv().compile(schema);
  if (!validate(body)) throw new Error(`${where}: ${mediaType} body breaks the spec: ${JSON.stringify(validate.errors)}`);
}

export async function checkResponse(method: string, urlPath: string, status: number, body: unknown, contentType = 'application/json'): Promise<void> {
  const { merchant, admin } = await specApis();
  const pathname = urlPath.split('?')[0];
  const api = pathname.startsWith('/v1/admin') || pathname.startsWith('/callbacks/') ? admin : merchant;
  const where = `${method.toUpperCase()} ${pathname} -> ${status}`;
  const operation = api.matchOperation({ method, path: pathname, headers: {} });
  if (status >= 400) assertErrorShape(body, status, where);
  if (!operation) {
    if (status !== 404 && status !== 400) throw new Error(`${where}: no operation in the spec matches`);
    return;
  }
  const documented = Object.keys(operation.responses ?? {});
  if (!documented.includes(String(status))) {
    throw new Error(`${where}: status ${status} is not documented for ${operation.operationId} (documented: ${documented.join(', ')})`);
  }
  if (!contentType.includes('json')) return checkOtherMediaType(operation, status, contentType, body, where);
  const result = api.validateResponse(body, operation, status);
  if (result.errors && result.errors.length > 0) {
    throw new Error(`${where}: response breaks the spec: ${JSON.stringify(result.errors)}\nbody: ${JSON.stringify(body).slice(0, 2000)}`);
  }
}
