-- What a callback about a payout may fill in, read without trust: the processor's own id of the payout,
-- when none is known.
UPDATE disbursements SET vendor_reference = COALESCE(vendor_reference, ${vendorReference}) WHERE id = ${disbursementId}
