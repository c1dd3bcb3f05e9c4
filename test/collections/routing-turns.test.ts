// Proves the routing turns a process hands out: every turn once and in order, a burst of requests served by a few reservations of growing blocks (not one 16-turn block after another, each woken burst waiting again), and a route used one request at a time keeping the first block's size.
import type { Database } from '../../src/db';
import { MAX_TURN_BLOCK, RoutingTurns, TURN_BLOCK } from '../../src/collections/routing-turns';
import { migrate } from '../../src/db/migrate';
import { freshDatabase } from '../helpers/db';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
  await migrate(database.db);
}, 180_000);
afterAll(async () => {
  await database?.close();
});

/** The route's cursor: every turn reserved so far, by every process. */
const cursor = async (businessId: number) =>
  Number((await database.db.oneOrNone<{ turn: bigint }>('SELECT turn FROM routing_cursors WHERE business_id = $1', [businessId]))?.turn ?? 0);

/** A process's turns, and how many reservations (statements on routing_cursors) it has made. */
function counted() {
  const turns = new RoutingTurns(database.db);
  const one = jest.spyOn(database.db, 'one');
  return { turns, reservations: () => one.mock.calls.filter(([sql]) => String(sql).includes('routing_cursors')).length };
}

afterEach(() => jest.restoreAllMocks());

it('serves a burst of 300 requests every turn once, in order, from a few growing blocks', async () => {
  const { turns, reservations } = counted();
  const taken = await Promise.all(Array.from({ length: 300 }, () => turns.take(7001, 'MOBILE_MONEY', 'UGX', 1)));
  expect([...taken].sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
  // blocks of 16 throughout would take at least 19 reservations; doubling reaches 300 in about seven
  expect(reservations()).toBeLessThanOrEqual(9);
  expect(reservations()).toBeGreaterThanOrEqual(3);
  // reserved turns not yet handed out stay with this process: at most the block in use and the next one
  expect((await cursor(7001)) - 300).toBeLessThan(2 * MAX_TURN_BLOCK);
});

it('keeps the first block size for a route used one request at a time', async () => {
  const { turns, reservations } = counted();
  for (let i = 1; i <= 100; i++) {
    expect(await turns.take(7002, 'MOBILE_MONEY', 'UGX', 1)).toBe(i);
    // each request then writes, as a request-to-pay does: the next block arrives while half of this one is left
    await database.db.one('SELECT $1::int AS i', [i]);
  }
  // one reservation per block of 16 (the next one reserved while half of this one is left)
  expect(reservations()).toBeLessThanOrEqual(Math.ceil(100 / TURN_BLOCK) + 1);
  expect((await cursor(7002)) - 100).toBeLessThanOrEqual(2 * TURN_BLOCK);
});

it('keeps routes apart, and a second process continues after the turns the first reserved', async () => {
  const a = new RoutingTurns(database.db);
  const b = new RoutingTurns(database.db);
  expect(await a.take(7003, 'MOBILE_MONEY', 'UGX', 1)).toBe(1);
  expect(await a.take(7003, 'CARD', 'UGX', 1)).toBe(1);
  expect(await b.take(7003, 'MOBILE_MONEY', 'UGX', 1)).toBe(TURN_BLOCK + 1);
});
