// Keeps the layout of src/ honest (docs/layout.md): imports only go down the wings' order below, and no
// file but the composition root's callers (server.ts, http/) imports the record of all services. It reads
// the import lines of every file under src/, as test/http/registry.test.ts reads the handlers, and fails on
// an import circle: files that import one another, directly or round a longer loop.
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
  // payment links make their collections through request-to-pay
  ['payment-links'],
  // reconciliation moves a collection (a reversal) through its one state change and writes its CSV as the reports do
  ['reconciliation'],
  // read-only views of the ledger, the collections and the processor requests
  ['reports'],
  ['processor-requests'],
  ['collections'],
  ['sandbox'],
  ['refunds', 'disbursements', 'disputes'],
  ['people'],
  ['merchants'],
  ['rates'],
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
  ['config.ts', 'errors.ts', 'heap.ts', 'log.ts'],
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
function importsOf(file: string): { line: string; target: string; typeOnly: boolean }[] {
  const text = readFileSync(file, 'utf8');
  const found: { line: string; target: string; typeOnly: boolean }[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\(\s*|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    const target = path.resolve(path.dirname(file), m[1]);
    // generated/ (the contract's types) sits outside src/ and below it all
    if (target.startsWith(SRC + path.sep)) found.push({ line: m[0], target: resolved(target), typeOnly: m[0].startsWith('from') && typeOnly(text, m.index) });
  }
  return found;
}

/**
 * Whether the import or export statement whose `from '...'` stands at `at` brings in types only: `import type`,
 * `export type`, or braces whose every name is marked `type`. TypeScript erases such a statement, so it
 * is not there when the module loads.
 */
function typeOnly(text: string, at: number): boolean {
  const start = Math.max(text.lastIndexOf('\nimport', at), text.lastIndexOf('\nexport', at)) + 1;
  const statement = text.slice(start, at);
  if (statement.includes(';')) return false;
  if (/^(?:import|export)\s+type\b/.test(statement)) return true;
  const names = /^(?:import|export)\s*\{([^}]*)\}\s*$/.exec(statement)?.[1].split(',').map((n) => n.trim()).filter(Boolean);
  return !!names?.length && names.every((n) => n.startsWith('type '));
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

/**
 * The module graph of src/ and its circles. Type-only imports are left out: TypeScript erases them, so
 * they cannot make a module load before what it needs (the half-initialised import, read as undefined, an
 * import circle causes at runtime). A circle of types only is drawn as one here: it orders nothing.
 */
function circles(): string[][] {
  const graph = new Map<string, string[]>(files.map((f) => [path.relative(SRC, f), []]));
  for (const i of imports) if (!i.typeOnly && /\.tsx?$/.test(i.target)) graph.get(i.file)!.push(path.relative(SRC, i.target));
  // Tarjan's strongly connected components: each of more than one file (or a file importing itself) is a circle
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = stack.splice(stack.indexOf(v));
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

it('no import circle among the files of src/', () => {
  expect(imports.some((i) => i.typeOnly) && imports.some((i) => !i.typeOnly)).toBe(true);
  // each circle as its files, each with what it imports of the others
  const listed = circles().map((circle) =>
    circle
      .map((f) => {
        const within = imports.filter((i) => i.file === f && !i.typeOnly && circle.includes(path.relative(SRC, i.target)));
        return `${f} imports ${within.map((i) => path.relative(SRC, i.target)).join(', ')}`;
      })
      .join('; '),
  );
  expect(listed).toEqual([]);
});
