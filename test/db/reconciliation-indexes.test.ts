// Proves the lookups of statement matching (match-lines.sql) and their indexes (migration 0221): it applies
// (the refunds' and disbursements' (mid_id, vendor_reference) indexes there); a refund line and a payout
// line are found by our reference at the processor and by the processor's (vendor_reference), an M-Pesa
// reversal of a payment we refunded is that refund and the operator's reversal of another is
// reversed_externally, a line of nothing of ours is ours_missing; and (EXPLAIN on seeded tables, real
// server) each line's lookups of refunds, disbursements, processor requests and collections are one index
// scan per reference (not a bitmap of two OR-ed), never a scan of a table.
import path from 'node:path';
import { pgp } from '../../src/db';
import type { Db } from '../../src/db';
import { createBusiness, moneyServices, realMoneyServices } from '../helpers/money-fixtures';
import type { ServicesFixture } from '../helpers/money-fixtures';
import { SHARED_PG_URL } from '../helpers/db';
import { indexDefinitions, planNodes } from '../helpers/plans';
import { needsRealServer } from '../helpers/requires';

const matchLines = new pgp.QueryFile(path.resolve(__dirname, '..', '..', 'src', 'reconciliation', 'sql', 'match-lines.sql'), { minify: true, noWarnings: true });
const NOW = new Date('2026-03-02T00:00:00Z');

/**
 * An M-Pesa MID of a new business with `count` COMPLETED collections (each its processor request: our
 * reference pr-, the vendor's pv-, the receipt RC), a COMPLETED refund of each (our reference rr-, the
 * vendor's rv-) and `count` COMPLETED disbursements (dr-, dv-); references end in the MID and the number.
 */
async function seedMid(db: Db, count: number): Promise<number> {
  const { businessId, walletIds } = await createBusiness(db, { defaultCurrency: 'KES' });
  const { id: midId } = await db.one<{ id: number }>(
    "INSERT INTO mids (business_id, business_name, service_type, payment_method, currency) VALUES ($1, 'Matched', 'mpesa', 'MOBILE_MONEY', 'KES') RETURNING id", [businessId],
  );
  const at = "timestamptz '2026-03-01T00:00:00Z' - i * interval '1 minute'";
  await db.none(
    `WITH c AS (
       INSERT INTO collections (business_id, mid_id, gateway_reference, merchant_reference, request_hash, payment_method, status, message,
         request_amount_minor, request_currency, account_amount_minor, account_currency, fee_minor, total_credit_minor,
         customer_charged, account_number, narration, expires_at, created_at, updated_at)
       SELECT $1, $2, 'PCM' || $2 || '-' || i, 'ORDER-' || i, 'h', 'MOBILE_MONEY', 'COMPLETED', 'Paid', 150000, 'KES', 150000, 'KES', 0, 150000,
         false, '254708374149', 'order ' || i, ${at} + interval '30 minutes', ${at}, ${at}
       FROM generate_series(1, $3) AS i
       RETURNING id, merchant_reference, created_at
     )
     INSERT INTO processor_requests (collection_id, mid_id, service_type, reference, callback_token, amount_minor, currency, vendor_reference, receipt, state, created_at, updated_at)
     SELECT c.id, $2, 'mpesa', 'pr-' || $2 || '-' || k, 'cb-' || $2 || '-' || k, 150000, 'KES', 'pv-' || $2 || '-' || k, 'RC' || $2 || 'X' || k, 'settled', c.created_at, c.created_at
     FROM c, LATERAL (SELECT substr(c.merchant_reference, 7) AS k) AS n`,
    [businessId, midId, count],
  );
  await db.none(
    `INSERT INTO refunds (business_id, collection_id, wallet_id, gateway_reference, merchant_reference, request_hash, amount_minor, currency,
       account_amount_minor, account_currency, status, message, service_type, mid_id, reference, callback_token, vendor_reference, send_state, created_at, updated_at)
     SELECT $1, c.id, $3, 'RFM' || $2 || '-' || k, 'RFD-' || k, 'h', 150000, 'KES', 150000, 'KES', 'COMPLETED', 'Refunded', 'mpesa', $2,
       'rr-' || $2 || '-' || k, 'rcb-' || $2 || '-' || k, 'rv-' || $2 || '-' || k, 'settled', c.created_at, c.created_at
     FROM collections c, LATERAL (SELECT substr(c.merchant_reference, 7) AS k) AS n WHERE c.mid_id = $2`,
    [businessId, midId, walletIds.KES],
  );
  await db.none(
    `INSERT INTO disbursements (business_id, wallet_id, mid_id, gateway_reference, merchant_reference, request_hash, amount_minor, fee_minor,
       currency, payment_method, account_number, account_name, status, message, service_type, reference, callback_token, vendor_reference, send_state,
       created_at, updated_at)
     SELECT $1, $3, $2, 'DBM' || $2 || '-' || i, 'MR-' || i, 'h', 70000, 0, 'KES', 'MOBILE_MONEY', '254708374149', 'Payee',
       'COMPLETED', 'Disbursement completed', 'mpesa', 'dr-' || $2 || '-' || i, 'dcb-' || $2 || '-' || i, 'dv-' || $2 || '-' || i, 'settled', ${at}, ${at}
     FROM generate_series(1, $4) AS i`,
    [businessId, midId, walletIds.KES, count],
  );
  return midId;
}

