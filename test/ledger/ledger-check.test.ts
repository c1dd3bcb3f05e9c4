// Proves `npm run ledger:check` and ledgerDrift: a sound ledger reports nothing; a running balance changed behind the ledger's back, or a journal that does not sum to zero, is reported with both figures and exit code 1; so is a wallet's account taken below zero (a refund of money that was not there); postings cannot be changed or removed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openEmbedded } from '../../src/db';
import type { Db } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { ledgerDrift } from '../../src/ledger/ledger';
import { complete, createBusiness, insertPending, moneyServices } from '../helpers/money-fixtures';
import type { ServicesFixture } from '../helpers/money-fixtures';

const ROOT = path.resolve(__dirname, '..', '..');

let fx: ServicesFixture;
// a loaded machine can take over a minute to open an embedded database
beforeAll(async () => {
  fx = await moneyServices();
}, 180_000);
afterAll(() => fx.close());

const db = () => fx.services.db;

async function availableAccount(walletId: number): Promise<number> {
  return (await db().one<{ id: number }>("SELECT id FROM ledger_accounts WHERE wallet_id = $1 AND kind = 'available'", [walletId])).id;
}

describe('ledgerDrift', () => {
  it('reports nothing for a ledger written by completions, and balances read as sums of postings', async () => {
    const b = await createBusiness(db(), { fees: [{ method: 'MOBILE_MONEY', percent: '2', fixedMinor: 0n }] });
    for (const amountMinor of [1000n, 2500n, 40n]) await complete(fx.services, (await insertPending(fx.services, b.businessId, { amountMinor })).id);
    expect(await ledgerDrift(db())).toEqual([]);
    const account = await availableAccount(b.walletIds.UGX);
    const { sum } = await db().one('SELECT SUM(amount_minor)::bigint AS sum FROM postings WHERE account_id = $1', [account]);
    expect((await fx.services.ledger.walletBalance(b.businessId, 'UGX')).availableMinor).toBe(sum);
  });

  it('reports a running balance that no longer matches its postings, with both figures', async () => {
    const b = await createBusiness(db());
    await complete(fx.services, (await insertPending(fx.services, b.businessId, { amountMinor: 700n })).id);
    const account = await availableAccount(b.walletIds.UGX);
    await db().none('UPDATE account_balances SET balance_minor = balance_minor + 3 WHERE account_id = $1 AND slot = (SELECT min(slot) FROM account_balances WHERE account_id = $1)', [account]);
    expect(await ledgerDrift(db())).toEqual([
      { problem: 'balance', account_id: account, wallet_id: b.walletIds.UGX, currency: 'UGX', kind: 'available', journal_id: null, recorded_minor: 703n, recomputed_minor: 700n },
    ]);
    await db().none('UPDATE account_balances SET balance_minor = balance_minor - 3 WHERE account_id = $1 AND slot = (SELECT min(slot) FROM account_balances WHERE account_id = $1)', [account]);
    expect(await ledgerDrift(db())).toEqual([]);
  });

  it('reports a wallet account whose postings take it below zero, even in a balanced journal', async () => {
    const b = await createBusiness(db());
    await complete(fx.services, (await insertPending(fx.services, b.businessId, { amountMinor: 700n })).id);
    const available = await availableAccount(b.walletIds.UGX);
    // a refund hold of more than is available, written behind the service's back
    const { id: held } = await db().one(
      "INSERT INTO ledger_accounts (business_id, wallet_id, currency, kind) VALUES ($1, $2, 'UGX', 'refund_hold') RETURNING id",
      [b.businessId, b.walletIds.UGX],
    );
    const { id: journal } = await db().one("INSERT INTO journals (kind) VALUES ('refund_hold') RETURNING id");
    await db().none("INSERT INTO postings (journal_id, account_id, amount_minor, currency, kind) VALUES ($1, $2, -701, 'UGX', 'refund_hold'), ($1, $3, 701, 'UGX', 'refund_hold')", [journal, available, held]);
    expect(await ledgerDrift(db())).toEqual([
      { problem: 'negative', account_id: available, wallet_id: b.walletIds.UGX, currency: 'UGX', kind: 'available', journal_id: null, recorded_minor: -1n, recomputed_minor: -1n },
    ]);
    const { id: back } = await db().one("INSERT INTO journals (kind) VALUES ('refund_return') RETURNING id");
    await db().none("INSERT INTO postings (journal_id, account_id, amount_minor, currency, kind) VALUES ($1, $2, 701, 'UGX', 'refund_return'), ($1, $3, -701, 'UGX', 'refund_return')", [back, available, held]);
    expect(await ledgerDrift(db())).toEqual([]);
  });

  it('refuses to change or remove a posting', async () => {
    const { id } = await db().one('SELECT min(id) AS id FROM postings');
    await expect(db().none('UPDATE postings SET amount_minor = amount_minor + 1 WHERE id = $1', [id])).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(db().none('DELETE FROM postings WHERE id = $1', [id])).rejects.toThrow(/append-only: DELETE refused/);
    expect(await ledgerDrift(db())).toEqual([]);
  });
});

