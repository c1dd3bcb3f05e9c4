-- A second operator's approval of a resolution waiting for one (resolutions.ts): taken once, by a person
-- other than who asked. Of two approvals at once the row lock lets one through; the other finds it resolved
-- and changes nothing.
UPDATE reconciliation_items SET resolution = 'resolved', approved_by = ${by}, resolved_at = ${now}
WHERE id = ${id} AND resolution = 'awaiting_approval' AND requested_by <> ${by}
RETURNING *
