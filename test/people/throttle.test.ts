// Proves the database throttle's windows: counts per bucket in one-minute windows, RATE_LIMITED with
// Retry-After past the limit, and the windows before the previous one deleted by the first count of a new
// window, so buckets counted on every attempt (a payment link's page, per link and per client) do not pile up.
import { AppError } from '../../src/errors';
import type { Database } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { FailureThrottle } from '../../src/merchants/failure-throttle';
import { freshDatabase } from '../helpers/db';

let database: Database;
let at = new Date('2030-06-01T12:00:10Z');
beforeAll(async () => {
  database = await freshDatabase();
  await migrate(database.db);
}, 180_000);
afterAll(() => database.close());

const rows = () => database.db.any<{ bucket: string; window_start: Date; failures: number }>('SELECT bucket, window_start, failures FROM auth_failures ORDER BY window_start, bucket');

it('counts per bucket and window, refuses past the limit with Retry-After, and deletes the windows before the previous one', async () => {
  const throttle = new FailureThrottle(() => database.db, () => at, 2);
  await throttle.count(['link:a', 'client:1']);
  await throttle.count(['link:a']);
  const over = await throttle.count(['link:a']).catch((e: unknown) => e);
  expect(over).toBeInstanceOf(AppError);
  expect((over as AppError).code).toBe('RATE_LIMITED');
  expect((over as AppError).headers).toEqual({ 'Retry-After': '50' });
  at = new Date('2030-06-01T12:01:05Z');
  await throttle.count(['link:b']);
  // the previous window is kept (a count at its end still matters), the one before goes at the next minute's first count
  expect((await rows()).map((r) => [r.bucket, r.window_start.toISOString(), r.failures])).toEqual([
    ['client:1', '2030-06-01T12:00:00.000Z', 1],
    ['link:a', '2030-06-01T12:00:00.000Z', 3],
    ['link:b', '2030-06-01T12:01:00.000Z', 1],
  ]);
  at = new Date('2030-06-01T12:02:01Z');
  await throttle.count(['link:b']);
  expect((await rows()).map((r) => [r.bucket, r.window_start.toISOString(), r.failures])).toEqual([
    ['link:b', '2030-06-01T12:01:00.000Z', 1],
    ['link:b', '2030-06-01T12:02:00.000Z', 1],
  ]);
});
