// Proves generated/ (bundled documents and TypeScript types) matches openapi/: a drift fails here.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

it('generated/ is up to date with openapi/', () => {
  const root = path.resolve(__dirname, '..');
  const out = execFileSync(path.join(root, 'node_modules', '.bin', 'tsx'), ['scripts/generate.ts', '--check'], { cwd: root, encoding: 'utf8' });
  expect(out).toMatch(/up to date/);
});
