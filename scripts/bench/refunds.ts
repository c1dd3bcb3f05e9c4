// Refunds per second on one hot wallet: N collections of one business completed in this process (the
// hot-wallet case's own helpers), then the service, started as a child, takes N concurrent refunds of them
// through the merchant API (createRefund), each holding money of the same wallet. The run is only counted
// exact when, with the service stopped, the wallet's available balance went down by exactly the refunds
// that did not fail or cancel (a failed one's hold returns), each refund has exactly one hold journal,
// and every request was accepted.
import type { Config } from '../../src/config';
import { openDatabase } from '../../src/db';
import { createLogger } from '../../src/log';
import type { Principal } from '../../src/merchants/access-tokens';
import { buildServices } from '../../src/wiring';
import { completeAll, pendingCollections } from './hot-wallet';
import { round1, waitForHttp } from './lib';
import type { Child } from './lib';

export interface RefundFigures {
  refunds: number;
  concurrency: number;
  per_s: number;
  seconds: number;
  errors: number;
  exact_balance: boolean;
  expected_debit_minor: string;
  available_moved_minor: string;
  hold_journals: number;
}

/** Each refund gives back this much of a collection (part of it: a full refund takes more than its credit). */
const REFUND_AMOUNT = 20000;

async function withServices<T>(config: Config, use: (s: ReturnType<typeof buildServices>, databaseUrl: string | null) => Promise<T>): Promise<T> {
  const database = await openDatabase(config.databaseUrl, config.dataDir, config.databasePoolMax);
  try {
    const s = buildServices({ config, db: database.db, log: createLogger(() => undefined, 'error'), now: () => new Date() });
    return await use(s, database.kind === 'postgres' ? config.databaseUrl : null);
  } finally {
    await database.close();
  }
}

const available = async (s: ReturnType<typeof buildServices>, businessId: number, currency: string) => (await s.ledger.walletBalances(businessId, currency))[0].availableMinor;

/**
 * `start` starts the service (on the same database, no other process holding it) and `stop` stops it;
 * `base` is its URL and `authorization` the merchant's access token.
 */
export async function hotWalletRefunds(o: {
  config: Config;
  principal: Principal;
  currency: string;
  refunds: number;
  concurrency: number;
  body: (n: number) => Record<string, unknown>;
  base: string;
  authorization: string;
  start: () => Child;
  stop: (c: Child) => Promise<unknown>;
}): Promise<RefundFigures> {
  const prepared = await withServices(o.config, async (s, databaseUrl) => {
    const ids = (await pendingCollections(s, o.principal, o.currency, o.refunds, o.body)).map((c) => c.id);
    const completed = await completeAll(s, o.principal.businessId, o.currency, ids, 20, databaseUrl);
    if (!completed.exact_balance) throw new Error('the collections to refund did not credit the wallet exactly');
    const rows = await s.db.any<{ gateway_reference: string }>('SELECT gateway_reference FROM collections WHERE id = ANY($1::bigint[]) ORDER BY id', [ids]);
    return { references: rows.map((r) => r.gateway_reference), before: await available(s, o.principal.businessId, o.currency) };
  });

  const child = o.start();
  let seconds: number;
  let errors = 0;
  const sent: string[] = [];
  try {
    await waitForHttp(`${o.base}/healthz`, child);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (next < prepared.references.length) {
          const n = next++;
          const res = await fetch(`${o.base}/v1/collections/${prepared.references[n]}/refunds`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json', authorization: o.authorization },
            body: JSON.stringify({ amount: REFUND_AMOUNT, merchant_reference: `BENCH-RFD-${n}`, reason: 'bench' }),
          });
          if (res.status === 200) sent.push(((await res.json()) as { data: { gateway_reference: string } }).data.gateway_reference);
          else {
            errors += 1;
            await res.arrayBuffer();
          }
        }
      }),
    );
    seconds = (performance.now() - started) / 1000;
  } finally {
    await o.stop(child);
  }

  // The service is stopped: no worker moves a refund while the balance and the refunds are read.
  return withServices(o.config, async (s) => {
    const after = await available(s, o.principal.businessId, o.currency);
    const { expected, holds } = await s.db.one<{ expected: bigint; holds: number }>(
      `SELECT COALESCE(SUM(r.account_amount_minor) FILTER (WHERE r.status NOT IN ('FAILED', 'CANCELLED')), 0)::bigint AS expected,
              (SELECT count(*)::int FROM journals j WHERE j.kind = 'refund_hold' AND j.refund_id IN (SELECT id FROM refunds WHERE gateway_reference = ANY($1::text[]))) AS holds
         FROM refunds r WHERE r.gateway_reference = ANY($1::text[])`,
      [sent],
    );
    const moved = prepared.before - after;
    return {
      refunds: prepared.references.length,
      concurrency: o.concurrency,
      per_s: round1(sent.length / seconds),
      seconds: Math.round(seconds * 1000) / 1000,
      errors,
      exact_balance: errors === 0 && moved === expected && holds === sent.length,
      expected_debit_minor: expected.toString(),
      available_moved_minor: moved.toString(),
      hold_journals: holds,
    };
  });
}
