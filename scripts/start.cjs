// `npm start`: runs the built server (dist/main.js) with plain node, building it first when the build is
// missing or older than the sources, so `npm ci && npm start` on a fresh clone just works. The build runs
// in a child process: the server itself never loads a build tool.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');
const { BUILD_DIR, ROOT, isBuildCurrent } = require('./build-stamp.cjs');

if (!isBuildCurrent()) {
  if (!existsSync(path.join(ROOT, 'node_modules', 'typescript'))) {
    process.stderr.write('paycollect: the build (dist/) is missing or older than the sources, and the build tools are not installed: run `npm ci && npm run build`, or copy a current dist/ here\n');
    process.exit(2);
  }
  process.stdout.write('building the server and the dashboard (npm run build)...\n');
  const built = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
require(path.join(BUILD_DIR, 'main.js'));
