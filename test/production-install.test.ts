// Proves a production install (npm ci --omit=dev, the library patches applied with patch(1), plus the build that npm run build made) starts with `npm start`'s launcher,
// serves the API, the docs and the dashboard and stops on SIGTERM with no dev tool present, and that the running server loaded
// only production dependencies (every file it loaded is listed by a preloaded hook; the hook's check is shown to catch a dev one).
// Alike in every pass: the installed server runs on its own embedded database (DATABASE_URL empty).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isBuildCurrent } from '../scripts/build-stamp.cjs';
import { freePort } from './helpers/notify-fixtures';

const ROOT = path.resolve(__dirname, '..');
const HOOK = path.join(__dirname, 'helpers', 'loaded-modules.cjs');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const DEV = Object.keys(pkg.devDependencies);
/** docs/operations.md's step after the production install: the library patches of patches/, without patch-package (a dev tool) */
const APPLY_PATCHES = 'for p in patches/*.patch; do patch -p1 --forward --silent -i "$p" || exit 1; done';

/** The package a loaded file belongs to (the last node_modules/ in its path), or null for the project's own files. */
function packageOf(file: string): string | null {
  const at = file.lastIndexOf('/node_modules/');
  if (at < 0) return null;
  const [first, second] = file.slice(at + '/node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

interface Loaded {
  loaded: string[];
  missing: string[];
}

/** What a hook report says was loaded that a production server must not load: dev dependencies, or anything from outside `root`. */
function offences(report: Loaded, root: string): string[] {
  const found: string[] = [];
  for (const file of report.loaded.filter((f) => !f.startsWith(HOOK.replace(/\.cjs$/, '')))) {
    const name = packageOf(file);
    if (name && DEV.includes(name)) found.push(`loaded dev dependency ${name}`);
    if (path.isAbsolute(file) && !file.startsWith(root + path.sep)) found.push(`loaded from outside the install: ${file}`);
  }
  for (const request of report.missing) if (DEV.some((d) => request === d || request.startsWith(d + '/'))) found.push(`tried to load dev dependency ${request}`);
  return found;
}

let copy = '';
let child: ChildProcess | null = null;
afterAll(() => {
  child?.kill('SIGKILL');
  if (copy) rmSync(copy, { recursive: true, force: true });
});

it('the check catches a dev dependency being loaded', () => {
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'paycollect-hook-')), 'loaded.json');
  spawnSync(process.execPath, ['--require', HOOK, '-e', "require('typescript'); try { require('vite/not-there') } catch {}"], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', LOADED_MODULES_OUT: out },
  });
  const report = JSON.parse(readFileSync(out, 'utf8')) as Loaded;
  expect(offences(report, ROOT)).toEqual(['loaded dev dependency typescript', 'tried to load dev dependency vite/not-there']);
});

it('runs from the build with production dependencies only', async () => {
  // the build, made where the dev tools are (as a release pipeline would), only when the sources changed since the last
  if (!isBuildCurrent()) execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'ignore' });
  copy = mkdtempSync(path.join(os.tmpdir(), 'paycollect-prod-'));
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/start.cjs', 'scripts/build-stamp.cjs']) cpSync(path.join(ROOT, f), path.join(copy, f));
  for (const d of ['dist', 'src', 'openapi', 'generated', 'dashboard', 'patches']) {
    cpSync(path.join(ROOT, d), path.join(copy, d), { recursive: true, filter: (p) => !p.includes(`${path.sep}node_modules`) });
  }
  // from npm's cache when it holds every package (CI ran npm ci before), else as an ordinary install would
  const install = (mode: string) =>
    spawnSync('npm', ['ci', '--omit=dev', mode, '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: copy, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  let installed = install('--offline');
  if (installed.status !== 0) installed = install('--prefer-offline');
  expect(installed.status).toBe(0);
  // the install skips scripts, so the library patches are applied as docs/operations.md says, with patch(1)
  const patched = spawnSync('sh', ['-c', APPLY_PATCHES], { cwd: copy, encoding: 'utf8' });
  expect({ status: patched.status, stderr: patched.stderr }).toEqual({ status: 0, stderr: '' });
  for (const tool of ['typescript', 'tsx', 'vite', 'react', 'jest']) expect([tool, existsSync(path.join(copy, 'node_modules', tool))]).toEqual([tool, false]);

  const port = await freePort();
  const out = path.join(copy, 'loaded.json');
  let output = '';
  child = spawn(process.execPath, ['--require', HOOK, 'scripts/start.cjs'], {
    cwd: copy,
    env: { ...process.env, NODE_OPTIONS: '', PORT: String(port), DATA_DIR: path.join(copy, 'data'), DATABASE_URL: '', SEED_DEMO: 'true', LOADED_MODULES_OUT: out },
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    const ready = await fetch(`${base}/readyz`).then((r) => r.status, () => 0);
    if (ready === 200) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the built server did not become ready:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // as on a fresh clone: the demo merchant's credentials are printed, and they work
  const apiKey = /api_key:\s+(\S+)/.exec(output)?.[1];
  const apiSecret = /api_secret:\s+(\S+)/.exec(output)?.[1];
  expect(apiKey && apiSecret).toBeTruthy();
  // and what its sandbox MIDs do: they pay out too, so the first hour can refund and pay out
  expect(output).toContain('Its sandbox MIDs collect by MOBILE_MONEY, CARD, BANK, CRYPTO and pay out by MOBILE_MONEY and BANK in UGX, USD, KES, EUR');
  const json = { 'content-type': 'application/json', accept: 'application/json' };
  const token = await fetch(`${base}/v1/auth/token`, { method: 'POST', headers: { ...json, 'secret-key': apiSecret! }, body: JSON.stringify({ api_key: apiKey }) });
  expect(token.status).toBe(200);
  const jwt = ((await token.json()) as { data: { token: string } }).data.token;
  const paid = await fetch(`${base}/v1/collections/request-to-pay`, {
    method: 'POST',
    headers: { ...json, authorization: jwt },
    body: JSON.stringify({ currency: 'UGX', amount: 1000, payment_method: 'MOBILE_MONEY', account_number: '256777000001', merchant_reference: `PROD-${Date.now()}`, narration: 'Production install check' }),
  });
  expect(paid.status).toBe(200);
  expect((await fetch(`${base}/docs`)).status).toBe(200);
  // Redoc's script, copied into the build: served without @redocly/cli
  expect((await fetch(`${base}/docs/redoc.standalone.js`)).status).toBe(200);
  const dashboard = await fetch(`${base}/dashboard`);
  expect([dashboard.status, (await dashboard.text()).includes('<div id="root">')]).toEqual([200, true]);

  const code = await new Promise<number | null>((resolve) => {
    child!.once('exit', (c) => resolve(c));
    child!.kill('SIGTERM');
  });
  child = null;
  expect(code).toBe(0);
  const report = JSON.parse(readFileSync(out, 'utf8')) as Loaded;
  // the server did load its production dependencies from the install (the report is not empty)
  const packages = new Set(report.loaded.map(packageOf).filter((n) => n !== null));
  for (const dep of ['express', 'pg-promise', 'openapi-backend', 'jose', '@electric-sql/pglite', '@opentelemetry/api']) expect([dep, packages.has(dep)]).toEqual([dep, true]);
  expect(offences(report, copy)).toEqual([]);
  // the router it ran is the patched one: the server did not warn that it runs without the patch
  expect(output).not.toContain('without its patch');
}, 240_000);

it('documents the same patch step as this test runs', () => {
  expect(readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8')).toContain(APPLY_PATCHES);
});
