-- What the collection's refunds that count against it add up to: up when one is written, down when one
-- fails or is cancelled. The table's check refuses anything above the request amount or below zero.
UPDATE collections SET refunded_minor = refunded_minor + ${deltaMinor} WHERE id = ${collectionId}
