// Proves a fresh client from each of three generators (openapi-typescript + openapi-fetch, @hey-api/openapi-ts,
// oazapfts), with default options, type-checks the merchant flow under tsc --strict without casts or `any`,
// and so do the code samples of the SDK's README against its build; a CARD request without its fields must not
// compile in any.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = path.join(ROOT, 'node_modules', '.bin');
const SPEC = path.join(ROOT, 'generated', 'openapi.yaml');
const TIMEOUT_MS = 180_000;

const GENERATORS: Record<string, (out: string) => [string, string[]]> = {
  'openapi-fetch': (out) => ['openapi-typescript', [SPEC, '-o', path.join(out, 'schema.d.ts')]],
  'hey-api': (out) => ['openapi-ts', ['-i', SPEC, '-o', out]],
  oazapfts: (out) => ['oazapfts', [SPEC, path.join(out, 'api.ts')]],
};

const scratchDirs: string[] = [];
// rmSync removes the node_modules link itself, never what it points to
afterAll(() => scratchDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A scratch project that sees the repository's node_modules, as a merchant's project sees its own. */
function scratch(paths: Record<string, string[]> = {}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paycollect-generator-'));
  scratchDirs.push(dir);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const compilerOptions = {
    target: 'ES2022', lib: ['ES2022', 'DOM'], module: 'nodenext', moduleResolution: 'nodenext', strict: true,
    noEmit: true, skipLibCheck: true, types: ['node'], paths,
  };
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts', '*.mts', 'generated'] }));
  return dir;
}

function typeCheck(dir: string): string {
  try {
    execFileSync(path.join(BIN, 'tsc'), ['-p', dir], { encoding: 'utf8', stdio: 'pipe' });
    return '';
  } catch (e) {
    return String((e as { stdout?: string }).stdout) || String(e);
  }
}

/** Casts, `any` and suppressed errors would type-check anything; only @ts-expect-error (a check) may appear. */
function workarounds(source: string): string[] {
  const code = source.replace(/\/\/(?! @ts-expect-error).*$/gm, '');
  return code.match(/(?<!\*\s*)\bas\s+(?!const\b)\w+|\bany\b|@ts-ignore|@ts-nocheck/g) ?? [];
}

it.each(Object.keys(GENERATORS))('a fresh %s client type-checks the merchant flow', (name) => {
  const dir = scratch();
  const out = path.join(dir, 'generated');
  mkdirSync(out);
  const [bin, args] = GENERATORS[name](out);
  execFileSync(path.join(BIN, bin), args, { cwd: dir, stdio: 'pipe', env: { ...process.env, NO_COLOR: '1' } });
  for (const [file, target] of [[`${name}.ts`, 'flow.ts'], ['orders.ts', 'orders.ts']]) {
    const source = path.join(__dirname, 'generators', file);
    expect(workarounds(readFileSync(source, 'utf8'))).toEqual([]);
    copyFileSync(source, path.join(dir, target));
  }
  expect(typeCheck(dir)).toBe('');
}, TIMEOUT_MS);

it('type-checks every TypeScript sample of the SDK README against the built package', () => {
  // built inside the scratch project, whose node_modules give the build its openapi-fetch
  const dir = scratch({ '@paycollect/sdk': ['./sdk-build/index.d.ts'] });
  execFileSync(path.join(BIN, 'tsc'), ['-p', path.join(ROOT, 'sdk'), '--outDir', path.join(dir, 'sdk-build')], { stdio: 'pipe' });
  const samples = [...readFileSync(path.join(ROOT, 'sdk', 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  expect(samples.length).toBeGreaterThanOrEqual(2);
  // each sample is an ES module of its own, as its top-level await needs
  samples.forEach((code, i) => writeFileSync(path.join(dir, `sample${i}.mts`), code));
  expect(typeCheck(dir)).toBe('');
}, TIMEOUT_MS);
