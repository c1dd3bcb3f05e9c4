-- Built data for `npm run bench -- --scale`: ${journals} balanced journals of two postings each on one
-- wallet, moving 1 minor unit between its available (${available}) and reserved (${reserved}) accounts
-- and back in turn, so the wallet gains postings but its balance stays where it was (and never negative
-- when available holds at least 1).
WITH j AS (
  INSERT INTO journals (kind) SELECT 'settlement' FROM generate_series(1, ${journals}) RETURNING id
)
INSERT INTO postings (journal_id, account_id, amount_minor, currency, kind)
SELECT j.id, side.account_id, CASE WHEN j.id % 2 = 0 THEN side.amount ELSE -side.amount END, ${currency}, 'settlement'
FROM j CROSS JOIN (VALUES (${available}::int, -1), (${reserved}::int, 1)) AS side (account_id, amount)
