// Proves the embedded database keeps PostgreSQL's shared buffers small (they live in the service's own
// memory) and still keeps what it is given across a reopen of the same directory.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openEmbedded } from '../../src/db';

// An embedded initdb takes seconds on a quiet machine and far longer on a loaded one: the budget is generous.
it('runs with 16 MB of shared buffers and keeps its data across a reopen', async () => {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'paycollect-embedded-')), 'pg');
  const first = await openEmbedded(dir);
  try {
    expect(await first.db.one('SHOW shared_buffers')).toEqual({ shared_buffers: '16MB' });
    await first.db.none('CREATE TABLE kept (n int)');
    await first.db.none('INSERT INTO kept VALUES (7)');
  } finally {
    await first.close();
  }
  const again = await openEmbedded(dir);
  try {
    expect(await again.db.one('SHOW shared_buffers')).toEqual({ shared_buffers: '16MB' });
    expect(await again.db.one('SELECT n FROM kept')).toEqual({ n: 7 });
  } finally {
    await again.close();
  }
}, 180_000);
