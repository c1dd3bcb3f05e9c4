-- One journal with its postings, the running balances following by trigger: a refund's, a
-- disbursement's (hold, out, return, reversal) or a dispute's (hold, release, debit), each named by its
-- owner. An owner has at most one journal of each such kind (journals_one_refund_*,
-- journals_one_disbursement_*, journals_one_dispute_*): a second writes nothing, and the caller sees no row.
WITH journal AS (
  INSERT INTO journals (collection_id, refund_id, disbursement_id, dispute_id, kind, created_at)
  VALUES (${collectionId}, ${refundId}, ${disbursementId}, ${disputeId}, ${kind}, ${now})
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