describe('npm run ledger:check on an embedded data directory', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'paycollect-ledger-check-'));
    const database = await openEmbedded(path.join(dataDir, 'pg'));
    await migrate(database.db);
    await database.close();
  }, 120_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function withDb(fn: (d: Db) => Promise<void>): Promise<void> {
    const database = await openEmbedded(path.join(dataDir, 'pg'));
    try {
      await fn(database.db);
    } finally {
      await database.close();
    }
  }

  function check() {
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', NODE_OPTIONS: '' };
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/ledger-check.ts'], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
    return { status: r.status, lines: r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)), stderr: r.stderr };
  }

  it('exits 0 on a sound ledger and says what it checked', async () => {
    await withDb(async (d) => {
      const { id: account } = await d.one("INSERT INTO ledger_accounts (currency, kind) VALUES ('KES', 'fee_revenue') RETURNING id");
      const { id: clearing } = await d.one("INSERT INTO ledger_accounts (currency, kind) VALUES ('KES', 'processor_clearing') RETURNING id");
      const { id: journal } = await d.one("INSERT INTO journals (kind) VALUES ('settlement') RETURNING id");
      await d.none("INSERT INTO postings (journal_id, account_id, amount_minor, currency, kind) VALUES ($1, $2, 250, 'KES', 'fee'), ($1, $3, -250, 'KES', 'fee')", [journal, account, clearing]);
    });
    expect(check()).toEqual({ status: 0, lines: [{ checked_accounts: 2, checked_postings: '2', problems: 0 }], stderr: '' });
  }, 120_000);

  it('exits 1 and prints each drifted balance and each unbalanced journal', async () => {
    let account = 0;
    let journal = '';
    await withDb(async (d) => {
      account = (await d.one("SELECT id FROM ledger_accounts WHERE kind = 'fee_revenue'")).id;
      await d.none('UPDATE account_balances SET balance_minor = balance_minor - 1 WHERE account_id = $1', [account]);
      journal = String((await d.one("INSERT INTO journals (kind) VALUES ('settlement') RETURNING id")).id);
      await d.none("INSERT INTO postings (journal_id, account_id, amount_minor, currency, kind) VALUES ($1, $2, 5, 'KES', 'fee')", [journal, account]);
    });
    const r = check();
    expect(r.status).toBe(1);
    expect(r.lines).toEqual([
      { problem: 'balance', account_id: account, wallet_id: null, currency: 'KES', kind: 'fee_revenue', journal_id: null, recorded_minor: '254', recomputed_minor: '255' },
      { problem: 'journal', account_id: null, wallet_id: null, currency: 'KES', kind: null, journal_id: journal, recorded_minor: '5', recomputed_minor: '0' },
      { checked_accounts: 2, checked_postings: '3', problems: 2 },
    ]);
  }, 120_000);

  it('exits 2 with one line when it cannot run', () => {
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: 'mysql://nowhere', NODE_OPTIONS: '' };
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/ledger-check.ts'], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^ledger:check: configuration error: DATABASE_URL/);
  }, 60_000);
});
