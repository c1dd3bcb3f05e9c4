// Which test files run alike whatever database a pass targets: those that use no database (neither they nor
// anything they import, transitively from test/ and src/, is src/db's or test/helpers/db.ts's or names a database
// address; type-only imports are left out, as the compiler leaves them out), and those that say on a line of
// their own `// Alike in every pass: <why>` (they start a database of their own). CI's pass on the real server
// leaves them to the plain pass (jest.config.js). Read from the import lines, as
// test/layout/imports.test.ts reads src/.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)|import\(\s*['"]([^'"]+)['"]\s*\)/gm;
/** A file that uses a database of its own making, whatever the pass targets, says so on a line of its own. */
const ALIKE = /^\/\/ Alike in every pass: \S/m;
const NAMES_A_DATABASE = /TEST_DATABASE_URL|REAL_PG_URL|SHARED_PG_URL|DATABASE_URL|PG_URL|postgres(ql)?:\/\//;

function resolveLocal(from, spec) {
  if (!spec.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), spec);
  for (const file of [base, `${base}.ts`, `${base}.js`, `${base}.cjs`, `${base}.mjs`, path.join(base, 'index.ts')]) {
    if (fs.existsSync(file) && fs.statSync(file).isFile()) return file;
  }
  return null;
}

function localImports(file, source) {
  const found = [];
  for (const m of source.matchAll(IMPORT)) {
    if (m[2]) continue; // import type / export type: gone at run time
    const spec = m[3] ?? m[4] ?? m[5];
    const target = resolveLocal(file, spec);
    if (target) found.push(target);
  }
  return found;
}

/** The test files under `root`/test (paths relative to `root`) that use no database. */
function databaseFreeTestFiles(root) {
  const databaseModules = new Set([path.join(root, 'src', 'db', 'index.ts'), path.join(root, 'test', 'helpers', 'db.ts')]);
  const uses = new Map();
  const usesDatabase = (file, visiting = new Set()) => {
    if (uses.has(file)) return uses.get(file);
    if (file === __filename) return false; // this file names database addresses only to look for them
    if (visiting.has(file)) return false; // a circle: decided where it was entered
    visiting.add(file);
    const source = fs.readFileSync(file, 'utf8');
    const result = databaseModules.has(file) || NAMES_A_DATABASE.test(source) || localImports(file, source).some((f) => usesDatabase(f, visiting));
    visiting.delete(file);
    uses.set(file, result);
    return result;
  };
  const files = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.test.ts')) files.push(full);
    }
  };
  walk(path.join(root, 'test'));
  return files.filter((f) => ALIKE.test(fs.readFileSync(f, 'utf8')) || !usesDatabase(f)).map((f) => path.relative(root, f)).sort();
}

module.exports = { databaseFreeTestFiles };
