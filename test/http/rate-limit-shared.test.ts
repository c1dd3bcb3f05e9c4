// Proves RATE_LIMIT_RPS is one budget per API token and second across processes: two services on one PostgreSQL database, whose requests together never pass the limit in a second, and take a new second's budget afresh.
import { REAL_PG_URL, SHARED_PG_URL } from '../helpers/db';
import { setupMerchant } from '../helpers/fixtures';
import type { TestService } from '../helpers/service';
import { startTwoServices } from '../helpers/two-services';
import type { TwoServices } from '../helpers/two-services';

// the real server: this run's, or in CI the machine's (CI always has one)
const serverUrl = REAL_PG_URL ?? (process.env.CI === 'true' ? SHARED_PG_URL : null);
const onServer = serverUrl ? describe : describe.skip;

const LIMIT = 20;
/** the budget is taken in shares of an eighth: a process may hold at most one share unused */
const SHARE = Math.ceil(LIMIT / 8);

onServer('RATE_LIMIT_RPS across two services on one database (needs a PostgreSQL server: TEST_DATABASE_URL)', () => {
  let two: TwoServices;
  let a: TestService;
  let b: TestService;
  let nowMs = Date.parse('2026-11-26T10:00:00.000Z');
  beforeAll(async () => {
    two = await startTwoServices(serverUrl!, { env: { RATE_LIMIT_RPS: String(LIMIT) }, now: () => new Date(nowMs) });
    ({ a, b } = two);
  }, 120_000);
  afterAll(() => two?.close());

  it('admits at most the limit per second from both processes together, and a new second afresh', async () => {
    const m = await setupMerchant(a);
    const res = await a.anon.post('/v1/auth/token', { api_key: m.apiKey, expires_in: 3600 }, { headers: { 'secret-key': m.apiSecret } });
    const clients = [a.merchant(res.body.data.token), b.merchant(res.body.data.token)];
    const second = async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 2 * LIMIT; i += 1) statuses.push((await clients[i % 2].get('/v1/data/wallets/UGX/balance')).status);
      expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      return statuses.filter((s) => s === 200).length;
    };
    const first = await second();
    expect(first).toBeLessThanOrEqual(LIMIT);
    expect(first).toBeGreaterThanOrEqual(LIMIT - SHARE);
    nowMs += 1000;
    const next = await second();
    expect(next).toBeLessThanOrEqual(LIMIT);
    expect(next).toBeGreaterThanOrEqual(LIMIT - SHARE);
  });
});
