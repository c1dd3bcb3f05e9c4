-- What the refunds of a collection that still count against what was paid (not FAILED or CANCELLED) take
-- from the wallet, in its currency. Run after lock-collection.sql, as its own statement: the collection's
-- lock orders every refund written or returned for it, and a new statement sees what the last one committed.
SELECT COALESCE(SUM(account_amount_minor), 0)::bigint AS refunded_account_minor
FROM refunds
WHERE collection_id = ${collectionId} AND status NOT IN ('FAILED', 'CANCELLED')
