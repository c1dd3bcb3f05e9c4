// Many COMPLETED collections at once, for the reconciliation tests at scale: each a copy of one payment
// the service completed through the API (the template), as its completion left it: the collection row,
// its processor request with the processor's references, and its credit journal with the journal's
// postings and holds, all cloned from the template's own rows in one set-based statement (the running
// balances follow by the postings' trigger, as for every posting). Only what makes each payment its own
// changes: its references (a UUID where the processor's is one, as MTN's X-Reference-Id; else the
// template's letters and a number, as an M-Pesa receipt), and its times, moved together to its own time of
// the spread. Amounts are the template's: the ledger's credit of each is the engine's credit of it, so
// `ledgerDrift` finds nothing. Nothing else of a completion (its webhook, e-mail, events) is copied.
import type { Queryable } from '../../src/db';

export interface BulkPayment {
  collection_id: string;
  gateway_reference: string;
  reference: string;
  receipt: string | null;
  vendor_reference: string | null;
  amount_minor: bigint;
  currency: string;
  created_at: Date;
  /** the processor request's phone or account at the processor, as the template's */
  account_number: string | null;
}

export interface BulkOptions {
  /** the gateway_reference of a COMPLETED collection made through the API */
  template: string;
  count: number;
  /** a few capital letters or digits making this run's references unique */
  tag: string;
  /** the first payment's time; the others follow evenly until `until` */
  from: Date;
  until: Date;
}

async function columns(db: Queryable, table: string): Promise<{ name: string; time: boolean }[]> {
  const rows = await db.any<{ column_name: string; data_type: string }>(
    "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER' AND column_default IS DISTINCT FROM 'nextval(''' || $1 || '_id_seq''::regclass)' ORDER BY ordinal_position",
    [table],
  );
  return rows.filter((r) => r.column_name !== 'id').map((r) => ({ name: r.column_name, time: r.data_type.startsWith('timestamp') }));
}

/** A copy of the template's value of a reference column for payment k: a UUID for a UUID, else its leading letters and a number of its length. */
const reference = (col: string, tag: string) =>
  `CASE WHEN t.${col} IS NULL THEN NULL
     WHEN t.${col} ~ '^[0-9a-f]{8}-[0-9a-f]{4}-' THEN gen_random_uuid()::text
     ELSE upper(substr(regexp_replace(t.${col}, '[^A-Za-z]', '', 'g') || 'X', 1, 2)) || '${tag}' || lpad(g.k::text, greatest(length(t.${col}) - ${2 + tag.length}, 6), '0') END`;

/** `count` COMPLETED copies of the template payment spread evenly over [from, until], in one statement. */
export async function bulkPayments(db: Queryable, o: BulkOptions): Promise<BulkPayment[]> {
  if (!/^[A-Z0-9]{1,6}$/.test(o.tag)) throw new Error('a tag is a few capital letters or digits');
  const collection = await columns(db, 'collections');
  const request = await columns(db, 'processor_requests');
  const step = (o.until.getTime() - o.from.getTime()) / Math.max(o.count - 1, 1);
  const shift = `(\${from}::timestamptz + (g.k * ${step}) * interval '1 millisecond' - t0.created_at)`;
  const collectionValue = (c: { name: string; time: boolean }) => {
    if (c.name === 'gateway_reference') return `t.gateway_reference || '-${o.tag}' || g.k`;
    if (c.name === 'merchant_reference') return `'BULK-${o.tag}-' || g.k`;
    if (c.time) return `t.${c.name} + ${shift}`;
    return `t.${c.name}`;
  };
  const requestValue = (c: { name: string; time: boolean }) => {
    if (c.name === 'collection_id') return 'c.id';
    if (c.name === 'callback_token') return `t.callback_token || '-${o.tag}' || g.k`;
    if (c.name === 'reference' || c.name === 'receipt' || c.name === 'vendor_reference') return reference(c.name, o.tag);
    if (c.time) return `t.${c.name} + ${shift}`;
    return `t.${c.name}`;
  };
  const list = (cs: { name: string }[]) => cs.map((c) => c.name).join(', ');
  const sql = `
    WITH t0 AS (SELECT * FROM collections WHERE gateway_reference = \${template}),
    g AS (SELECT k FROM generate_series(1, \${count}) AS k),
    c AS (
      INSERT INTO collections (${list(collection)})
      SELECT ${collection.map(collectionValue).join(', ')} FROM t0 t CROSS JOIN g CROSS JOIN t0
      ORDER BY g.k
      RETURNING id, merchant_reference, gateway_reference, created_at
    ), ck AS (
      SELECT c.*, substr(c.merchant_reference, ${`BULK-${o.tag}-`.length + 1})::int AS k FROM c
    ), pr AS (
      INSERT INTO processor_requests (${list(request)})
      SELECT ${request.map(requestValue).join(', ')}
      FROM ck c JOIN (SELECT k FROM g) g ON g.k = c.k
      CROSS JOIN t0
      JOIN processor_requests t ON t.collection_id = t0.id
      RETURNING collection_id, reference, receipt, vendor_reference, amount_minor, currency
    ), tj AS (
      SELECT j.* FROM journals j JOIN t0 ON j.collection_id = t0.id AND j.kind = 'collection_credit'
    ), j AS (
      INSERT INTO journals (collection_id, kind, created_at)
      SELECT c.id, 'collection_credit', tj.created_at + (c.created_at - t0.created_at) FROM ck c CROSS JOIN tj CROSS JOIN t0
      ORDER BY c.id
      RETURNING id, collection_id, created_at
    ), p AS (
      INSERT INTO postings (journal_id, account_id, amount_minor, currency, kind, created_at)
      SELECT j.id, tp.account_id, tp.amount_minor, tp.currency, tp.kind, j.created_at
      FROM j CROSS JOIN tj JOIN postings tp ON tp.journal_id = tj.id
      ORDER BY j.id, tp.id
    ), h AS (
      INSERT INTO ledger_holds (journal_id, wallet_id, bucket, amount_minor, release_at)
      SELECT j.id, th.wallet_id, th.bucket, th.amount_minor, th.release_at + (j.created_at - tj.created_at)
      FROM j CROSS JOIN tj JOIN ledger_holds th ON th.journal_id = tj.id
    )
    SELECT c.id::text AS collection_id, c.gateway_reference, pr.reference, pr.receipt, pr.vendor_reference, pr.amount_minor, pr.currency, c.created_at,
      (SELECT account_number FROM t0) AS account_number
    FROM c JOIN pr ON pr.collection_id = c.id
    ORDER BY c.id`;
  const template = await db.oneOrNone<{ status: string; journals: number }>(
    "SELECT c.status, (SELECT count(*)::int FROM journals j WHERE j.collection_id = c.id AND j.kind = 'collection_credit') AS journals FROM collections c WHERE c.gateway_reference = $1",
    [o.template],
  );
  if (template?.status !== 'COMPLETED' || template.journals !== 1) throw new Error(`${o.template} is not a COMPLETED collection with its credit journal`);
  return db.any<BulkPayment>(sql, { template: o.template, count: o.count, from: o.from });
}
