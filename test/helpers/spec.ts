// Every response a test receives is checked against the OpenAPI documents: an undocumented status
// or a body that breaks its schema fails the test.
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import { OpenAPIValidator } from 'openapi-backend';
import type { OpenAPIBackend } from 'openapi-backend';
import { loadApi, makeAjv } from '../../src/http/app';
import { ERROR_CATALOG } from '../../src/errors';

const OPENAPI_DIR = path.resolve(__dirname, '..', '..', 'openapi');
type SpecApis = { merchant: OpenAPIBackend; admin: OpenAPIBackend };
let apis: Promise<SpecApis> | null = null;

/**
 * The documents a test file's service loaded (the same loadApi, from the same files): the checks read them
 * instead of reading and dereferencing both documents a second time in every test file.
 */
export function useLoadedSpecs(loaded: SpecApis | null): void {
  if (loaded) apis ??= Promise.resolve(loaded);
}

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
  const validate = responseValidator(operation, status);
  if (validate && !validate(body)) {
    throw new Error(`${where}: response breaks the spec: ${JSON.stringify(validate.errors)}\nbody: ${JSON.stringify(body).slice(0, 2000)}`);
  }
}

/**
 * The validator of the response an operation documents for `status`: found as openapi-backend's
 * validateResponse finds it (the status, else its class such as 2XX, else default; a JSON body's schema, or
 * no body for a 204 without content), but compiled only when a test first receives that response, and
 * once per schema: every operation's error responses share their schema objects in the dereferenced
 * document, where validateResponse compiles each status of an operation on its first check.
 */
const responseAjv = makeAjv();
const validators = new WeakMap<object, ValidateFunction>();
const NO_CONTENT = { type: 'null' };
const compileSchema = (OpenAPIValidator as unknown as { compileSchema(ajv: ReturnType<typeof makeAjv>, schema: object): ValidateFunction }).compileSchema.bind(OpenAPIValidator);

function responseValidator(operation: { responses?: Record<string, unknown> }, status: number): ValidateFunction | null {
  const schemas: Record<string, object> = {};
  for (const [code, response] of Object.entries(operation.responses ?? {})) {
    const r = response as { content?: Record<string, { schema?: object }> };
    const schema = r.content?.['application/json']?.schema;
    if (schema) schemas[code] = schema;
    else if (!r.content && code === '204') schemas[code] = NO_CONTENT;
  }
  const schema = schemas[String(status)] ?? schemas[`${Math.floor(status / 100)}XX`] ?? schemas.default;
  if (!schema) return null;
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = compileSchema(responseAjv, schema)));
  return validate;
}
