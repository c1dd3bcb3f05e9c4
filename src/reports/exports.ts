// The collections, refunds and disbursements exports (docs/reports.md): every row matching the list's filters as one CSV
// file, newest first, read a batch at a time by keyset and written as the client takes it, so a million
// rows never sit in memory. Each batch is its own statement (no transaction held open for the whole file):
// a row created while the file is written is above the first batch, and never half in it.
import type { QueryFile } from 'pg-promise';
import type { CollectionRow } from '../domain/collection';
import { collectionWhere } from '../collections/counts';
import type { CollectionFilters } from '../collections';
import { disbursementWhere } from '../disbursements/filters';
import type { DisbursementFilters } from '../disbursements/filters';
import type { DisbursementRow } from '../api-records/disbursement';
import { refundWhere } from '../refunds/filters';
import { inlined } from '../db/filters';
import type { Where } from '../db/filters';
import type { RefundFilters } from '../refunds/filters';
import type { RefundRow } from '../api-records/refund';
import { amountCell, csvLines, textCell, timeCell } from './csv';
import type { Cell, Sink } from './csv';
import { reportSql } from './sql';
import type { DbOf } from './sql';

/** Rows per query: large enough that a round trip is cheap per row, small enough to stay a few MB. */
export const EXPORT_BATCH = 2000;
const collectionsSql = reportSql('export-collections.sql');
const refundsSql = reportSql('export-refunds.sql');
const disbursementsSql = reportSql('export-disbursements.sql');

/**
 * Writes the header, then every row the statement finds under `filters` (formatted in once), newest first, a batch at a time:
 * the statement takes the keyset of the previous batch's last row (`before`, `before_id`) and gives each
 * row's own key as PostgreSQL has it (`page_key`). Returns how many rows it wrote.
 */
async function writeKeyset<R extends { page_key: string }>(
  db: DbOf, statement: QueryFile, filters: Where, header: string[], record: (r: R) => Cell[], sink: Sink, batch: number,
): Promise<number> {
  await sink.write(csvLines([header]));
  const where = inlined(filters);
  let before = { before: 'infinity', before_id: '0' };
  let written = 0;
  for (;;) {
    const rows = await db().any<R>(statement, { where, ...before, limit: batch });
    if (rows.length > 0) await sink.write(csvLines(rows.map(record)));
    written += rows.length;
    if (rows.length < batch) return written;
    const [at, id] = JSON.parse(rows[rows.length - 1].page_key) as [string, number | string];
    before = { before: at, before_id: String(id) };
  }
}

export const COLLECTIONS_CSV_HEADER = [
  'created_at_utc', 'updated_at_utc', 'credited_at_utc', 'gateway_reference', 'merchant_reference', 'business_id',
  'status', 'payment_method', 'request_amount', 'request_currency', 'fx_rate', 'fx_reference_rate', 'fx_markup', 'fx_source',
  'fx_as_of_utc', 'account_amount', 'account_currency', 'fee', 'total_credit', 'fee_paid_by', 'customer_account', 'customer_name',
  'customer_email', 'narration', 'institution_name', 'message',
];

/** The columns export-collections.sql reads, as the collections table has them, and two of its own. */
type ExportRow = Pick<
  CollectionRow,
  | 'id' | 'created_at' | 'updated_at' | 'gateway_reference' | 'merchant_reference' | 'business_id' | 'status' | 'payment_method'
  | 'request_amount_minor' | 'request_currency' | 'fx_rate' | 'fx_reference_rate' | 'fx_markup' | 'fx_source' | 'fx_as_of'
  | 'account_amount_minor' | 'account_currency' | 'fee_minor'
  | 'total_credit_minor' | 'customer_charged' | 'account_number' | 'account_name' | 'account_email' | 'narration'
  | 'institution_name' | 'message'
> & { credited_at: Date | null; page_key: string };

function record(r: ExportRow): Cell[] {
  return [
    timeCell(r.created_at), timeCell(r.updated_at), timeCell(r.credited_at), r.gateway_reference, textCell(r.merchant_reference),
    String(r.business_id), r.status, r.payment_method, amountCell(r.request_amount_minor, r.request_currency), r.request_currency, r.fx_rate,
    r.fx_reference_rate, r.fx_markup, r.fx_source, timeCell(r.fx_as_of),
    amountCell(r.account_amount_minor, r.account_currency), r.account_currency, amountCell(r.fee_minor, r.account_currency), amountCell(r.total_credit_minor, r.account_currency),
    r.customer_charged ? 'customer' : 'merchant', textCell(r.account_number), textCell(r.account_name), textCell(r.account_email),
    textCell(r.narration), textCell(r.institution_name), textCell(r.message),
  ];
}

