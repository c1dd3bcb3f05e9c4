-- One journal of a disbursement (hold, out, return or reversal) with its postings, the running balances following by
-- trigger. A disbursement has one hold, at most one outcome and one reversal (journals_one_disbursement_*): a second
-- writes nothing, and the caller sees no row.
WITH journal AS (
  INSERT INTO journals (disbursement_id, kind, created_at)
  VALUES (${disbursementId}, ${kind}, ${now})
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
