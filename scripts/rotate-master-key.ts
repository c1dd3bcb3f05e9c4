// `npm run rotate-master-key`: with the new key in MASTER_KEY and the old one(s) in MASTER_KEY_PREVIOUS,
// seal every secret at rest again with MASTER_KEY, then print what it did per column as JSON. Same environment as
// the service (DATABASE_URL, DATA_DIR). On the embedded database, stop the service first (one process
// owns its data directory); on PostgreSQL, run it while the service runs. See docs/operations.md, "Rotating MASTER_KEY".
import { ConfigError, loadConfig } from '../src/config';
import { openDatabase } from '../src/db';
import { resealAll } from '../src/crypto/master-key-rotation';

async function main() {
  const config = loadConfig();
  if (config.masterKeyPrevious.length === 0) throw new ConfigError('set MASTER_KEY_PREVIOUS to the key(s) being replaced');
  const database = await openDatabase(config.databaseUrl, config.dataDir, 2);
  try {
    const report = await resealAll(database.db, config);
    process.stdout.write(JSON.stringify({ resealed_with: 'MASTER_KEY', columns: report }, null, 2) + '\n');
  } finally {
    await database.close();
  }
}

main().catch((e) => {
  process.stderr.write(`rotate-master-key: ${e instanceof ConfigError ? e.message : (e as Error).stack}\n`);
  process.exit(e instanceof ConfigError ? 2 : 1);
});
