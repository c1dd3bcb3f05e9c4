-- The postings of these collections' journals, each collection's in the order they were written: the
-- operator's list reads a page's postings at once, not a page's worth of reads.
SELECT j.collection_id, p.id, p.journal_id, c.gateway_reference, a.kind AS account, p.amount_minor, p.currency, p.kind, p.created_at
FROM postings p
JOIN journals j ON j.id = p.journal_id
JOIN collections c ON c.id = j.collection_id
JOIN ledger_accounts a ON a.id = p.account_id
WHERE j.collection_id = ANY(${ids}::bigint[])
ORDER BY j.collection_id, p.id
