// Proves, for every operation of both bundled documents (read at run time, none listed here), that hostile values derived from its parameter and body schemas (boundary dates too) get no 5xx, an error envelope and no state change.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import querystring from 'node:querystring';
import { gzipSync } from 'node:zlib';
import type { OpenAPIBackend, Operation } from 'openapi-backend';
import { parse } from 'yaml';
import { loadApi, makeAjv } from '../../src/http/app';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';
import { databaseState } from '../helpers/state';

const GENERATED = path.resolve(__dirname, '..', '..', 'generated');
const DOCUMENTS = { merchant: path.join(GENERATED, 'openapi.yaml'), admin: path.join(GENERATED, 'admin.yaml') };
type DocumentName = keyof typeof DOCUMENTS;
type Schema = Record<string, any>;
const ajv = makeAjv();

/** Operation ids per document, read synchronously so that each operation gets its own test. */
function operationIds(file: string): string[] {
  const doc = parse(readFileSync(file, 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
  return Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => (op?.operationId ? [op.operationId] : [])));
}

// ---- hostile values, derived from a schema ----------------------------------------------------------

const NUL = 'a\u0000b';
/** Nested objects 2,000 deep: about 12 KB of JSON, inside the 64 KiB body limit. */
const DEEP = JSON.parse('{"a":'.repeat(2000) + '0' + '}'.repeat(2000));

function typeOf(s: Schema): string | undefined {
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return s.type.find((t: string) => t !== 'null');
  for (const k of ['allOf', 'anyOf', 'oneOf']) for (const sub of s[k] ?? []) if (typeOf(sub)) return typeOf(sub);
  if (s.enum) return typeof s.enum[0];
  return undefined;
}

function bound(s: Schema, key: string): number | undefined {
  const own = s[key];
  if (typeof own === 'number') return own;
  for (const sub of s.allOf ?? []) if (typeof sub[key] === 'number') return sub[key];
  return undefined;
}

/** A string this schema takes, if one can be found: its example, or as many x as its minimum length. */
function validString(s: Schema): string | undefined {
  const check = ajv.compile(s);
  const candidates = [exampleOf(s), 'x'.repeat(Math.max(1, bound(s, 'minLength') ?? 1))];
  return candidates.find((c): c is string => typeof c === 'string' && check(c));
}

/** The string with its first character replaced: same length, so only that character can be refused. */
function withFirst(value: string | undefined, char: string): string {
  return char + (value ?? 'xxxxxxxxxxxx').slice(1);
}

/** JSON values that a field of this schema should refuse: wrong types, bounds, NUL, huge, nesting. */
function bodyValues(s: Schema): unknown[] {
  const type = typeOf(s);
  const wrongTypes: unknown[] = [null, type === 'string' ? 12345 : 'text', type === 'object' ? [] : {}];
  switch (type) {
    case 'string': {
      const max = bound(s, 'maxLength');
      const valid = validString(s);
      return [...wrongTypes, withFirst(valid, '\u0000'), withFirst(valid, '\ud800'), NUL, 'Z'.repeat(Math.min((max ?? 4096) + 1, 40_000)), '', DEEP];
    }
    case 'integer':
    case 'number': {
      const max = bound(s, 'maximum');
      const min = bound(s, 'minimum');
      return [...wrongTypes, 2 ** 63, 1e308, -1e308, 1.5, ...(max === undefined ? [] : [max + 1]), ...(min === undefined ? [] : [min - 1]), '12'];
    }
    case 'boolean':
      return [...wrongTypes, 'true', 1];
    case 'array': {
      const max = bound(s, 'maxItems');
      return [...wrongTypes, Array.from({ length: (max ?? 1000) + 1 }, () => 'x'), [NUL], [DEEP]];
    }
    case 'object':
      return [...wrongTypes, { unknown_field_for_hostile_test: 1 }, DEEP];
    default:
      return [...wrongTypes, NUL, DEEP];
  }
}

/**
 * The edges of time a date parameter may be given: the first and last moments the contract takes (the
 * day after the last is year 10000, which PostgreSQL's date input refuses in its ISO form), a leap day,
 * and just outside.
 */
