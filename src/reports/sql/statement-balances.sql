-- A wallet's balance per account kind at ${from} and at ${to}, how many lines the statement has between
-- them and the total balance at ${at} (the start of a page: ${from}, or after the cursor's line), in one
-- snapshot: the running balances (migration 0030) less what was posted since each time, so the wallet's
-- older history is never read.
WITH accounts AS (
  SELECT id, kind FROM ledger_accounts WHERE wallet_id = ${wallet_id}
), now_balance AS (
  SELECT a.kind, COALESCE(SUM(b.balance_minor), 0) AS minor
  FROM accounts a LEFT JOIN account_balances b ON b.account_id = a.id
  GROUP BY a.kind
), since AS (
  SELECT a.kind,
    SUM(p.amount_minor) AS since_from,
    SUM(p.amount_minor) FILTER (WHERE p.created_at >= ${to}) AS since_to,
    SUM(p.amount_minor) FILTER (WHERE (p.created_at, p.journal_id) <= (${at}::timestamptz, ${at_journal}::bigint)) AS to_at
  FROM accounts a JOIN postings p ON p.account_id = a.id
  WHERE p.created_at >= ${from}
  GROUP BY a.kind
)
SELECT n.kind,
  (n.minor - COALESCE(s.since_from, 0))::bigint AS opening_minor,
  (n.minor - COALESCE(s.since_to, 0))::bigint AS closing_minor,
  (n.minor - COALESCE(s.since_from, 0) + COALESCE(s.to_at, 0))::bigint AS at_minor,
  (SELECT count(DISTINCT (p.created_at, p.journal_id))::int FROM accounts a JOIN postings p ON p.account_id = a.id
   WHERE p.created_at >= ${from} AND p.created_at < ${to}) AS lines
FROM now_balance n LEFT JOIN since s ON s.kind = n.kind
ORDER BY n.kind
