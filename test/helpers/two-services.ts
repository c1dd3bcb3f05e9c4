// Two services on one new database of a real PostgreSQL server: two processes as far as PostgreSQL can tell.
import { randomBytes } from 'node:crypto';
import { openPostgres } from '../../src/db';
import type { Database } from '../../src/db';
import { createRealDatabase } from './db';
import { startTestService } from './service';
import type { TestService } from './service';

export interface TwoServices {
  a: TestService;
  b: TestService;
  close(): Promise<void>;
}

export async function startTwoServices(serverUrl: string, o: { env?: Record<string, string>; now?: () => Date } = {}): Promise<TwoServices> {
  const created = await createRealDatabase(serverUrl);
  const env = { DATABASE_URL: created.url, MASTER_KEY: randomBytes(32).toString('base64'), JWT_SECRET: randomBytes(32).toString('base64url'), ...o.env };
  const pools: Database[] = [await openPostgres(created.url), await openPostgres(created.url)];
  const a = await startTestService({ env, database: pools[0], workers: false, now: o.now });
  const b = await startTestService({ env, database: pools[1], workers: false, now: o.now });
  return {
    a,
    b,
    close: async () => {
      await a.close();
      await b.close();
      for (const p of pools) await p.close();
      await created.drop();
    },
  };
}
