-- The processor checkouts of these collections (at most one each).
SELECT collection_id, vendor_reference, url, attempts
FROM checkouts
WHERE collection_id = ANY(${ids}::bigint[])
