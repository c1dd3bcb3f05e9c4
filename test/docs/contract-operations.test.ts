// Proves the contract notes name every operation the OpenAPI documents have, and only those: the rows of each docs/contract page's "Operations" table (operationId, then `METHOD /path`, or `webhook` for an outgoing notification) together list exactly the operationIds of openapi/openapi.yaml and openapi/admin.yaml (read from their bundles in generated/), each once, with its own method and path.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..');
const CONTRACT = path.join(ROOT, 'docs', 'contract');
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

interface Named {
  page: string;
  operationId: string;
  /** `METHOD /path`, or `webhook` */
  where: string;
}

/** The operations of one bundled OpenAPI document, by operationId: paths as `METHOD /path`, webhooks as `webhook`. */
export function operationsOf(document: { paths?: Record<string, Record<string, unknown>>; webhooks?: Record<string, Record<string, unknown>> }): Map<string, string> {
  const out = new Map<string, string>();
  const add = (operation: unknown, where: string) => {
    const id = (operation as { operationId?: unknown })?.operationId;
    if (typeof id !== 'string') throw new Error(`${where} has no operationId`);
    if (out.has(id)) throw new Error(`operationId ${id} twice`);
    out.set(id, where);
  };
  for (const [p, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) if (item[method]) add(item[method], `${method.toUpperCase()} ${p}`);
  }
  for (const [name, item] of Object.entries(document.webhooks ?? {})) {
    for (const method of METHODS) if (item[method]) add(item[method], 'webhook');
    if (!METHODS.some((m) => item[m])) throw new Error(`webhook ${name} has no operation`);
  }
  return out;
}

/** The rows of a page's "## Operations" section: | `operationId` | `METHOD /path` or `webhook` | what | */
export function namedIn(page: string, markdown: string): Named[] {
  const start = markdown.indexOf('\n## Operations\n');
  if (start < 0) return [];
  const section = markdown.slice(start + 1).split(/\n## /)[0];
  return [...section.matchAll(/^\| `([A-Za-z]+)` \| `([^`]+)` \|/gm)].map((m) => ({ page, operationId: m[1], where: m[2] }));
}

describe('the readers', () => {
  it('read a document\'s operations, webhooks included, and refuse one without an operationId', () => {
    const doc = { paths: { '/v1/x/{id}': { get: { operationId: 'getX' }, patch: { operationId: 'updateX' }, parameters: [] } }, webhooks: { xChanged: { post: { operationId: 'xChanged' } } } };
    expect([...operationsOf(doc)]).toEqual([['getX', 'GET /v1/x/{id}'], ['updateX', 'PATCH /v1/x/{id}'], ['xChanged', 'webhook']]);
    expect(() => operationsOf({ paths: { '/v1/y': { post: { summary: 'no id' } } } })).toThrow('POST /v1/y has no operationId');
  });

  it('read only the rows of the Operations section', () => {
    const md = ['# Page', '', '| `notThis` | `GET /v1/a` | elsewhere |', '', '## Operations', '', '| operation | | |', '|---|---|---|', '| `getX` | `GET /v1/x/{id}` | Get an x |', '| `xChanged` | `webhook` | An x changed |', '', '## After', '| `norThis` | `GET /v1/b` | |'].join('\n');
    expect(namedIn('p.md', md)).toEqual([
      { page: 'p.md', operationId: 'getX', where: 'GET /v1/x/{id}' },
      { page: 'p.md', operationId: 'xChanged', where: 'webhook' },
    ]);
  });
});

it('docs/contract names every operation of openapi.yaml and admin.yaml once, with its method and path, and no other', () => {
  const documented = new Map<string, string>();
  for (const file of ['openapi.yaml', 'admin.yaml']) {
    for (const [id, where] of operationsOf(parse(readFileSync(path.join(ROOT, 'generated', file), 'utf8')))) documented.set(id, where);
  }
  expect(documented.size).toBeGreaterThan(80);
  const named = readdirSync(CONTRACT)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .flatMap((f) => namedIn(f, readFileSync(path.join(CONTRACT, f), 'utf8')));
  const twice = named.filter((n, i) => named.findIndex((m) => m.operationId === n.operationId) !== i).map((n) => `${n.operationId} (${n.page})`);
  expect(twice).toEqual([]);
  const unnamed = [...documented.keys()].filter((id) => !named.some((n) => n.operationId === id));
  expect(unnamed).toEqual([]);
  const wrong = named.filter((n) => documented.get(n.operationId) !== n.where).map((n) => `${n.page}: ${n.operationId} as ${n.where}, the documents have ${documented.get(n.operationId) ?? 'no such operation'}`);
  expect(wrong).toEqual([]);
});
