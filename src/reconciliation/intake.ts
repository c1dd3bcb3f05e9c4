// Taking a statement in (docs/reconciliation.md, "Intake"): the file is read as it arrives, its lines written
// in batches and matched, all in one transaction: a bad file changes nothing. The same file twice creates
// nothing: its SHA-256 is unique per MID, and a second intake answers the first statement (created: false).
import { createHash, randomUUID } from 'node:crypto';
import { sqlFiles } from '../db';
import type { Tx } from '../db';
import { AppError } from '../errors';
import type { Base } from '../base';
import { CsvError, csvRecords } from './csv-records';
import { MpesaStatementReader, MtnPartnerReportReader } from './statement-lines';
import type { StatementLine, StatementReader } from './statement-lines';

const SQL = sqlFiles(__dirname, ['insert-lines', 'match-lines', 'theirs-missing']);

/** Lines written per statement. */
const BATCH = 2_000;
/** A statement file over this is refused (a month of a busy till is well under it). */
export const STATEMENT_LIMIT_BYTES = 64 * 1024 * 1024;

export type StatementSource = 'mpesa_statement' | 'mtn_partner_report' | 'paystack_settlement' | 'btcpay_invoices' | 'sandbox_statement';

/** The partner's local time of an MTN report, by the MID's currency (the country's zone). */
const MTN_OFFSET_MINUTES: Record<string, number> = { UGX: 180, RWF: 120, ZMW: 120, GHS: 0, XAF: 60, XOF: 0, ZAR: 120, EUR: 60 };

export interface StatementRecord {
  id: bigint;
  mid_id: number;
  source: StatementSource;
  content_hash: string;
  line_count: number;
  first_at: Date | null;
  last_at: Date | null;
  taken_by: string;
  created_at: Date;
}

export interface Intake {
  statement: StatementRecord;
  created: boolean;
  /** rows passed over: charges, failed attempts, others (balance rows, transfers) */
  skipped: { fee: number; not_completed: number; other: number };
}

interface MidOfStatement {
  id: number;
  service_type: string;
  currency: string;
}

/** Which reader takes a MID's files: by its processor. */
function readerOf(mid: MidOfStatement): { source: StatementSource; reader: StatementReader } {
  if (mid.service_type === 'mpesa') return { source: 'mpesa_statement', reader: new MpesaStatementReader() };
  if (mid.service_type === 'mtn_momo') return { source: 'mtn_partner_report', reader: new MtnPartnerReportReader(MTN_OFFSET_MINUTES[mid.currency] ?? 0) };
  throw new AppError('VALIDATION_ERROR', `A ${mid.service_type} MID has no statement file to upload (Paystack's settlements and BTCPay's settled invoices are pulled on a schedule)`);
}

class DuplicateStatement extends Error {}

export class StatementIntake {
  constructor(private readonly s: Base) {}

  /** A statement file of MID `midId` read from `chunks`; VALIDATION_ERROR (nothing written) when it cannot be read. */
  async upload(midId: number, chunks: AsyncIterable<Buffer | string>, takenBy: string): Promise<Intake> {
    const mid = await this.s.db.oneOrNone<MidOfStatement>('SELECT id, service_type, currency FROM mids WHERE id = $1', [midId]);
    if (!mid) throw new AppError('NOT_FOUND', `No MID with id ${midId}`);
    const { source, reader } = readerOf(mid);
    const hash = createHash('sha256');
    const skipped = { fee: 0, not_completed: 0, other: 0 };
    let digest = '';
    const hashed = async function* () {
      for await (const chunk of chunks) {
        hash.update(chunk);
        yield chunk;
      }
    };
    try {
      return await this.s.db.tx('reconciliation-intake', async (t) => {
        const statement = await this.open(t, mid.id, source, takenBy);
        let batch: StatementLine[] = [];
        let count = 0;
        // the period the file covers: its lines' first and last times, those another statement gave too included
        let first: Date | null = null;
        let last: Date | null = null;
        for await (const record of csvRecords(hashed(), STATEMENT_LIMIT_BYTES)) {
          const read = reader.read(record);
          if ('line' in read) {
            batch.push(read.line);
            count++;
            if (first === null || read.line.occurredAt < first) first = read.line.occurredAt;
            if (last === null || read.line.occurredAt > last) last = read.line.occurredAt;
            if (batch.length === BATCH) {
              await this.write(t, statement.id, mid.id, batch);
              batch = [];
            }
          } else if (read.skipped === 'fee' || read.skipped === 'not_completed' || read.skipped === 'other') skipped[read.skipped]++;
        }
        reader.finish();
        await this.write(t, statement.id, mid.id, batch);
        digest = hash.digest('hex');
        const closed = await this.close(t, statement.id, digest, count, first, last);
        if (!closed) throw new DuplicateStatement();
        await this.match(t, closed);
        return { statement: closed, created: true, skipped };
      });
    } catch (e) {
      if (e instanceof CsvError) throw new AppError('VALIDATION_ERROR', `The statement cannot be read: ${e.message}`, [{ field: 'body', message: e.message }]);
      return { statement: await this.takenBefore(e, mid.id, digest), created: false, skipped };
    }
  }

