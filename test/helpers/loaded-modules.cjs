// Preloaded with `node --require` into a service under test: writes, as the process exits, every file it loaded
// (CommonJS through require.cache, ES modules through a resolve hook) and every module it tried and failed to
// find, to the JSON file named by LOADED_MODULES_OUT. test/production-install.test.ts reads it.
'use strict';
const fs = require('node:fs');
const Module = require('node:module');
const { pathToFileURL } = require('node:url');

const out = process.env.LOADED_MODULES_OUT;
if (out) {
  const esmList = out + '.esm';
  fs.writeFileSync(esmList, '');
  Module.register(pathToFileURL(require.resolve('./loaded-modules-loader.mjs')), { data: { out: esmList } });
  const missing = new Set();
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    try {
      return resolve.call(this, request, ...rest);
    } catch (err) {
      missing.add(request);
      throw err;
    }
  };
  process.on('exit', () => {
    const esm = fs.readFileSync(esmList, 'utf8').split('\n').filter((u) => u.startsWith('file:')).map((u) => new URL(u).pathname);
    fs.writeFileSync(out, JSON.stringify({ loaded: [...new Set([...Object.keys(require.cache), ...esm])], missing: [...missing] }));
  });
}