type Line = [reference: string, kind: 'payment' | 'reversal' | 'refund' | 'payout', original: string | null, amountMinor: number];

/** A statement of the MID with these lines, as intake keeps them (before matching); its id. */
async function statementOf(db: Db, midId: number, lines: Line[]): Promise<bigint> {
  const { id } = await db.one<{ id: bigint }>(
    "INSERT INTO reconciliation_statements (mid_id, source, content_hash, taken_by, created_at) VALUES ($1, 'mpesa_statement', md5(random()::text), 'test', $2) RETURNING id", [midId, NOW],
  );
  for (const [reference, kind, original, amountMinor] of lines) {
    await db.none(
      "INSERT INTO reconciliation_lines (statement_id, mid_id, reference, kind, original_reference, amount_minor, currency, occurred_at) VALUES ($1, $2, $3, $4, $5, $6, 'KES', timestamptz '2026-03-01T12:00:00Z')",
      [id, midId, reference, kind, original, amountMinor],
    );
  }
  return id;
}

describe('on this run’s database', () => {
  let f: ServicesFixture | undefined;
  const db = () => (f as ServicesFixture).database.db;
  beforeAll(async () => (f = await moneyServices()), 120_000);
  afterAll(() => f?.close());

  it('has the (mid_id, vendor_reference) index of refunds and of disbursements', async () => {
    expect(await indexDefinitions(db(), ['refunds', 'disbursements'], ['vendor_reference'])).toEqual([
      ['disbursements_mid_vendor_reference', 'CREATE INDEX disbursements_mid_vendor_reference ON disbursements USING btree (mid_id, vendor_reference) WHERE (vendor_reference IS NOT NULL)'],
      ['refunds_mid_vendor_reference', 'CREATE INDEX refunds_mid_vendor_reference ON refunds USING btree (mid_id, vendor_reference) WHERE (vendor_reference IS NOT NULL)'],
    ]);
  });

  it('finds a refund and a payout by either reference, a reversal of a refunded payment as the refund, and each line of nothing ours as ours_missing', async () => {
    const midId = await seedMid(db(), 4);
    // the refund of payment 4 failed: a reversal of it is the operator's
    await db().none("UPDATE refunds SET status = 'FAILED' WHERE reference = $1", [`rr-${midId}-4`]);
    const statementId = await statementOf(db(), midId, [
      [`rr-${midId}-1`, 'refund', null, 150000],
      [`rv-${midId}-2`, 'refund', null, 150500],
      [`dr-${midId}-1`, 'payout', null, 70000],
      [`dv-${midId}-2`, 'payout', null, 69000],
      ['REVOURS1', 'reversal', `RC${midId}X3`, 150000],
      ['REVOPS1', 'reversal', `RC${midId}X4`, 150000],
      [`pv-${midId}-1`, 'refund', null, 150000],
      [`rv-${midId}-3`, 'payout', null, 150000],
      ['UNKNOWN1', 'payout', null, 5000],
    ]);
    await db().none(matchLines, { statementId, now: NOW });
    const items = await db().any<{ reference: string; state: string; subject: string | null; ours_minor: string | null }>(
      `SELECT i.reference, i.state, COALESCE(r.reference, d.reference, c.gateway_reference) AS subject, i.ours_minor::text
       FROM reconciliation_items i LEFT JOIN refunds r ON r.id = i.refund_id LEFT JOIN disbursements d ON d.id = i.disbursement_id
       LEFT JOIN collections c ON c.id = i.collection_id WHERE i.mid_id = $1 ORDER BY i.line_id`, [midId],
    );
    expect(items).toEqual([
      { reference: `rr-${midId}-1`, state: 'matched', subject: `rr-${midId}-1`, ours_minor: '150000' },
      { reference: `rv-${midId}-2`, state: 'amount_over', subject: `rr-${midId}-2`, ours_minor: '150000' },
      { reference: `dr-${midId}-1`, state: 'matched', subject: `dr-${midId}-1`, ours_minor: '70000' },
      { reference: `dv-${midId}-2`, state: 'amount_under', subject: `dr-${midId}-2`, ours_minor: '70000' },
      { reference: 'REVOURS1', state: 'matched', subject: `rr-${midId}-3`, ours_minor: '150000' },
      { reference: 'REVOPS1', state: 'reversed_externally', subject: `PCM${midId}-4`, ours_minor: '150000' },
      // a collection's reference on a refund line, a refund's on a payout line: not found across kinds
      { reference: `pv-${midId}-1`, state: 'ours_missing', subject: null, ours_minor: null },
      { reference: `rv-${midId}-3`, state: 'ours_missing', subject: null, ours_minor: null },
      { reference: 'UNKNOWN1', state: 'ours_missing', subject: null, ours_minor: null },
    ]);
  });
});