const BOUNDARY_TIMES = [
  '0001-01-01T00:00:00',
  '0001-01-01T00:00:00Z',
  '0001-01-01T23:59:59',
  '9999-12-31T00:00:00',
  '9999-12-31T23:59:59',
  '9999-12-31T23:59:59Z',
  '2024-02-29T23:59:59',
  '2023-02-29T00:00:00',
  '0000-12-31T23:59:59',
  '10000-01-01T00:00:00',
];

/** Raw (already percent-encoded) query, path or header values this parameter should refuse. */
function parameterValues(s: Schema, where: string): string[] {
  const type = typeOf(s);
  const valid = type === 'string' ? validString(s) : undefined;
  const takesTimes = type === 'string' && ajv.compile(s)('2025-06-01T12:00:00');
  const encodings = ['%00', '%00' + encodeURIComponent(withFirst(valid, 'x').slice(1)), '%ED%A0%80', '%C0%80', '%FF'];
  const huge = 'Z'.repeat(where === 'header' ? 300 : 3000);
  if (where === 'header') return ['', huge];
  if (type === 'integer' || type === 'number') {
    return [...encodings, '-1', '0', '1.5', '1e308', '99999999999999999999', '9223372036854775807', 'NaN', 'abc', '0x10', huge];
  }
  if (type === 'boolean') return [...encodings, 'yes', '2'];
  return [...encodings, huge, 'NOT_A_VALUE', '%20', ...(takesTimes ? BOUNDARY_TIMES.map(encodeURIComponent) : [])];
}

// ---- probes -------------------------------------------------------------------------------------------

interface Probe {
  label: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  /** a JSON value, or raw bytes sent as is */
  body?: { json: unknown } | { raw: string | Buffer; headers?: Record<string, string> };
  /** refused whatever the schema says (the body cannot be read) */
  unreadable?: boolean;
}

interface Fixture {
  values: Record<string, string>;
  headers: Record<string, string>;
}

function exampleOf(s: Schema | undefined): unknown {
  if (!s) return undefined;
  if (s.examples?.length) return s.examples[0];
  for (const k of ['example', 'default', 'const']) if (s[k] !== undefined) return s[k];
  if (s.enum) return s.enum[0];
  for (const sub of [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])]) {
    const v = exampleOf(sub);
    if (v !== undefined) return v;
  }
  if (typeOf(s) === 'object') {
    const out: Record<string, unknown> = {};
    for (const name of s.required ?? []) out[name] = exampleOf(s.properties?.[name]);
    return out;
  }
  return typeOf(s) === 'string' ? 'x'.repeat(Math.max(1, bound(s, 'minLength') ?? 1)) : typeOf(s) === 'array' ? [] : 1;
}

function requestBodyOf(op: Operation): { schema: Schema; example: unknown } | null {
  const media = (op.requestBody as { content?: Record<string, { schema?: Schema; examples?: Record<string, { value: unknown }>; example?: unknown }> })
    ?.content?.['application/json'];
  if (!media?.schema) return null;
  const named = media.examples ? Object.values(media.examples)[0]?.value : undefined;
  return { schema: media.schema, example: named ?? media.example ?? exampleOf(media.schema) };
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
  example?: unknown;
}

function parametersOf(op: Operation): Parameter[] {
  return (op.parameters ?? []) as unknown as Parameter[];
}

/** The properties a body may have, gathered from every branch of a union or composition too. */
function propertiesOf(s: Schema): Record<string, Schema> {
  const out: Record<string, Schema> = { ...(s.properties ?? {}) };
  for (const sub of [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])]) {
    // A full definition wins over a branch's partial one (often only a description or a pattern).
    for (const [name, def] of Object.entries(propertiesOf(sub))) if (!out[name] || (typeOf(def) && !typeOf(out[name]))) out[name] = def;
  }
  return out;
}

function buildPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => values[name]);
}

