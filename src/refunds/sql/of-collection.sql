-- Every refund of one collection, newest first, as the record shows it: the operator API's list of them
-- and the refunds in short of a single collection read (refunds_collection finds them).
SELECT r.*, c.gateway_reference AS collection_gateway_reference
FROM refunds r JOIN collections c ON c.id = r.collection_id
WHERE r.collection_id = ${collectionId}
ORDER BY r.created_at DESC, r.id DESC