needsRealServer().describe('EXPLAIN on seeded tables (real PostgreSQL)', () => {
  let f: ServicesFixture;
  let db: Db;
  let statementId: bigint;
  beforeAll(async () => {
    f = await realMoneyServices(SHARED_PG_URL, 2);
    db = f.database.db;
    // enough rows, of two MIDs, that scanning a table is a choice the planner weighs
    await seedMid(db, 5000);
    const midId = await seedMid(db, 15000);
    statementId = await statementOf(db, midId, [
      [`RC${midId}X10`, 'payment', null, 150000],
      [`pr-${midId}-11`, 'payment', null, 150000],
      [`pv-${midId}-12`, 'payment', null, 150000],
      ['REVOPS2', 'reversal', `RC${midId}X13`, 150000],
      [`rr-${midId}-14`, 'refund', null, 150000],
      [`rv-${midId}-15`, 'refund', null, 150000],
      [`dr-${midId}-16`, 'payout', null, 70000],
      [`dv-${midId}-17`, 'payout', null, 70000],
    ]);
    for (const table of ['collections', 'processor_requests', 'refunds', 'disbursements', 'reconciliation_lines']) await db.none(`ANALYZE ${table}`);
  }, 180_000);
  afterAll(async () => {
    await f?.close();
  });

  it('looks up each line’s refund, disbursement, processor request and collection by one index scan per reference, never scanning a table', async () => {
    const nodes = await planNodes(db, pgp.as.format(matchLines, { statementId, now: NOW }));
    const tables = new Set(['refunds', 'disbursements', 'processor_requests', 'collections']);
    // in the order of match-lines.sql's branches: money out (ours, the processor's reference; the receipt of a
    // refunded payment; the same for disbursements), then the collection (receipt, ours, the processor's,
    // the sandbox's gateway_reference); one index scan each, not a bitmap of two references OR-ed
    expect(nodes.filter((n) => tables.has(n['Relation Name'] ?? '')).map((n) => [n['Node Type'], n['Relation Name'], n['Index Name']])).toEqual([
      ['Index Scan', 'refunds', 'refunds_reference_key'],
      ['Index Scan', 'refunds', 'refunds_mid_vendor_reference'],
      ['Index Scan', 'processor_requests', 'processor_requests_mid_receipt'],
      ['Index Scan', 'refunds', 'refunds_collection'],
      ['Index Scan', 'disbursements', 'disbursements_reference_key'],
      ['Index Scan', 'disbursements', 'disbursements_mid_vendor_reference'],
      ['Index Scan', 'processor_requests', 'processor_requests_mid_receipt'],
      ['Index Scan', 'collections', 'collections_pkey'],
      ['Index Scan', 'processor_requests', 'processor_requests_reference_key'],
      ['Index Scan', 'collections', 'collections_pkey'],
      ['Index Scan', 'processor_requests', 'processor_requests_mid_vendor_reference'],
      ['Index Scan', 'collections', 'collections_pkey'],
      ['Index Scan', 'collections', 'collections_gateway_reference_key'],
      ['Index Only Scan', 'processor_requests', 'processor_requests_pkey'],
    ]);
  });
});
