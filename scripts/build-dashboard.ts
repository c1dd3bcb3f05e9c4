// Builds the dashboard (dashboard/ -> dashboard/dist) when its sources changed since the last build:
// `npm run build` runs it (so `npm start` does, when the build is stale) and the test run once before any
// test file (jest globalSetup), so a fresh clone serves /dashboard after `npm ci && npm start` and an
// unchanged tree costs a hash.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
export const DASHBOARD_DIR = path.join(ROOT, 'dashboard');
export const DASHBOARD_DIST = path.join(DASHBOARD_DIR, 'dist');
const STAMP = path.join(DASHBOARD_DIST, '.source-hash');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return full === DASHBOARD_DIST || e.name === 'node_modules' ? [] : files(full);
    return [full];
  });
}

/** A hash of everything the build reads: the dashboard's sources and the locked dependency versions. */
export function sourceHash(): string {
  const h = createHash('sha256');
  for (const f of [...files(DASHBOARD_DIR).sort(), path.join(ROOT, 'package-lock.json')]) {
    h.update(path.relative(ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  }
  return h.digest('hex');
}

export function isBuilt(): boolean {
  return existsSync(STAMP) && readFileSync(STAMP, 'utf8') === sourceHash();
}

export async function buildDashboard(): Promise<'built' | 'up to date'> {
  if (isBuilt()) return 'up to date';
  const { build } = await import('vite');
  await build({ configFile: path.join(DASHBOARD_DIR, 'vite.config.mjs') });
  writeFileSync(STAMP, sourceHash());
  return 'built';
}

if (require.main === module) {
  buildDashboard().then(
    (outcome) => process.stdout.write(`dashboard ${outcome} (dashboard/dist, served at /dashboard)\n`),
    (err: unknown) => {
      process.stderr.write(`dashboard build failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
