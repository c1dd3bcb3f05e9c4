// The reports wing (docs/reports.md): wallet statements, exports, the settlement report and the
// dashboard's overview, read-only views of the ledger, the collections, the refunds, the disbursements and the processor
// requests. Built from what it reads with: the database (as the caller's change sees it) and the clock. It
// logs nothing: a file that fails part-way is logged where the response is cut (src/http/streaming.ts).
import { CollectionExports, DisbursementExports, RefundExports } from './exports';
import { Overviews } from './overview';
import { SettlementReports } from './settlement';
import type { DbOf } from './sql';
import { WalletStatements } from './statement';

export class ReportService {
  readonly statements: WalletStatements;
  readonly exports: CollectionExports;
  readonly refundExports: RefundExports;
  readonly disbursementExports: DisbursementExports;
  readonly settlement: SettlementReports;
  readonly overviews: Overviews;

  constructor(db: DbOf, now: () => Date) {
    this.statements = new WalletStatements(db);
    this.exports = new CollectionExports(db);
    this.refundExports = new RefundExports(db);
    this.disbursementExports = new DisbursementExports(db);
    this.settlement = new SettlementReports(db, now);
    this.overviews = new Overviews(db, now);
  }
}
