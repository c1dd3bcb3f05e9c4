// `npm run ledger:check`: recomputes every running balance from the postings and checks that every
// journal sums to zero, on the database the service uses (DATABASE_URL, else the embedded one in
// DATA_DIR, which the service must not have open). Prints one JSON line per problem found, then a
// summary. Exit codes: 0 the ledger is sound, 1 drift found, 2 the check could not run.
import { ConfigError, loadConfig } from '../src/config';
import { openDatabase } from '../src/db';
import { ledgerDrift } from '../src/ledger/ledger';

const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));

async function main(): Promise<number> {
  const config = loadConfig();
  const database = await openDatabase(config.databaseUrl, config.dataDir, 1);
  try {
    const found = await ledgerDrift(database.db);
    for (const d of found) process.stdout.write(json(d) + '\n');
    const { accounts, postings } = await database.db.one<{ accounts: number; postings: bigint }>(
      'SELECT (SELECT count(*)::int FROM ledger_accounts) AS accounts, (SELECT count(*) FROM postings) AS postings',
    );
    process.stdout.write(json({ checked_accounts: accounts, checked_postings: postings, problems: found.length }) + '\n');
    return found.length === 0 ? 0 : 1;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`ledger:check: ${e instanceof ConfigError ? 'configuration error: ' : ''}${(e as Error).message}\n`);
    process.exit(2);
  },
);
