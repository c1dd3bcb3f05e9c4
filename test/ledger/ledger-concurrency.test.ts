// Proves on real PostgreSQL that concurrent completions credit exactly once each, and that a transaction killed mid-way leaves all its postings or none.
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { CollectionRow, PaymentMethod } from '../../src/domain/collection';
import { completionPlan } from '../../src/domain/ledger';
import type { Services } from '../../src/wiring';
import { ledgerDrift } from '../../src/ledger/ledger';
import { SHARED_PG_URL } from '../helpers/db';
import { complete, createBusiness, insertPending, ledgerCounts, realMoneyServices, secondPool, sumsPerCurrency } from '../helpers/money-fixtures';
import type { BusinessFixture, ServicesFixture } from '../helpers/money-fixtures';
import { needsRealServer } from '../helpers/requires';

const COMPLETIONS = 500;
const ROOT = path.resolve(__dirname, '..', '..');

let one: ServicesFixture;
/** a second pool on the same database, standing in for a second process */
let two: ServicesFixture;

/** What the wallet must hold after these collections complete, from the pure plan alone. */
function expected(rows: CollectionRow[], b: { reservePercent: string; reserveMonths: number; cardSettlementDays: number }, walletId: number) {
  const totals = { available: 0n, pending: 0n, reserved: 0n, postings: 0 };
  for (const r of rows) {
    const plan = completionPlan({
      walletId,
      currency: r.account_currency,
      paymentMethod: r.payment_method,
      accountAmountMinor: r.account_amount_minor,
      feeMinor: r.fee_minor,
      totalCreditMinor: r.total_credit_minor,
      customerCharged: r.customer_charged,
      ...b,
      completedAt: new Date(),
    });
    totals.postings += plan.postings.length;
    for (const p of plan.postings) {
      if (p.account.kind === 'available' || p.account.kind === 'pending' || p.account.kind === 'reserved') totals[p.account.kind] += p.amountMinor;
    }
  }
  return totals;
}

async function pendingRows(s: Services, biz: BusinessFixture, n: number, method?: PaymentMethod): Promise<CollectionRow[]> {
  const rows: CollectionRow[] = [];
  for (let i = 0; i < n; i += 25) {
    const batch = Array.from({ length: Math.min(25, n - i) }, (_, k) => i + k);
    rows.push(
      ...(await Promise.all(
        batch.map((k) => insertPending(s, biz.businessId, { method: method ?? (k % 2 ? 'CARD' : 'MOBILE_MONEY'), amountMinor: 100000n + BigInt(k) * 1234567n + 5n })),
      )),
    );
  }
  return rows;
}