  /**
   * A statement whose lines are read already (a settlement pulled through the processor's API), known by
   * `contentHash`, accounting in full for the period `covers` when it is a period (a day of invoices): written and matched in one transaction, or the MID's statement of that hash when it has it
   * (created: false). What the processor has not reported is not looked for here: the pull does it once it has
   * taken every settlement of its run (`missingFor`), so a payment a later settlement of the run lists is not
   * counted missing first.
   */
  async take(midId: number, source: StatementSource, contentHash: string, lines: StatementLine[], takenBy: string, covers?: { from: Date; to: Date }): Promise<Intake> {
    const skipped = { fee: 0, not_completed: 0, other: 0 };
    try {
      return await this.s.db.tx('reconciliation-intake', async (t) => {
        const statement = await this.open(t, midId, source, takenBy);
        for (let i = 0; i < lines.length; i += BATCH) await this.write(t, statement.id, midId, lines.slice(i, i + BATCH));
        // its period: its lines' first and last times, and the whole of the period it accounts for when it is one
        const times = [...lines.map((l) => l.occurredAt.getTime()), ...(covers ? [covers.from.getTime(), covers.to.getTime()] : [])];
        const span = (pick: (...n: number[]) => number) => (times.length === 0 ? null : new Date(times.reduce((a, b) => pick(a, b))));
        const closed = await this.close(t, statement.id, contentHash, lines.length, span(Math.min), span(Math.max));
        if (!closed) throw new DuplicateStatement();
        await this.matchLines(t, closed);
        return { statement: closed, created: true, skipped };
      });
    } catch (e) {
      return { statement: await this.takenBefore(e, midId, contentHash), created: false, skipped };
    }
  }

  /** The statement the MID had already, when `e` says so (or the same one was taken at the same moment: the unique hash lets one through); else `e` is thrown. */
  private async takenBefore(e: unknown, midId: number, contentHash: string): Promise<StatementRecord> {
    const raced = (e as { code?: string }).code === '23505' && (e as { constraint?: string }).constraint === 'reconciliation_statements_mid_id_content_hash_key';
    if (!(e instanceof DuplicateStatement) && !raced) throw e;
    return this.s.db.one<StatementRecord>('SELECT * FROM reconciliation_statements WHERE mid_id = $1 AND content_hash = $2', [midId, contentHash]);
  }

  /** Matches a statement's lines, then looks for what the processor has not reported past the MID's deadline (money in, then money out). */
  async match(t: Tx, statement: StatementRecord): Promise<void> {
    await this.matchLines(t, statement);
    await t.one(SQL.theirsMissing, { midId: statement.mid_id, now: this.s.now() });
  }

  /** Matches a statement's lines only (a pulled settlement: what is missing is looked for once the pull's run is in). */
  private matchLines(t: Tx, statement: StatementRecord): Promise<null> {
    return t.none(SQL.matchLines, { statementId: statement.id, now: this.s.now() });
  }

  /**
   * What the processors have not reported past each MID's deadline, for every MID with statements: run by the
   * `reconciliation-missing` worker, so a deadline passes without a new statement. Returns the items made.
   */
  async missingDue(now: Date = this.s.now()): Promise<number> {
    const mids = await this.s.db.any<{ mid_id: number }>('SELECT DISTINCT mid_id FROM reconciliation_statements ORDER BY mid_id');
    return this.missingFor(mids.map((m) => m.mid_id), now);
  }

  /** What the processors have not reported past the deadline, for these MIDs: the items made. */
  async missingFor(midIds: number[], now: Date = this.s.now()): Promise<number> {
    let made = 0;
    for (const midId of midIds) {
      made += (await this.s.db.one<{ made: number }>(SQL.theirsMissing, { midId, now })).made;
    }
    return made;
  }

  private open(t: Tx, midId: number, source: StatementSource, takenBy: string): Promise<{ id: bigint }> {
    // the hash is known once the file is read: a placeholder no file can have until then
    return t.one('INSERT INTO reconciliation_statements (mid_id, source, content_hash, taken_by, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id', [
      midId, source, `reading:${randomUUID()}`, takenBy, this.s.now(),
    ]);
  }

  /** The statement with its hash, count and period; null when the MID has this file already. */
  private async close(t: Tx, id: bigint, contentHash: string, count: number, first: Date | null, last: Date | null): Promise<StatementRecord | null> {
    const sql = `UPDATE reconciliation_statements s SET content_hash = $2, line_count = $3, first_at = $4, last_at = $5
      WHERE s.id = $1 AND NOT EXISTS (SELECT FROM reconciliation_statements o WHERE o.mid_id = s.mid_id AND o.content_hash = $2)
      RETURNING s.*`;
    return t.oneOrNone<StatementRecord>(sql, [id, contentHash, count, first, last]);
  }

  private async write(t: Tx, statementId: bigint, midId: number, lines: StatementLine[]): Promise<void> {
    if (lines.length === 0) return;
    await t.none(SQL.insertLines, {
      statementId, midId,
      references: lines.map((l) => l.reference), kinds: lines.map((l) => l.kind), originals: lines.map((l) => l.originalReference),
      amounts: lines.map((l) => l.amountMinor), currencies: lines.map((l) => l.currency), times: lines.map((l) => l.occurredAt),
    });
  }
}
