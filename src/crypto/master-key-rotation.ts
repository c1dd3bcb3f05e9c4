// MASTER_KEY rotation: every value sealed at rest is opened with whichever key fits (MASTER_KEY or one of
// MASTER_KEY_PREVIOUS) and sealed again with MASTER_KEY. Run while the service runs: each table is done in
// one transaction under row locks, and the service accepts the old key until the operator removes it.
import { masterKeys, openWithAny, seal } from './secretbox';
import type { Config } from '../config';
import type { Db } from '../db';

/** Every sealed column: table, its key column, the sealed column. */
export const SEALED_COLUMNS = [
  { table: 'api_tokens', id: 'id', column: 'webhook_hash_enc' },
  { table: 'mids', id: 'id', column: 'merchant_password_enc' },
  { table: 'mids', id: 'id', column: 'credentials_enc' },
  { table: 'card_keys', id: 'key_id', column: 'private_pem_enc' },
  { table: 'sealed_settings', id: 'name', column: 'value_enc' },
  { table: 'users', id: 'id', column: 'totp_secret_enc' },
  { table: 'users', id: 'id', column: 'totp_pending_secret_enc' },
] as const;

export interface ResealReport {
  /** per "table.column": values sealed again with MASTER_KEY, and values already sealed with it */
  [column: string]: { resealed: number; current: number };
}

export async function resealAll(db: Db, config: Pick<Config, 'masterKey' | 'masterKeyPrevious'>): Promise<ResealReport> {
  const keys = masterKeys(config);
  const report: ResealReport = {};
  for (const { table, id, column } of SEALED_COLUMNS) {
    report[`${table}.${column}`] = await db.tx(async (t) => {
      const rows = await t.any<{ id: string; sealed: string }>('SELECT $1:name::text AS id, $2:name AS sealed FROM $3:name WHERE $2:name IS NOT NULL FOR UPDATE', [id, column, table]);
      let resealed = 0;
      for (const row of rows) {
        const { plaintext, index } = openWithAny(keys, row.sealed);
        if (index === 0) continue;
        await t.none('UPDATE $1:name SET $2:name = $3 WHERE $4:name::text = $5', [table, column, seal(config.masterKey, plaintext), id, row.id]);
        resealed += 1;
      }
      return { resealed, current: rows.length - resealed };
    });
  }
  return report;
}
