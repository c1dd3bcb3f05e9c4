// What a build of the server is made from, as one hash: `npm run build` writes it beside the build and
// `npm start` compares it, so a start after a change (or on a fresh clone) builds first and an unchanged
// tree costs one hash. Plain JavaScript on purpose: `npm start` runs it before any build tool is loaded,
// and a production install has none.
'use strict';
const { createHash } = require('node:crypto');
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const BUILD_DIR = path.join(ROOT, 'dist');
const STAMP = path.join(BUILD_DIR, '.source-hash');
const SKIP = new Set(['node_modules', 'dist']);

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return SKIP.has(e.name) ? [] : files(full);
    return [full];
  });
}

/** The server's sources, the dashboard's, the compiler settings and the locked dependency versions. */
function sourceHash() {
  const inputs = [
    ...files(path.join(ROOT, 'src')),
    ...files(path.join(ROOT, 'dashboard')),
    ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((f) => path.join(ROOT, f)),
  ].sort();
  const h = createHash('sha256');
  for (const f of inputs) h.update(path.relative(ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  return h.digest('hex');
}

/** Whether dist/ was built from the sources as they are; a release shipped without its sources runs the build it has. */
function isBuildCurrent() {
  if (!existsSync(path.join(ROOT, 'src'))) return existsSync(path.join(BUILD_DIR, 'main.js'));
  return existsSync(STAMP) && readFileSync(STAMP, 'utf8') === sourceHash();
}

module.exports = { ROOT, BUILD_DIR, STAMP, sourceHash, isBuildCurrent };