needsRealServer().describe('on real PostgreSQL', () => {
  beforeAll(async () => {
    one = await realMoneyServices(SHARED_PG_URL, 10);
    two = await secondPool(one, 10);
  }, 60_000);

  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  it(`credits ${COMPLETIONS} concurrent completions of one wallet exactly, one posting set each`, async () => {
    const settings = { reservePercent: '7.5', reserveMonths: 3, cardSettlementDays: 2 };
    const biz = await createBusiness(one.services.db, { ...settings, fees: [{ method: 'CARD', percent: '2.5', fixedMinor: 100n }, { method: 'MOBILE_MONEY', percent: '1.25', fixedMinor: 0n }] });
    const rows = await pendingRows(one.services, biz, COMPLETIONS);
    const want = expected(rows, settings, biz.walletIds.UGX);
    const before = await ledgerCounts(one.services.db);

    // how fast is the bench's question (npm run bench: hot wallet); here only what they leave behind counts
    const done = await Promise.all(rows.map((r, i) => complete(i % 2 ? two.services : one.services, r.id)));

    expect(done.every((r) => r?.status === 'COMPLETED')).toBe(true);
    expect(await one.services.ledger.walletBalance(biz.businessId, 'UGX')).toEqual({
      currency: 'UGX',
      availableMinor: want.available,
      pendingMinor: want.pending,
      reservedMinor: want.reserved,
      refundHeldMinor: 0n,
      disbursementHeldMinor: 0n,
      disputeHeldMinor: 0n,
    });
    const after = await ledgerCounts(one.services.db);
    expect(after.journals - before.journals).toBe(COMPLETIONS);
    expect(after.postings - before.postings).toBe(want.postings);
    const perCollection = await one.services.db.any(
      `SELECT j.collection_id, count(*)::int AS n FROM journals j WHERE j.collection_id IN ($1:csv) GROUP BY j.collection_id`,
      [rows.map((r) => r.id)],
    );
    expect(perCollection).toHaveLength(COMPLETIONS);
    expect(perCollection.every((r) => r.n === 1)).toBe(true);
    for (const sum of Object.values(await sumsPerCurrency(one.services.db))) expect(sum).toBe(0n);
    // the running balances were written by many sessions into their own slots, and add up exactly
    expect(await ledgerDrift(one.services.db)).toEqual([]);
    const slots = await one.services.db.one(
      "SELECT count(*)::int AS n FROM account_balances b JOIN ledger_accounts a ON a.id = b.account_id WHERE a.wallet_id = $1 AND a.kind = 'reserved'",
      [biz.walletIds.UGX],
    );
    expect(slots.n).toBeGreaterThan(1);
  }, 120_000);

  it('posts once when the same completion is reported twice at the same moment', async () => {
    const biz = await createBusiness(one.services.db, { fees: [{ method: 'MOBILE_MONEY', percent: '3', fixedMinor: 0n }] });
    const rows = await pendingRows(one.services, biz, 50);
    const before = await ledgerCounts(one.services.db);
    const results = await Promise.all(rows.flatMap((r) => [complete(one.services, r.id), complete(two.services, r.id)]));
    for (let i = 0; i < rows.length; i++) {
      expect([results[2 * i], results[2 * i + 1]].filter((r) => r !== null)).toHaveLength(1);
    }
    const after = await ledgerCounts(one.services.db);
    expect(after.journals - before.journals).toBe(rows.length);
    const want = expected(rows, { reservePercent: '0', reserveMonths: 0, cardSettlementDays: 0 }, biz.walletIds.UGX);
    expect(after.postings - before.postings).toBe(want.postings);
    expect((await one.services.ledger.walletBalance(biz.businessId, 'UGX')).availableMinor).toBe(want.available);
    expect(await ledgerDrift(one.services.db)).toEqual([]);
  }, 60_000);

  describe('a completion killed mid-way leaves all its postings or none', () => {
    let biz: BusinessFixture;
    beforeAll(async () => {
      biz = await createBusiness(one.services.db, { reservePercent: '10', reserveMonths: 1, cardSettlementDays: 1, fees: [{ method: 'CARD', percent: '2', fixedMinor: 0n }] });
    });

    async function expectUntouched(row: CollectionRow, before: Awaited<ReturnType<typeof ledgerCounts>>) {
      expect(await ledgerCounts(one.services.db)).toEqual(before);
      expect((await one.services.db.one('SELECT status FROM collections WHERE id = $1', [row.id])).status).toBe('PENDING');
      // and the collection can still be completed, once, with its whole posting set
      expect(await complete(one.services, row.id)).not.toBeNull();
      const after = await ledgerCounts(one.services.db);
      expect(after).toEqual({ journals: before.journals + 1, postings: before.postings + 4, holds: before.holds + 2 });
    }

    it('an error thrown after the postings', async () => {
      const row = (await pendingRows(one.services, biz, 1, 'CARD'))[0];
      const before = await ledgerCounts(one.services.db);
      const s = one.services;
      await expect(
        s.db.tx(async (t) => {
          expect(await s.collections.move(t, row.id, 'COMPLETED')).not.toBeNull();
          expect((await t.one('SELECT count(*)::int AS n FROM postings')).n).toBe(before.postings + 4);
          throw new Error('crash after the postings');
        }),
      ).rejects.toThrow('crash after the postings');
      await expectUntouched(row, before);
    });

    it('the connection terminated with pg_terminate_backend before commit', async () => {
      const row = (await pendingRows(one.services, biz, 1, 'CARD'))[0];
      const before = await ledgerCounts(one.services.db);
      const s = two.services;
      let posted!: (pid: number) => void;
      const pidPosted = new Promise<number>((resolve) => (posted = resolve));
      let proceed!: () => void;
      const gate = new Promise<void>((resolve) => (proceed = resolve));
      const tx = s.db.tx(async (t) => {
        if (!(await s.collections.move(t, row.id, 'COMPLETED'))) throw new Error('not moved');
        posted((await t.one<{ pid: number }>('SELECT pg_backend_pid() AS pid')).pid);
        await gate;
        await t.none('SELECT 1');
      });
      try {
        const pid = await pidPosted;
        expect((await one.services.db.one('SELECT pg_terminate_backend($1) AS ok', [pid])).ok).toBe(true);
      } finally {
        proceed();
      }
      await expect(tx).rejects.toThrow();
      await expectUntouched(row, before);
    });

    it('the process killed (SIGKILL) inside the transaction', async () => {
      const row = (await pendingRows(one.services, biz, 1, 'CARD'))[0];
      const before = await ledgerCounts(one.services.db);
      const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), '-e', childScript(one.url as string, row.id)], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        // its own process group: tsx runs the script in a grandchild, and the kill must reach both
        detached: true,
      });
      const killGroup = () => {
        try {
          process.kill(-(child.pid as number), 'SIGKILL');
        } catch {
          // already gone
        }
      };
      let err = '';
      child.stderr.on('data', (d) => (err += String(d)));
      const exited = new Promise((resolve) => child.on('exit', resolve));
      try {
        await new Promise<void>((resolve, reject) => {
          child.stdout.on('data', (d) => String(d).includes('posted') && resolve());
          child.on('exit', (code) => reject(new Error(`child exited (${code}) before posting: ${err}`)));
        });
        // inside the child's open transaction the postings exist; nothing is visible outside it
        expect(await ledgerCounts(one.services.db)).toEqual(before);
      } finally {
        killGroup();
        await exited;
      }
      await expectUntouched(row, before);
    }, 60_000);
  });

  /** A second process that completes the collection, writes its postings and hangs before COMMIT. */
  function childScript(url: string, id: bigint): string {
    return `
      import { openPostgres } from './src/db';
      import { buildServices } from './src/wiring';
      import { loadConfig } from './src/config';
      import { createLogger } from './src/log';
      import os from 'node:os';
      (async () => {
        const database = await openPostgres(${JSON.stringify(url)}, 1);
        const config = loadConfig({ DATA_DIR: os.tmpdir() + '/paycollect-money-child-' + process.pid, OPERATOR_API_KEY: 'op_child_key_0123456789abcdef', SEED_DEMO: 'false' });
        const s = buildServices({ config, db: database.db, log: createLogger(() => undefined), now: () => new Date() });
        await s.db.tx(async (t) => {
          if (!(await s.collections.move(t, ${id}n, 'COMPLETED'))) throw new Error('not moved');
          process.stdout.write('posted\\n');
          await new Promise(() => setInterval(() => undefined, 1000));
        });
      })();
    `;
  }
});
