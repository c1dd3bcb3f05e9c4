// Keeps the layout of src/ honest (docs/layout.md): imports only go down the wings' order below, and no
// file but the composition root's callers (server.ts, http/) imports the record of all services. It reads
// the import lines of every file under src/, as test/http/registry.test.ts reads the handlers.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The wings of src/, top first: a file may import from its own wing, its rank, or any rank below. A
 * folder is a wing; a file at the top of src/ is its own. Wings on one line sit at one rank.
 */
export const WING_ORDER: readonly (readonly string[])[] = [
  ['main.ts', 'server.ts'],
  ['http'],
  ['wiring.ts'],
  // read-only views of the ledger, the collections and the processor requests
  ['reports'],
  ['processor-requests'],
  ['collections'],
  ['sandbox'],
  ['refunds', 'disbursements'],
  ['people'],
  ['merchants'],
  ['ledger'],
  ['notifications'],
  ['cards'],
  ['processors'],
  ['api-records'],
  ['crypto'],
  ['workers'],
  ['base.ts'],
  // figures time the statements, and the pool reports to the figures: one rank
  ['telemetry', 'db'],
  ['domain'],
  ['config.ts', 'errors.ts', 'log.ts'],
];
/** The composition root, and who may import it: what starts the process, and http/ (ctx.services). */
const CONTAINER = 'wiring.ts';
const CONTAINER_USERS = new Set(['server.ts', 'http']);

const SRC = path.join(__dirname, '..', '..', 'src');
const rankOf = new Map(WING_ORDER.flatMap((wings, rank) => wings.map((w) => [w, rank] as const)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(e.name) ? [full] : [];
  });
}

const wingOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0];

/** The file an import names: as written (a .sql or .json), or with .ts / .tsx / index.ts added. */
function resolved(target: string): string {
  const found = [target, `${target}.ts`, `${target}.tsx`, path.join(target, 'index.ts')].find((f) => existsSync(f) && statSync(f).isFile());
  if (!found) throw new Error(`an import names no file: ${target}`);
  return found;
}

/** Every relative import (static, type-only, re-export, dynamic, require) of a file, resolved under src/. */
function importsOf(file: string): { line: string; target: string }[] {
  const text = readFileSync(file, 'utf8');
  const found: { line: string; target: string }[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\(\s*|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    const target = path.resolve(path.dirname(file), m[1]);
    // generated/ (the contract's types) sits outside src/ and below it all
    if (target.startsWith(SRC + path.sep)) found.push({ line: m[0], target: resolved(target) });
  }
  return found;
}

const files = sourceFiles(SRC);
const imports = files.flatMap((file) => importsOf(file).map((i) => ({ file: path.relative(SRC, file), from: wingOf(file), to: wingOf(i.target), ...i })));

it('knows every wing of src/', () => {
  const wings = [...new Set(files.map(wingOf))].sort();
  expect(wings.filter((w) => !rankOf.has(w))).toEqual([]);
});

it('reads the import lines it checks', () => {
  // a guard against a pattern that matches nothing: the order below would then pass vacuously
  expect(imports.length).toBeGreaterThan(300);
  expect(imports.some((i) => i.file === 'server.ts' && i.to === CONTAINER)).toBe(true);
});

it('imports only go down the wings\' order', () => {
  const upward = imports
    .filter((i) => i.from !== i.to && (rankOf.get(i.to) as number) < (rankOf.get(i.from) as number))
    .map((i) => `${i.file}: ${i.line} (${i.from} is below ${i.to})`);
  expect(upward).toEqual([]);
});

it('no file but server.ts and http/ imports the record of all services', () => {
  const users = imports.filter((i) => i.to === CONTAINER && !CONTAINER_USERS.has(i.from)).map((i) => `${i.file}: ${i.line}`);
  expect(users).toEqual([]);
});
