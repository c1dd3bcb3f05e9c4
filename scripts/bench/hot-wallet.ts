// Completions per second posted to one hot wallet: N PENDING collections of one business and currency
// completed by `concurrency` callers at once through the service's own applyOutcome (the code a provider
// report, a hosted page or `simulate` runs), on the service's database and pool, with no HTTP in between.
// The run is only counted when the wallet moved by exactly the sum of the collections' credits and each
// collection has exactly one credit journal.
import type { Config } from '../../src/config';
import { openDatabase } from '../../src/db';
import { createLogger } from '../../src/log';
import { buildServices } from '../../src/wiring';
import type { Services } from '../../src/wiring';
import type { Principal } from '../../src/merchants/access-tokens';
import { cpuMeter, round1 } from './lib';

export interface HotWalletFigures {
  completions: number;
  concurrency: number;
  per_s: number;
  seconds: number;
  exact_balance: boolean;
  expected_credit_minor: string;
  wallet_moved_minor: string;
  credit_journals: number;
  /** CPU per completion: this process (the service code and, when embedded, the database) and the PostgreSQL backends of its database */
  cpu_ms_per_completion: { process_ms: number; postgres_ms: number | null };
}

/**
 * `count` PENDING collections of the business in the currency, oldest first: those there are, topped up
 * through the service's own request-to-pay.
 */
export async function pendingCollections(s: Services, principal: Principal, currency: string, count: number, body: (n: number) => Record<string, unknown>) {
  const find = () =>
    s.db.any<{ id: bigint; gateway_reference: string }>(
      `SELECT id, gateway_reference FROM collections WHERE business_id = $1 AND account_currency = $2 AND status = 'PENDING' ORDER BY id LIMIT $3`,
      [principal.businessId, currency, count],
    );
  const found = await find();
  const missing = Array.from({ length: count - found.length }, (_, i) => i + 1);
  for (let i = 0; i < missing.length; i += 20) {
    await Promise.all(missing.slice(i, i + 20).map((n) => s.collections.requestToPay(principal, body(n) as never)));
  }
  return missing.length === 0 ? found : find();
}

export async function hotWallet(o: { config: Config; principal: Principal; currency: string; completions: number; concurrency: number; body: (n: number) => Record<string, unknown> }): Promise<HotWalletFigures> {
  const database = await openDatabase(o.config.databaseUrl, o.config.dataDir, o.config.databasePoolMax);
  try {
    const quiet = createLogger(() => undefined, 'error');
    const s = buildServices({ config: o.config, db: database.db, log: quiet, now: () => new Date() });
    const ids = (await pendingCollections(s, o.principal, o.currency, o.completions, o.body)).map((c) => c.id);
    return await completeAll(s, o.principal.businessId, o.currency, ids, o.concurrency, database.kind === 'postgres' ? o.config.databaseUrl : null);
  } finally {
    await database.close();
  }
}

/**
 * Completes the PENDING collections `ids` (all of one business and wallet currency) with `concurrency`
 * callers at once through applyOutcome, and checks the wallet moved by exactly their credits.
 */
export async function completeAll(s: Services, businessId: number, currency: string, ids: bigint[], concurrency: number, databaseUrl: string | null): Promise<HotWalletFigures> {
  const { db } = s;
  const total = async () => {
    const [w] = await s.ledger.walletBalances(businessId, currency);
    return w.availableMinor + w.pendingMinor + w.reservedMinor + w.refundHeldMinor;
  };
  const before = await total();
  const { expected } = await db.one<{ expected: bigint }>('SELECT COALESCE(SUM(total_credit_minor), 0)::bigint AS expected FROM collections WHERE id = ANY($1::bigint[])', [ids]);

  let next = 0;
  const cpu = await cpuMeter(process.pid, databaseUrl);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ids.length) {
        const id = ids[next++];
        const moved = await s.collections.applyOutcome(id, 'COMPLETED');
        if (!moved) throw new Error(`collection ${id} was not PENDING`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = await cpu(ids.length);

  const after = await total();
  const { journals } = await db.one<{ journals: number }>(
    `SELECT count(*)::int AS journals FROM journals WHERE kind = 'collection_credit' AND collection_id = ANY($1::bigint[])`,
    [ids],
  );
  return {
    completions: ids.length,
    concurrency,
    per_s: round1(ids.length / seconds),
    seconds: Math.round(seconds * 1000) / 1000,
    exact_balance: after - before === expected && journals === ids.length,
    expected_credit_minor: expected.toString(),
    wallet_moved_minor: (after - before).toString(),
    credit_journals: journals,
    cpu_ms_per_completion: { process_ms: used.server_ms, postgres_ms: used.postgres_ms },
  };
}
