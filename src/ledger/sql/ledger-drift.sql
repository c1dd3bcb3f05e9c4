-- What `npm run ledger:check` reports; no rows when the ledger is sound. One statement, so both sides
-- are read in one snapshot:
--  * 'balance': an account whose running balance (the sum of its account_balances slots) is not the
--    sum of its postings;
--  * 'journal': a journal whose postings do not sum to zero in a currency;
--  * 'negative': a wallet's account (available, pending, reserved, refund_hold, disbursement_hold) whose postings sum below
--    zero: money that left a wallet it was not in (a refund is taken from available only when it is there).
--    An open dispute may take available below zero (the merchant owes it: docs/contract/disputes.md), so
--    available is counted without its dispute postings, which only ever take from it what they return.
WITH recorded AS (
  SELECT account_id, SUM(balance_minor) AS minor FROM account_balances GROUP BY account_id
), recomputed AS (
  SELECT account_id, SUM(amount_minor) AS minor,
         SUM(amount_minor) FILTER (WHERE kind NOT IN ('dispute_hold', 'dispute_release', 'dispute_debit')) AS undisputed
  FROM postings GROUP BY account_id
)
SELECT 'balance' AS problem, a.id AS account_id, a.wallet_id, a.currency, a.kind, NULL::bigint AS journal_id,
       COALESCE(r.minor, 0)::bigint AS recorded_minor, COALESCE(p.minor, 0)::bigint AS recomputed_minor
FROM ledger_accounts a
LEFT JOIN recorded r ON r.account_id = a.id
LEFT JOIN recomputed p ON p.account_id = a.id
WHERE COALESCE(r.minor, 0) <> COALESCE(p.minor, 0)
UNION ALL
SELECT 'journal', NULL, NULL, currency, NULL, journal_id, SUM(amount_minor)::bigint, 0::bigint
FROM postings
GROUP BY journal_id, currency
HAVING SUM(amount_minor) <> 0
UNION ALL
SELECT 'negative', a.id, a.wallet_id, a.currency, a.kind, NULL, COALESCE(r.minor, 0)::bigint, p.minor::bigint
FROM ledger_accounts a
JOIN recomputed p ON p.account_id = a.id
LEFT JOIN recorded r ON r.account_id = a.id
WHERE a.wallet_id IS NOT NULL AND (CASE WHEN a.kind = 'available' THEN COALESCE(p.undisputed, 0) ELSE p.minor END) < 0
ORDER BY problem, account_id, journal_id
