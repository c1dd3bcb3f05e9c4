// Disbursements per second on one hot wallet: a wallet funded by collections completed in this process
// (the hot-wallet case's own helpers), then the service, started as a child, takes N disbursements of
// that wallet through the merchant API (createDisbursement, with Secret-Key), `concurrency` at once, and
// its workers carry each through the sandbox simulator to COMPLETED. The figure is N over the time from
// the first request to the last disbursement final. The run is only counted exact when, with the service
// stopped, every request was accepted, every disbursement is COMPLETED, and the wallet's available
// balance went down by exactly the sum of amount + fee of the completed ones (nothing left held), each
// with one hold journal and one out journal.
import type { Config } from '../../src/config';
import { openDatabase } from '../../src/db';
import { createLogger } from '../../src/log';
import type { Principal } from '../../src/merchants/access-tokens';
import { buildServices } from '../../src/wiring';
import { completeAll, pendingCollections } from './hot-wallet';
import { round1, waitForHttp } from './lib';
import type { Child } from './lib';

export interface DisbursementFigures {
  disbursements: number;
  concurrency: number;
  /** disbursements final per second, from the first request to the last one COMPLETED */
  per_s: number;
  /** requests answered per second (accepted, held) */
  accepted_per_s: number;
  seconds: number;
  errors: number;
  completed: number;
  exact_balance: boolean;
  expected_debit_minor: string;
  available_moved_minor: string;
  held_after_minor: string;
  hold_journals: number;
  out_journals: number;
}

/** Each disbursement pays this much (UGX) to a number the simulator pays; the fee below is added. */
const AMOUNT = 1000;
const FEE_PERCENT = 1.5;
const FEE_FIXED_MINOR = 500;
/** What one collection of the bench body (50,000 UGX) leaves available, at the least (fee and reserve taken). */
const AVAILABLE_PER_COLLECTION = 40000;

async function withServices<T>(config: Config, use: (s: ReturnType<typeof buildServices>, databaseUrl: string | null) => Promise<T>): Promise<T> {
  const database = await openDatabase(config.databaseUrl, config.dataDir, config.databasePoolMax);
  try {
    const s = buildServices({ config, db: database.db, log: createLogger(() => undefined, 'error'), now: () => new Date() });
    return await use(s, database.kind === 'postgres' ? config.databaseUrl : null);
  } finally {
    await database.close();
  }
}

const wallet = async (s: ReturnType<typeof buildServices>, businessId: number, currency: string) => (await s.ledger.walletBalances(businessId, currency))[0];

/**
 * `start` starts the service (on the same database, no other process holding it, with a short
 * PROCESSOR_CHECK_SCHEDULE so that the simulator's answer is read soon) and `stop` stops it; `base` is its
 * URL, `authorization` the merchant's access token and `secret` its API token's secret.
 */
export async function hotWalletDisbursements(o: {
  config: Config;
  principal: Principal;
  currency: string;
  disbursements: number;
  concurrency: number;
  body: (n: number) => Record<string, unknown>;
  base: string;
  authorization: string;
  secret: string;
  run: string;
  start: () => Child;
  stop: (c: Child) => Promise<unknown>;
}): Promise<DisbursementFigures> {
  const before = await withServices(o.config, async (s, databaseUrl) => {
    const feePerDisbursement = Math.ceil((AMOUNT * FEE_PERCENT) / 100) + FEE_FIXED_MINOR / 100;
    const funding = Math.ceil((o.disbursements * (AMOUNT + feePerDisbursement)) / AVAILABLE_PER_COLLECTION) + 1;
    const ids = (await pendingCollections(s, o.principal, o.currency, funding, o.body)).map((c) => c.id);
    const completed = await completeAll(s, o.principal.businessId, o.currency, ids, 20, databaseUrl);
    if (!completed.exact_balance) throw new Error('the collections funding the wallet did not credit it exactly');
    await s.db.none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY' AND currency = $2", [o.principal.businessId, o.currency]);
    await s.db.none('UPDATE businesses SET disbursement_fee_percent = $2, disbursement_fee_fixed_minor = $3 WHERE id = $1', [o.principal.businessId, FEE_PERCENT, FEE_FIXED_MINOR]);
    return (await wallet(s, o.principal.businessId, o.currency)).availableMinor;
  });

  const child = o.start();
  const headers = { 'content-type': 'application/json', accept: 'application/json', authorization: o.authorization, 'secret-key': o.secret };
  const references: string[] = [];
  let errors = 0;
  let seconds: number;
  let acceptedSeconds: number;
  try {
    await waitForHttp(`${o.base}/healthz`, child);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (next < o.disbursements) {
          const n = next++;
          const res = await fetch(`${o.base}/v1/disbursements`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              amount: AMOUNT, currency: o.currency, payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Bench Payee',
              merchant_reference: `BENCH-DISB-${o.run}-${n}`, narration: 'bench',
            }),
          });
          if (res.status === 200) references.push(((await res.json()) as { data: { gateway_reference: string } }).data.gateway_reference);
          else {
            errors += 1;
            await res.arrayBuffer();
          }
        }
      }),
    );
    acceptedSeconds = (performance.now() - started) / 1000;
    // until none is left PENDING or PROCESSING (the simulator pays every one of these numbers); not more
    // often than every 250 ms, since each read checks the API secret's argon2 hash too
    for (;;) {
      const open = await Promise.all(['PENDING', 'PROCESSING'].map(async (status) => {
        const res = await fetch(`${o.base}/v1/disbursements?status=${status}&per_page=1`, { headers });
        if (res.status !== 200) throw new Error(`listing ${status} disbursements: ${res.status} ${await res.text()}`);
        return ((await res.json()) as { paging: { total: number } }).paging.total;
      }));
      if (open[0] + open[1] === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    seconds = (performance.now() - started) / 1000;
  } finally {
    await o.stop(child);
  }

  // The service is stopped: nothing moves while the wallet and the disbursements are read.
  return withServices(o.config, async (s) => {
    const after = await wallet(s, o.principal.businessId, o.currency);
    const got = await s.db.one<{ expected: bigint; completed: number; holds: number; outs: number }>(
      `SELECT COALESCE(SUM(d.amount_minor + d.fee_minor) FILTER (WHERE d.status = 'COMPLETED'), 0)::bigint AS expected,
              (count(*) FILTER (WHERE d.status = 'COMPLETED'))::int AS completed,
              (SELECT count(*)::int FROM journals j WHERE j.kind = 'disbursement_hold' AND j.disbursement_id IN (SELECT id FROM disbursements WHERE gateway_reference = ANY($1::text[]))) AS holds,
              (SELECT count(*)::int FROM journals j WHERE j.kind = 'disbursement_out' AND j.disbursement_id IN (SELECT id FROM disbursements WHERE gateway_reference = ANY($1::text[]))) AS outs
         FROM disbursements d WHERE d.gateway_reference = ANY($1::text[])`,
      [references],
    );
    const moved = before - after.availableMinor;
    const n = references.length;
    return {
      disbursements: o.disbursements,
      concurrency: o.concurrency,
      per_s: round1(n / seconds),
      accepted_per_s: round1(n / acceptedSeconds),
      seconds: Math.round(seconds * 1000) / 1000,
      errors,
      completed: got.completed,
      exact_balance: errors === 0 && got.completed === n && moved === got.expected && after.disbursementHeldMinor === 0n && got.holds === n && got.outs === n,
      expected_debit_minor: got.expected.toString(),
      available_moved_minor: moved.toString(),
      held_after_minor: after.disbursementHeldMinor.toString(),
      hold_journals: got.holds,
      out_journals: got.outs,
    };
  });
}
