// Proves which lost connections leave a request's outcome unknown, statement by statement as pg-promise
// reports them: a write sent outside a transaction, or the COMMIT of a transaction that wrote (also after
// one of its savepoints was rolled back), may have committed; reads, a transaction lost before its COMMIT,
// and a single write refused before it ran (25006, or a connection already known broken) changed nothing;
// a text seen before is judged as it was, however many texts came between.
import { countingWrites, judgeOutcome, noteStatement, outcomeUnknown } from '../../src/db/outcome';

type Step = string | { tx: string };
const LOST = { message: 'Connection terminated unexpectedly' };

/** Sends the statements (plain: outside a transaction; { tx }: inside one), then fails with `failure` on the last. */
function judge(steps: Step[], failure: Record<string, unknown> = LOST): Promise<boolean> {
  return countingWrites(async () => {
    const client = {};
    let last = '';
    for (const step of steps) {
      last = typeof step === 'string' ? step : step.tx;
      noteStatement({ client, query: last, ctx: typeof step === 'string' ? {} : { inTransaction: true } });
    }
    const err = { ...failure, query: last };
    judgeOutcome(err);
    return outcomeUnknown(err);
  });
}

const INSERT = 'INSERT INTO collections (id) VALUES (1)';
const CTE_WRITE = 'WITH created AS (INSERT INTO collections (id) VALUES (1) RETURNING *) SELECT * FROM created';
const READ = 'SELECT * FROM collections WHERE id = 1';

describe('whether a lost connection leaves the outcome unknown', () => {
  it.each<[string, Step[], Record<string, unknown> | undefined, boolean]>([
    ['a read', [READ], undefined, false],
    ['a write outside a transaction', [READ, INSERT], undefined, true],
    ['a data-modifying CTE', [CTE_WRITE], undefined, true],
    ['a transaction lost before its COMMIT', [{ tx: 'BEGIN' }, { tx: INSERT }, { tx: READ }], undefined, false],
    ['the COMMIT of a transaction that wrote', [{ tx: 'BEGIN' }, { tx: INSERT }, { tx: 'COMMIT' }], undefined, true],
    ['the COMMIT of a transaction that only read', [{ tx: 'BEGIN' }, { tx: READ }, { tx: 'COMMIT' }], undefined, false],
    [
      'the COMMIT of a transaction that wrote, after a savepoint of it was rolled back',
      [{ tx: 'BEGIN' }, { tx: INSERT }, { tx: 'SAVEPOINT sp_1_1' }, { tx: 'ROLLBACK TO SAVEPOINT sp_1_1' }, { tx: 'COMMIT' }],
      undefined,
      true,
    ],
    ['a read-only COMMIT after a rolled-back transaction that wrote', [{ tx: 'BEGIN' }, { tx: INSERT }, { tx: 'ROLLBACK' }, { tx: 'BEGIN' }, { tx: 'COMMIT' }], undefined, false],
    ['the only write, refused by a read-only server', [READ, INSERT], { code: '25006', message: 'cannot execute INSERT in a read-only transaction' }, false],
    ['the only write, on a connection known broken before sending', [INSERT], { message: 'Client has encountered a connection error and is not queryable' }, false],
    ['a write refused by a read-only server after another write was sent', [INSERT, CTE_WRITE], { code: '25006', message: 'read-only' }, true],
  ])('%s', async (_name, steps, failure, unknown) => {
    expect(await judge(steps, failure)).toBe(unknown);
  });

  it('is never unknown outside a request (a worker decides for itself)', () => {
    const err = { ...LOST, query: INSERT };
    noteStatement({ client: {}, query: INSERT, ctx: {} });
    judgeOutcome(err);
    expect(outcomeUnknown(err)).toBe(false);
  });

  it('judges a statement the same when its text comes again, and after many texts of their own values', async () => {
    for (let round = 0; round < 2; round += 1) {
      expect(await judge([READ, CTE_WRITE])).toBe(true);
      expect(await judge([READ])).toBe(false);
    }
    // more distinct texts than are remembered: each still judged by what it does
    for (let i = 0; i < 1200; i += 1) {
      expect(await judge([`SELECT ${i} AS n`])).toBe(false);
      expect(await judge([`INSERT INTO collections (id) VALUES (${i})`])).toBe(true);
    }
    expect(await judge([READ, CTE_WRITE])).toBe(true);
    expect(await judge([READ])).toBe(false);
  });
});
