// Proves the process's copy of the configuration is never served stale: the version poll alone (no notice) drops a copy whose version moved, and a load that read an older version never replaces a newer copy.
import type { Db } from '../../src/db';
import { createLogger } from '../../src/log';
import { ConfigCache } from '../../src/merchants/config-cache';
import type { TokenState } from '../../src/merchants/config-cache';
import { eventually } from '../helpers/notify-fixtures';

/**
 * A database that answers what the cache asks: the version poll (a prepared statement named config-version)
 * and loads (merchants/request-config.sql). `hold` keeps the next load's answer until released.
 */
class FakeDb {
  version = 1n;
  generation = 1;
  loads = 0;
  private gate: Promise<void> | null = null;

  /** Holds back the next load's answer (read now) until the returned function is called. */
  hold(): () => void {
    let release!: () => void;
    this.gate = new Promise<void>((r) => (release = r));
    return () => release();
  }

  async one(q: unknown): Promise<unknown> {
    if ((q as { name?: string }).name === 'config-version') return { version: this.version };
    this.loads += 1;
    const answer = { version: this.version, token: this.token(), mids: null, pricing: null };
    const gate = this.gate;
    this.gate = null;
    if (gate) await gate;
    return answer;
  }

  private token(): TokenState {
    return { id: 1, business_id: 1, generation: this.generation, business_verified: true, recipients: { webhook_url: null } as unknown as TokenState['recipients'] };
  }
}

const quiet = createLogger(() => undefined, 'error');
let fake: FakeDb;
let cache: ConfigCache;

beforeEach(() => {
  fake = new FakeDb();
  cache = new ConfigCache(fake as unknown as Db, quiet);
});

afterEach(() => cache.stop());

it('the version poll alone drops a copy whose version moved (a notice lost with its session)', async () => {
  cache.live(false, 10);
  expect((await cache.token(1)).token?.generation).toBe(1);
  expect((await cache.token(1)).version).toBe(1n);
  expect(fake.loads).toBe(1); // kept
  // another process regenerates the token; its notice never arrives here
  fake.generation = 2;
  fake.version = 2n;
  await eventually(async () => (await cache.token(1)).token?.generation === 2, 5000, 'the poll dropping the stale copy');
  expect((await cache.token(1)).version).toBe(2n);
});

it('a load that read an older version never replaces a newer copy', async () => {
  cache.live(false, 3_600_000);
  const release = fake.hold();
  const older = cache.token(1); // reads version 1, its answer held back
  fake.version = 2n;
  fake.generation = 2;
  expect(await cache.token(1)).toMatchObject({ version: 2n, token: { generation: 2 } }); // kept at version 2
  release();
  expect(await older).toMatchObject({ version: 1n, token: { generation: 1 } }); // answered as read, not kept
  const loads = fake.loads;
  expect(await cache.token(1)).toMatchObject({ version: 2n, token: { generation: 2 } });
  expect(fake.loads).toBe(loads); // still served from the newer copy
});
