// Proves migrations apply once, in order, and that processes starting together on one server apply each once;
// a test file's fresh database comes migrated (from a dump on embedded, a template on the real server), apart
// from any other.
import { migrate, migrationFiles } from '../../src/db/migrate';
import { openPostgres } from '../../src/db';
import type { Database } from '../../src/db';
import { createRealDatabase, freshDatabase, freshRealDatabase, SHARED_PG_URL } from '../helpers/db';
import { needsRealServer } from '../helpers/requires';

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

needsRealServer().it('applies each migration once when several processes start together (real PostgreSQL)', async () => {
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

/** Two fresh databases made at once: each holds every migration already (nothing left to apply), and a write to one is not in the other. */
async function expectMigratedAndApart(open: () => Promise<Database>): Promise<void> {
  const [a, b] = await Promise.all([open(), open()]);
  try {
    for (const d of [a, b]) expect((await d.db.any('SELECT version FROM schema_migrations ORDER BY version')).map((r) => r.version)).toEqual(migrationFiles());
    expect(await migrate(a.db)).toEqual([]);
    await a.db.none("INSERT INTO businesses (name, default_currency) VALUES ('Template Check', 'UGX')");
    expect((await a.db.one("SELECT count(*)::int AS n FROM businesses WHERE name = 'Template Check'")).n).toBe(1);
    expect((await b.db.one("SELECT count(*)::int AS n FROM businesses WHERE name = 'Template Check'")).n).toBe(0);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

it("a test file's fresh database holds every migration already, apart from any other (the embedded one loaded from a migrated dump)", () =>
  expectMigratedAndApart(() => freshDatabase()));

needsRealServer().it("a test file's fresh database on the real server holds every migration already, and two made at once are apart (copies of one migrated template)", () =>
  expectMigratedAndApart(() => freshRealDatabase(SHARED_PG_URL)));
