// jest globalSetup: builds the dashboard once before any test file when its sources changed, so the
// browser tests drive the current code (an unchanged tree costs one hash of dashboard/).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { isBuilt } from '../../scripts/build-dashboard';

export default function buildDashboardOnce(): void {
  if (isBuilt()) return;
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build-dashboard.ts'], { cwd: path.resolve(__dirname, '..', '..'), stdio: ['ignore', 'ignore', 'inherit'] });
}
