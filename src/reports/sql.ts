// The reports' named statements, read once from src/reports/sql/ (pg-promise QueryFile, named parameters).
import path from 'node:path';
import { pgp } from '../db';
import type { Db } from '../db';

export function reportSql(name: string): InstanceType<typeof pgp.QueryFile> {
  const file = new pgp.QueryFile(path.join(__dirname, 'sql', name), { minify: true });
  if (file.error) throw file.error;
  return file;
}

/** The database as the caller should use it now (inside an audited change, the change's transaction). */
export type DbOf = () => Db;

/** One snapshot for a whole report, written to nothing. */
export const SNAPSHOT = new pgp.txMode.TransactionMode({ tiLevel: pgp.txMode.isolationLevel.repeatableRead, readOnly: true });
