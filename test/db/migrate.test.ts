// Proves migrations apply once, in order, and that processes starting together on one server apply each once.
import { migrate, migrationFiles } from '../../src/db/migrate';
import { openPostgres } from '../../src/db';
import { createRealDatabase, freshDatabase, realServerReachable, SHARED_PG_URL } from '../helpers/db';

it('applies every migration once and records it', async () => {
  const database = await freshDatabase({ empty: true });
  try {
    const first = await migrate(database.db);
    expect(first).toEqual(migrationFiles());
    expect(await migrate(database.db)).toEqual([]);
    const rows = await database.db.any('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(migrationFiles());
  } finally {
    await database.close();
  }
});

const ci = process.env.CI === 'true';
it('applies each migration once when several processes start together (real PostgreSQL)', async () => {
  if (!(await realServerReachable())) {
    if (ci) throw new Error('the real PostgreSQL server must run in CI');
    return console.warn('skipped: no PostgreSQL server at ' + SHARED_PG_URL);
  }
  const created = await createRealDatabase(SHARED_PG_URL);
  const pools = await Promise.all([1, 2, 3].map(() => openPostgres(created.url, 2)));
  try {
    const results = await Promise.all(pools.map((p) => migrate(p.db)));
    expect(results.flat().sort()).toEqual(migrationFiles());
  } finally {
    await Promise.all(pools.map((p) => p.close()));
    await created.drop();
  }
});
