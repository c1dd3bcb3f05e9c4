// Proves each database statement is timed once, in the order its client runs them, named by its first keyword: an error raised
// after the answer is not counted twice, and a statement never answered (its connection broke) does not hold up the next ones.
import { dbEvents, operationOf } from '../../src/telemetry/db';
import type { Figures } from '../../src/telemetry/figures';

function recorder() {
  const seen: { operation: string; error: string | null }[] = [];
  const figures = { tracing: false, dbOperation: (operation: string, _s: number, error: string | null) => seen.push({ operation, error }) } as unknown as Figures;
  return { seen, dc: { figures } };
}

it('names statements by their first keyword, past leading comments', () => {
  expect(operationOf('select 1')).toBe('SELECT');
  expect(operationOf('  -- claims due rows\n  WITH due AS (SELECT 1) UPDATE t SET x = 1')).toBe('WITH');
  expect(operationOf('')).toBe('OTHER');
});

it('pairs answers with statements per client and counts each once', () => {
  const { seen, dc } = recorder();
  const client = {};
  dbEvents.query({ client, query: 'SELECT 1', dc });
  dbEvents.query({ client, query: { text: 'UPDATE t SET x = 1' }, dc });
  dbEvents.receive({ ctx: { client, query: 'SELECT 1', dc } });
  // one() finding no row: an error after the answer, for a statement already counted
  dbEvents.error(new Error('No data returned from the query.'), { client, query: 'SELECT 1', dc });
  dbEvents.error(Object.assign(new Error('deadlock'), { code: '40P01' }), { client, query: { text: 'UPDATE t SET x = 1' }, dc });
  expect(seen).toEqual([
    { operation: 'SELECT', error: null },
    { operation: 'UPDATE', error: '40P01' },
  ]);
});

it('drops a statement that was never answered instead of blocking the client', () => {
  const { seen, dc } = recorder();
  const client = {};
  dbEvents.query({ client, query: 'SELECT lost', dc });
  dbEvents.query({ client, query: 'INSERT INTO t VALUES (1)', dc });
  dbEvents.receive({ ctx: { client, query: 'INSERT INTO t VALUES (1)', dc } });
  dbEvents.query({ client, query: 'DELETE FROM t', dc });
  dbEvents.receive({ ctx: { client, query: 'DELETE FROM t', dc } });
  expect(seen.map((s) => s.operation)).toEqual(['INSERT', 'DELETE']);
});
