-- A processor's signed webhook naming a payout by our reference (Paystack's transfer.* events carry the
-- transfer's reference, which is ours): a prompt to ask about it now, also when COMPLETED (the event may
-- be transfer.reversed) while the check schedule lasts (${checksBound} queries), so prompts never ask without
-- end. A prompt only, never proof.
UPDATE disbursements SET next_check_at = ${now}
WHERE service_type = ${serviceType} AND reference = ${reference} AND (send_state IN ('sent', 'unknown') OR (status = 'COMPLETED' AND checks < ${checksBound}))
RETURNING id
