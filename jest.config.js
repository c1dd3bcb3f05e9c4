// Jest runs TypeScript through swc. jose and json-schema-ref-parser ship ESM only, so they are
// transformed too; PGlite loads its WebAssembly with dynamic import(), hence --experimental-vm-modules
// in the npm test script, which also silences the ExperimentalWarning that flag prints in every worker (it is
// the only experimental feature the tests use on purpose).
const swc = ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }];
const { databaseFreeTestFiles } = require('./test/helpers/database-free.cjs');

// CI runs every file in its plain pass (embedded PostgreSQL) and again on the real server; a file that uses no
// database, or only one of its own (test/helpers/database-free.cjs), runs alike in both, so CI's real-server
// pass leaves it out.
const leftOut = process.env.CI === 'true' && process.env.TEST_DATABASE_URL ? databaseFreeTestFiles(__dirname) : [];
if (leftOut.length > 0) {
  console.log(`${leftOut.length} test files run alike on every database (none, or one of their own): the pass without TEST_DATABASE_URL runs them, this one leaves them out`);
}
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...leftOut.map((f) => `^${escape(`${__dirname}/${f}`)}$`)],
  globalSetup: '<rootDir>/test/helpers/dashboard-build.ts',
  transform: { '^.+\\.(ts|js|mjs)$': swc },
  // the ref-parser sits under openapi-backend since package.json overrides its version (see README)
  transformIgnorePatterns: ['/node_modules/(?!(jose|(openapi-backend/node_modules/)?@apidevtools/json-schema-ref-parser)/)'],
  // also the default of beforeAll/afterAll: most files start a whole service on a fresh database there,
  // which takes over a minute on a loaded two-core machine (the embedded database's migrations)
  testTimeout: 180_000,
  maxWorkers: 2,
};
