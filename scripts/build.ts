// `npm run build`: the server as plain JavaScript in dist/ (tsc with tsconfig.build.json, plus the SQL
// files it reads at run time) and the dashboard's static files in dashboard/dist. `npm start` runs
// dist/main.js with plain node; this needs the dev tools (typescript, vite), the result does not.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BUILT_REDOC, redocBundle } from '../src/http/static';
import { buildDashboard } from './build-dashboard';
import { BUILD_DIR, ROOT, STAMP, sourceHash } from './build-stamp.cjs';

/** Files under src/ that are not TypeScript (migrations, named statements), copied beside the JavaScript. */
function copyAssets(dir: string): number {
  let copied = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) copied += copyAssets(full);
    else if (!e.name.endsWith('.ts')) {
      cpSync(full, path.join(BUILD_DIR, path.relative(path.join(ROOT, 'src'), full)));
      copied++;
    }
  }
  return copied;
}

async function build(): Promise<void> {
  const hash = sourceHash();
  rmSync(BUILD_DIR, { recursive: true, force: true });
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  const assets = copyAssets(path.join(ROOT, 'src'));
  // Redoc's script for /docs, from @redocly/cli (a dev tool), so that a production install serves it too
  const redoc = redocBundle();
  if (redoc) cpSync(redoc, BUILT_REDOC);
  const dashboard = await buildDashboard();
  writeFileSync(STAMP, hash);
  process.stdout.write(`server built (dist/, ${assets} SQL files${redoc ? ', Redoc' : ''}); dashboard ${dashboard}\n`);
}

build().catch((err: unknown) => {
  process.stderr.write(`build failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
