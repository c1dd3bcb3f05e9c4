-- One journal of a refund (hold, out or return) with its postings, the running balances following by
-- trigger. A refund has one hold and at most one outcome (journals_one_refund_hold, _outcome): a second
-- writes nothing, and the caller sees no row.
WITH journal AS (
  INSERT INTO journals (collection_id, refund_id, kind, created_at)
  VALUES (${collectionId}, ${refundId}, ${kind}, ${now})
  ON CONFLICT DO NOTHING
  RETURNING id
), posted AS (
  INSERT INTO postings (journal_id, account_id, amount_minor, currency, kind, created_at)
  SELECT j.id, v.account_id, v.amount_minor, v.currency, ${kind}, ${now}
  FROM journal j CROSS JOIN unnest(${accountIds}::int[], ${amounts}::bigint[], ${currencies}::text[]) WITH ORDINALITY AS v(account_id, amount_minor, currency, n)
  ORDER BY v.n
  RETURNING journal_id
)
SELECT DISTINCT journal_id FROM posted
