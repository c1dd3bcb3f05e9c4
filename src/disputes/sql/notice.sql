-- A dispute as its merchant webhook tells it (docs/contract/disputes.md, "The merchant is told"): the record
-- the API shows, the API token that asked for the disputed payment (whose webhook_url is told; none: nobody),
-- and the dispute's next notification sequence. Read under the dispute's row lock, taken by its writer in
-- the same transaction, so two notifications of one dispute never take one sequence.
SELECT d.id, d.collection_id, d.gateway_reference, c.gateway_reference AS collection_gateway_reference, d.stage, d.status, d.reason, d.amount_minor,
       d.currency, d.held_minor, d.debited_minor, d.refunded_minor, w.currency AS account_currency, d.deadline_at, d.resolution,
       d.opened_at, d.closed_at, c.api_token_id,
       (SELECT COALESCE(max(n.sequence), 0) + 1 FROM notifications n WHERE n.dispute_id = d.id)::int AS sequence
FROM disputes d JOIN collections c ON c.id = d.collection_id JOIN wallets w ON w.id = d.wallet_id
WHERE d.id = ${id}
