// The bench counts the CPU of the PostgreSQL backends serving its own database only: the sessions of a pool on that database
// are listed, those of another database on the same server (another engineer's tests, say) and the asking session are not.
import { pgp } from '../../src/db';
import { databaseBackends } from '../../scripts/bench/lib';
import { createRealDatabase, SHARED_PG_URL } from '../helpers/db';
import { needsRealServer } from '../helpers/requires';

needsRealServer().it('lists the backends of the measured database and no other', async () => {
  const measured = await createRealDatabase(SHARED_PG_URL);
  const other = await createRealDatabase(SHARED_PG_URL);
  const pool = pgp({ connectionString: measured.url, max: 3 });
  const elsewhere = pgp({ connectionString: other.url, max: 1 });
  try {
    // three sessions held open at once on the measured database, one on the other
    const pids = await Promise.all([0, 1, 2].map(() => pool.tx((t) => t.one<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.2)'))));
    const { pid: otherPid } = await elsewhere.one<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const listed = await databaseBackends(measured.url);
    expect(new Set(listed)).toEqual(new Set(pids.map((p) => p.pid)));
    expect(listed).not.toContain(otherPid);
  } finally {
    await pool.$pool.end();
    await elsewhere.$pool.end();
    await measured.drop();
    await other.drop();
  }
});
