-- The dashboard's people lists page by keyset (issue 17): each filter is followed by the list's sort
-- key in one index, so a page is an index range scan, however far into the list it starts.
CREATE INDEX users_business_id ON users (business_id, id);
DROP INDEX users_business;
CREATE INDEX invitations_pending_business_id ON invitations (business_id, id) WHERE accepted_at IS NULL AND revoked_at IS NULL;
CREATE INDEX go_live_requests_requested ON go_live_requests (requested_at, business_id);
