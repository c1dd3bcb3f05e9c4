-- What a callback about a refund may fill in, read without trust: the processor's own id of the refund,
-- when none is known.
UPDATE refunds SET vendor_reference = COALESCE(vendor_reference, ${vendorReference}) WHERE id = ${refundId}
