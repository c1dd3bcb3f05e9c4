// Proves the mutation check's list (npm run mutants) is not stale: every mutant changes a line that exists once in its file, differently, and names test files that exist.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MUTANTS } from '../scripts/mutants';

const ROOT = path.resolve(__dirname, '..');

it.each(MUTANTS.map((m) => [m.id, m] as const))('%s still applies', (_id, m) => {
  const source = readFileSync(path.join(ROOT, m.file), 'utf8');
  expect(source.split(m.find)).toHaveLength(2);
  expect(m.find).not.toContain('\n');
  expect(m.replace).not.toBe(m.find);
  for (const t of m.tests) expect(existsSync(path.join(ROOT, t))).toBe(true);
});

it('has unique ids and covers money, fees, FX, ledger, routing, state guards, auth, paging and filters', () => {
  expect(new Set(MUTANTS.map((m) => m.id)).size).toBe(MUTANTS.length);
  const areas = new Set(MUTANTS.map((m) => m.id.split('-')[0]));
  for (const area of ['money', 'fees', 'fx', 'ledger', 'routing', 'state', 'auth', 'paging', 'filter']) expect(areas).toContain(area);
});