export class CollectionExports {
  constructor(private readonly db: DbOf) {}

  /** Writes the header and every matching collection; returns how many rows it wrote. */
  writeCsv(filters: CollectionFilters, sink: Sink, batch = EXPORT_BATCH): Promise<number> {
    return writeKeyset(this.db, collectionsSql, collectionWhere(filters), COLLECTIONS_CSV_HEADER, record, sink, batch);
  }
}

export const REFUNDS_CSV_HEADER = [
  'created_at_utc', 'updated_at_utc', 'completed_at_utc', 'gateway_reference', 'merchant_reference', 'collection_gateway_reference',
  'collection_merchant_reference', 'business_id', 'status', 'pending_reason', 'failure_reason', 'reason', 'amount', 'currency',
  'wallet_debit', 'wallet_currency', 'processor',
];

/** The columns export-refunds.sql reads, as the refunds table has them, and its collection's and two of its own. */
type RefundExportRow = Pick<
  RefundRow,
  | 'id' | 'created_at' | 'updated_at' | 'gateway_reference' | 'merchant_reference' | 'collection_gateway_reference' | 'business_id'
  | 'status' | 'pending_reason' | 'failure_reason' | 'reason' | 'amount_minor' | 'currency' | 'account_amount_minor'
  | 'account_currency' | 'service_type'
> & { collection_merchant_reference: string; completed_at: Date | null; page_key: string };

function refundRecord(r: RefundExportRow): Cell[] {
  return [
    timeCell(r.created_at), timeCell(r.updated_at), timeCell(r.completed_at), r.gateway_reference, textCell(r.merchant_reference),
    r.collection_gateway_reference, textCell(r.collection_merchant_reference), String(r.business_id), r.status,
    r.pending_reason, textCell(r.failure_reason), textCell(r.reason), amountCell(r.amount_minor, r.currency), r.currency,
    amountCell(r.account_amount_minor, r.account_currency), r.account_currency, r.service_type,
  ];
}

export class RefundExports {
  constructor(private readonly db: DbOf) {}

  /** Writes the header and every matching refund; returns how many rows it wrote. */
  writeCsv(filters: RefundFilters, sink: Sink, batch = EXPORT_BATCH): Promise<number> {
    return writeKeyset(this.db, refundsSql, refundWhere(filters), REFUNDS_CSV_HEADER, refundRecord, sink, batch);
  }
}

export const DISBURSEMENTS_CSV_HEADER = [
  'created_at_utc', 'updated_at_utc', 'id', 'gateway_reference', 'merchant_reference', 'business_id', 'status', 'pending_reason',
  'failure_reason', 'payment_method', 'amount', 'fee', 'currency', 'account_number', 'bank_code', 'account_name', 'narration',
  'message', 'processor',
];

/** The columns export-disbursements.sql reads, as the disbursements table has them, and its own page key. */
type DisbursementExportRow = Pick<
  DisbursementRow,
  | 'id' | 'created_at' | 'updated_at' | 'gateway_reference' | 'merchant_reference' | 'business_id' | 'status' | 'pending_reason'
  | 'failure_reason' | 'payment_method' | 'amount_minor' | 'fee_minor' | 'currency' | 'account_number' | 'bank_code'
  | 'account_name' | 'narration' | 'message' | 'service_type'
> & { page_key: string };

/** The disbursement record's fields (docs/contract/disbursements.md), the fee in the disbursement's currency. */
function disbursementRecord(d: DisbursementExportRow): Cell[] {
  return [
    timeCell(d.created_at), timeCell(d.updated_at), d.id.toString(), d.gateway_reference, textCell(d.merchant_reference),
    String(d.business_id), d.status, d.pending_reason, textCell(d.failure_reason), d.payment_method,
    amountCell(d.amount_minor, d.currency), amountCell(d.fee_minor, d.currency), d.currency, textCell(d.account_number),
    d.bank_code, textCell(d.account_name), textCell(d.narration), textCell(d.message), d.service_type,
  ];
}

export class DisbursementExports {
  constructor(private readonly db: DbOf) {}

  /** Writes the header and every matching disbursement; returns how many rows it wrote. */
  writeCsv(filters: DisbursementFilters, sink: Sink, batch = EXPORT_BATCH): Promise<number> {
    return writeKeyset(this.db, disbursementsSql, disbursementWhere(filters), DISBURSEMENTS_CSV_HEADER, disbursementRecord, sink, batch);
  }
}