function probesOf(op: Operation, fx: Fixture): Probe[] {
  const params = parametersOf(op);
  const pathValues: Record<string, string> = {};
  const baseQuery: Record<string, string> = {};
  const baseHeaders: Record<string, string> = {};
  for (const p of params) {
    const value = fx.values[p.name] ?? String(p.example ?? exampleOf(p.schema));
    if (p.in === 'path') pathValues[p.name] = encodeURIComponent(value);
    if (p.in === 'query' && p.required) baseQuery[p.name] = encodeURIComponent(value);
    if (p.in === 'header') baseHeaders[p.name.toLowerCase()] = fx.headers[p.name.toLowerCase()] ?? value;
  }
  const q = (extra: Record<string, string>) =>
    Object.entries({ ...baseQuery, ...extra })
      .map(([k, v]) => `${encodeURIComponent(k)}=${v}`)
      .join('&');
  const base = { path: buildPath(op.path, pathValues), query: q({}), headers: baseHeaders };
  const body = requestBodyOf(op);
  const baseBody = body ? { json: body.example } : undefined;
  const probes: Probe[] = [];
  for (const p of params) {
    for (const v of parameterValues(p.schema, p.in)) {
      const label = `${p.in} ${p.name}=${v.slice(0, 24)}`;
      if (p.in === 'path') probes.push({ ...base, label, path: buildPath(op.path, { ...pathValues, [p.name]: v }), body: baseBody });
      if (p.in === 'query') probes.push({ ...base, label, query: q({ [p.name]: v }), body: baseBody });
      if (p.in === 'header') probes.push({ ...base, label, headers: { ...baseHeaders, [p.name.toLowerCase()]: v }, body: baseBody });
    }
  }
  probes.push({ ...base, label: 'an unknown query parameter', query: q({ unknown_parameter: '1' }), body: baseBody });
  if (body) {
    const example = body.example as Record<string, unknown>;
    for (const [name, schema] of Object.entries(propertiesOf(body.schema))) {
      for (const v of bodyValues(schema)) {
        probes.push({ ...base, label: `body ${name}=${JSON.stringify(v)?.slice(0, 24)}`, body: { json: { ...example, [name]: v } } });
      }
    }
    const json = { 'content-type': 'application/json' };
    const wholeBodies: [string, unknown][] = [
      ['an unknown key', { ...example, unknown_field_for_hostile_test: 1 }],
      ['4,000 unknown keys', { ...example, ...Object.fromEntries(Array.from({ length: 4000 }, (_, i) => [`k${i}`, 0])) }],
      ['an array', [example]],
      ['null', null],
      ['a string', 'text'],
      ['a number', 12],
      ['deep nesting', DEEP],
    ];
    for (const [label, v] of wholeBodies) probes.push({ ...base, label: `body: ${label}`, body: { json: v } });
    const rawBodies: [string, string][] = [
      ['a lone surrogate in a key', JSON.stringify(example).replace(/^\{/, '{"\\udc00":1,')],
      ['deep arrays', '['.repeat(30_000) + ']'.repeat(30_000)],
    ];
    for (const [label, raw] of rawBodies) probes.push({ ...base, label: `body: ${label}`, body: { raw, headers: json } });
  }
  // Whatever the operation, a body that cannot be read is refused before anything else (fetch sends
  // no body with a GET).
  if (op.method === 'get') return probes;
  const unreadable: [string, string | Buffer, Record<string, string>][] = [
    ['invalid JSON', '{"a":', {}],
    ['gzip that does not inflate', 'not gzip at all', { 'content-encoding': 'gzip' }],
    ['deflate that does not inflate', 'not deflate', { 'content-encoding': 'deflate' }],
    ['br that does not decompress', 'not brotli', { 'content-encoding': 'br' }],
    ['an unknown Content-Encoding', '{}', { 'content-encoding': 'x-hostile' }],
    ['UTF-16 charset', '{}', { 'content-type': 'application/json; charset=utf-16' }],
    ['text/plain', 'hello', { 'content-type': 'text/plain' }],
    ['a gzip bomb past 64 KiB', gzipSync(Buffer.alloc(1_000_000, 0x20)), { 'content-encoding': 'gzip' }],
  ];
  for (const [label, raw, headers] of unreadable) {
    probes.push({ ...base, label: `body: ${label}`, body: { raw, headers: { 'content-type': 'application/json', ...headers } }, unreadable: true });
  }
  return probes;
}

// ---- the contract's own verdict -----------------------------------------------------------------------

/** Does the spec refuse this probe? (Asked of the same validator the service uses.) */
function specRefuses(api: OpenAPIBackend, op: Operation, probe: Probe): boolean {
  if (probe.unreadable || (probe.body && 'raw' in probe.body)) return true;
  try {
    decodeURIComponent(probe.path);
  } catch {
    return true; // a path that is not percent-encoded UTF-8 names nothing
  }
  if (op.path.split('/').length !== probe.path.split('/').length) return true;
  const result = api.validateRequest(
    {
      method: op.method,
      path: probe.path,
      query: querystring.parse(probe.query) as Record<string, string | string[]>,
      headers: { 'content-type': 'application/json', ...probe.headers },
      body: probe.body && 'json' in probe.body ? probe.body.json : undefined,
    },
    op,
  );
  return (result.errors?.length ?? 0) > 0;
}

// ---- the service under attack -------------------------------------------------------------------------

let svc: TestService;
let m: MerchantSetup;
let fixture: Fixture;
const apis = {} as Record<DocumentName, OpenAPIBackend>;

// 180 s: a start-up budget for a loaded machine (a service, a merchant with its MIDs, an argon2 token)
beforeAll(async () => {
  // No designated number and a day-long TTL: the PENDING collection below is left alone by every
  // worker, so any change in the tables comes from a probe.
  svc = await startTestService({ env: { PENDING_TTL_SECONDS: '86400' } });
  m = await setupMerchant(svc);
  const accepted = await m.client.post('/v1/collections/request-to-pay', mobileMoney({ account_number: '256700000009' }));
  expect(accepted.status).toBe(200);
  fixture = {
    values: {
      business_id: String(m.businessId),
      mid_id: String(Object.values(m.midIds)[0]),
      token_id: String(m.apiTokenId),
      gateway_reference: accepted.body.data.gateway_reference,
      currency: 'UGX',
    },
    headers: { 'secret-key': m.apiSecret },
  };
  for (const name of Object.keys(DOCUMENTS) as DocumentName[]) apis[name] = await loadApi(DOCUMENTS[name]);
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

function clientFor(document: DocumentName): Client {
  return document === 'admin' ? svc.admin : m.client;
}

async function send(client: Client, op: Operation, probe: Probe) {
  const url = probe.query ? `${probe.path}?${probe.query}` : probe.path;
  const body = probe.body && 'json' in probe.body ? probe.body.json : undefined;
  const raw = probe.body && 'raw' in probe.body ? probe.body.raw : undefined;
  const headers = { ...probe.headers, ...(probe.body && 'raw' in probe.body ? probe.body.headers : {}) };
  try {
    return await client.request(op.method.toUpperCase(), url, body, { headers, raw });
  } catch (e) {
    return { status: -1, body: null, text: String(e), headers: new Headers() };
  }
}

/** Sends probes a few at a time; returns a line per broken expectation. */
async function attack(document: DocumentName, op: Operation, probes: Probe[], refused: boolean): Promise<string[]> {
  const failures: string[] = [];
  const queue = [...probes];
  const worker = async () => {
    for (let probe = queue.shift(); probe; probe = queue.shift()) {
      const res = await send(clientFor(document), op, probe);
      const ok = refused ? res.status >= 400 && res.status < 500 && res.body?.status === 'error' : res.status > 0 && res.status < 500;
      if (!ok) failures.push(`${probe.label}: ${res.status} ${res.text.slice(0, 300)}`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return failures;
}

for (const document of Object.keys(DOCUMENTS) as DocumentName[]) {
  describe(`${document} document`, () => {
    it.each(operationIds(DOCUMENTS[document]))('%s refuses hostile input with a 4xx envelope and changes nothing', async (operationId) => {
      const api = apis[document];
      const op = api.getOperation(operationId)!;
      const probes = probesOf(op, fixture);
      const refusedProbes = probes.filter((p) => specRefuses(api, op, p));
      // A value the spec accepts is a valid request; only a read may be sent as one here.
      const acceptedReads = op.method === 'get' ? probes.filter((p) => !refusedProbes.includes(p)) : [];
      expect(refusedProbes.length).toBeGreaterThan(0);
      const before = await databaseState(svc.services.db);
      const failures = await attack(document, op, refusedProbes, true);
      expect(failures).toEqual([]);
      expect(await databaseState(svc.services.db)).toEqual(before);
      expect(await attack(document, op, acceptedReads, false)).toEqual([]);
    });
  });
}

// ---- what the contract must refuse, for an operation not yet written ----------------------------------

interface Leaf {
  where: string;
  schema: Schema;
}

function leaves(s: Schema | undefined, where: string, out: Leaf[] = [], depth = 0): Leaf[] {
  if (!s || typeof s !== 'object' || depth > 12) return out;
  const type = typeOf(s);
  if (type === 'string' || type === 'integer' || type === 'number') out.push({ where, schema: s });
  for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) leaves(v, `${where}.${k}`, out, depth + 1);
  if (s.items) leaves(s.items, `${where}[]`, out, depth + 1);
  for (const k of ['oneOf', 'anyOf']) (s[k] ?? []).forEach((sub: Schema) => leaves(sub, where, out, depth + 1));
  return out;
}

describe('every request schema refuses what PostgreSQL cannot store', () => {
  it.each(Object.keys(DOCUMENTS) as DocumentName[])('%s document: strings refuse NUL and lone surrogates; integers are bounded', async (document) => {
    const problems: string[] = [];
    for (const op of apis[document].getOperations()) {
      const all = [
        ...parametersOf(op).flatMap((p) => leaves(p.schema, `${op.operationId} ${p.in} ${p.name}`)),
        ...leaves(requestBodyOf(op)?.schema, `${op.operationId} body`),
      ];
      for (const { where, schema } of all) {
        const check = ajv.compile(schema);
        const type = typeOf(schema);
        const valid = type === 'string' ? validString(schema) : undefined;
        if (valid !== undefined && (check(withFirst(valid, '\u0000')) || check(withFirst(valid, '\ud800')))) {
          problems.push(`${where}: a string that takes NUL or a lone surrogate`);
        }
        if (type === 'integer' && !(bound(schema, 'maximum')! <= 2 ** 53)) problems.push(`${where}: an integer without a safe maximum`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('a request body the spec requires', () => {
  it.each(Object.keys(DOCUMENTS) as DocumentName[])('%s document: every operation that requires one refuses a request without it or with zero bytes (400, field requestBody) and changes nothing', async (document) => {
    const api = apis[document];
    // what this file's callers can reach: the operator key, the merchant's token, or nothing (a session's own operations answer 401 first)
    const sessionOnly = (op: Operation) => op.security?.length === 1 && 'SessionCookie' in op.security[0];
    const required = api.getOperations().filter((op) => (op.requestBody as { required?: boolean } | undefined)?.required === true && !sessionOnly(op));
    expect(required.length).toBeGreaterThan(0);
    const before = await databaseState(svc.services.db);
    const answers: [string, number, unknown][] = [];
    // no body at all, and zero bytes declared as JSON (a JSON parser reads them as {})
    const bodies: Probe['body'][] = [undefined, { raw: '', headers: { 'content-type': 'application/json' } }];
    for (const op of required) {
      const probe = probesOf(op, fixture).find((p) => p.label === 'an unknown query parameter')!;
      for (const body of bodies) {
        const res = await send(clientFor(document), op, { ...probe, query: '', body });
        answers.push([op.operationId!, res.status, res.body?.data]);
      }
    }
    expect(answers).toEqual(required.flatMap((op) => bodies.map(() => [op.operationId, 400, [{ field: 'requestBody', message: 'is required' }]])));
    expect(await databaseState(svc.services.db)).toEqual(before);
  });
});
