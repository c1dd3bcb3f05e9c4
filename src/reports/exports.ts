// The collections export (docs/reports.md): every collection matching the list's filters as one CSV file,
// newest first, read a batch at a time by keyset and written as the client takes it, so a million rows
// never sit in memory. Each batch is its own statement (no transaction held open for the whole file):
// a row created while the file is written is above the first batch, and never half in it.
import type { CollectionRow } from '../domain/collection';
import { filterWhere } from '../collections/counts';
import type { CollectionFilters } from '../collections/collections';
import { amountCell, csvLines, textCell, timeCell } from './csv';
import type { Cell, Sink } from './csv';
import { reportSql } from './sql';
import type { DbOf } from './sql';

/** Rows per query: large enough that a round trip is cheap per row, small enough to stay a few MB. */
export const EXPORT_BATCH = 2000;
const exportSql = reportSql('export-collections.sql');

export const COLLECTIONS_CSV_HEADER = [
  'created_at_utc', 'updated_at_utc', 'credited_at_utc', 'gateway_reference', 'merchant_reference', 'business_id',
  'status', 'payment_method', 'request_amount', 'request_currency', 'fx_rate', 'account_amount', 'account_currency',
  'fee', 'total_credit', 'fee_paid_by', 'customer_account', 'customer_name', 'customer_email', 'narration',
  'institution_name', 'message',
];

/** The columns export-collections.sql reads, as the collections table has them, and two of its own. */
type ExportRow = Pick<
  CollectionRow,
  | 'id' | 'created_at' | 'updated_at' | 'gateway_reference' | 'merchant_reference' | 'business_id' | 'status' | 'payment_method'
  | 'request_amount_minor' | 'request_currency' | 'fx_rate' | 'account_amount_minor' | 'account_currency' | 'fee_minor'
  | 'total_credit_minor' | 'customer_charged' | 'account_number' | 'account_name' | 'account_email' | 'narration'
  | 'institution_name' | 'message'
> & { credited_at: Date | null; page_key: string };

function record(r: ExportRow): Cell[] {
  return [
    timeCell(r.created_at), timeCell(r.updated_at), timeCell(r.credited_at), r.gateway_reference, textCell(r.merchant_reference),
    String(r.business_id), r.status, r.payment_method, amountCell(r.request_amount_minor), r.request_currency, r.fx_rate,
    amountCell(r.account_amount_minor), r.account_currency, amountCell(r.fee_minor), amountCell(r.total_credit_minor),
    r.customer_charged ? 'customer' : 'merchant', textCell(r.account_number), textCell(r.account_name), textCell(r.account_email),
    textCell(r.narration), textCell(r.institution_name), textCell(r.message),
  ];
}

export class CollectionExports {
  constructor(private readonly db: DbOf) {}

  /** Writes the header and every matching collection; returns how many rows it wrote. */
  async writeCsv(filters: CollectionFilters, sink: Sink, batch = EXPORT_BATCH): Promise<number> {
    const where = filterWhere(filters);
    await sink.write(csvLines([COLLECTIONS_CSV_HEADER]));
    let before = { before: 'infinity', before_id: '0' };
    let written = 0;
    for (;;) {
      const rows = await this.db().any<ExportRow>(exportSql, { where, ...before, limit: batch });
      if (rows.length > 0) await sink.write(csvLines(rows.map(record)));
      written += rows.length;
      if (rows.length < batch) return written;
      const [at, id] = JSON.parse(rows[rows.length - 1].page_key) as [string, number | string];
      before = { before: at, before_id: String(id) };
    }
  }
}
