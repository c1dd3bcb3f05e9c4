-- The ledger's part of a collection's state change (collections/sql/move.sql, which includes it as
-- ${@credit} in its one statement): the credit journal of each moved row that completes, with its postings
-- and its holds (reserve, card settlement), valued by LedgerService.creditValues. It reads the statement's
-- `moved` (the changed rows, n_ their place) and `input` (per move: credit, credited_at) and the flattened
-- posting_* and hold_* arrays, whose *_owners is the move's place. One credit journal per collection: a
-- second writes nothing, and its postings and holds follow none.
credit_journal AS (
  INSERT INTO journals (collection_id, kind, created_at)
  SELECT m.id, 'collection_credit', i.credited_at FROM moved m JOIN input i ON i.n = m.n_ WHERE i.credit ORDER BY m.id
  ON CONFLICT (collection_id) WHERE kind = 'collection_credit' DO NOTHING
  RETURNING id, collection_id
),
credit_postings AS (
  INSERT INTO postings (journal_id, account_id, amount_minor, currency, kind, created_at)
  SELECT j.id, v.account_id, v.amount_minor, v.currency, v.kind, i.credited_at
  FROM unnest(${posting_owners}::int[], ${posting_accounts}::int[], ${posting_amounts}::bigint[], ${posting_currencies}::text[],
    ${posting_kinds}::text[]) WITH ORDINALITY AS v(owner, account_id, amount_minor, currency, kind, k)
  JOIN moved m ON m.n_ = v.owner
  JOIN input i ON i.n = v.owner
  JOIN credit_journal j ON j.collection_id = m.id
  ORDER BY v.k
),
credit_holds AS (
  INSERT INTO ledger_holds (journal_id, wallet_id, bucket, amount_minor, release_at)
  SELECT j.id, v.wallet_id, v.bucket, v.amount_minor, v.release_at
  FROM unnest(${hold_owners}::int[], ${hold_wallet_ids}::int[], ${hold_buckets}::text[], ${hold_amounts}::bigint[],
    ${hold_release_ats}::timestamptz[]) WITH ORDINALITY AS v(owner, wallet_id, bucket, amount_minor, release_at, k)
  JOIN moved m ON m.n_ = v.owner
  JOIN credit_journal j ON j.collection_id = m.id
  ORDER BY v.k
)
