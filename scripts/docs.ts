// Builds the HTML API references served at /docs (merchant) and /docs/admin (operator).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'dist', 'docs');
mkdirSync(OUT, { recursive: true });
for (const [source, file, title] of [
  ['openapi/openapi.yaml', 'index.html', 'PayCollect merchant API'],
  ['openapi/admin.yaml', 'admin.html', 'PayCollect operator API'],
]) {
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'redocly'), ['build-docs', source, '-o', path.join(OUT, file), '--title', title], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
}
process.stdout.write(`API reference built in ${path.relative(ROOT, OUT)}/\n`);
