// Proves the choice of test files CI's real-server pass leaves to the plain pass (test/helpers/database-free.cjs): a file
// that reaches src/db or the tests' database helper by any import chain, or names a database address, uses a database;
// a type-only import does not count (it is gone at run time); only files that use none are chosen, and those that say, with
// their reason, that they run alike in every pass (a database of their own).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const { databaseFreeTestFiles } = require('../helpers/database-free.cjs') as { databaseFreeTestFiles(root: string): string[] };

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'paycollect-dbfree-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

it('chooses the files that reach no database, and those that say why they run alike', () => {
  const root = tree({
    'src/db/index.ts': 'export const db = 1;\n',
    'src/ledger/post.ts': "import { db } from '../db';\nexport const post = db;\n",
    'src/domain/money.ts': "import type { Db } from '../db';\nexport const cents = (x: number) => x;\n",
    'test/helpers/db.ts': 'export const fresh = 1;\n',
    'test/helpers/fixtures.ts': "export { fresh } from './db';\n",
    'test/helpers/plain.cjs': "module.exports = require('./words.cjs');\n",
    'test/helpers/words.cjs': 'module.exports = 1;\n',
    'test/a-chain.test.ts': "import { post } from '../src/ledger/post';\n",
    'test/b-type-only.test.ts': "import type { Db } from '../src/db';\nimport { cents } from '../src/domain/money';\n",
    // spelled in two parts here, so that this file does not itself name a database address
    'test/c-address.test.ts': `const url = process.env.${'TEST_DATABASE'}_URL;\n`,
    'test/d-pure.test.ts': "const plain = require('./helpers/plain.cjs');\n",
    'test/e-reexport.test.ts': "import { fresh } from './helpers/fixtures';\n",
    'test/deep/er/f-dynamic.test.ts': "it('x', async () => { await import('../../helpers/db'); });\n",
    'test/deep/g-pure.test.ts': "import { cents } from '../../src/domain/money';\n",
    'test/h-own-cluster.test.ts': "// Starts a cluster of its own.\n// Alike in every pass: its database is its own.\nimport { post } from '../src/ledger/post';\n",
    'test/i-says-nothing.test.ts': "// Alike in every pass:\nimport { post } from '../src/ledger/post';\n",
  });
  expect(databaseFreeTestFiles(root)).toEqual(['test/b-type-only.test.ts', 'test/d-pure.test.ts', 'test/deep/g-pure.test.ts', 'test/h-own-cluster.test.ts']);
});

it('leaves a service-starting file of this project to the database passes, and takes a pure one', () => {
  const chosen = databaseFreeTestFiles(path.resolve(__dirname, '..', '..'));
  expect(chosen).toContain('test/domain/money.test.ts');
  expect(chosen).toContain('test/layout/database-free.test.ts');
  expect(chosen).toContain('test/ha/failover.test.ts');
  for (const f of ['test/http/get-overview.test.ts', 'test/db/migrate.test.ts', 'test/refunds/create-refund.test.ts', 'test/mock.test.ts']) expect(chosen).not.toContain(f);
});
