-- At most one current card key: processes that start or rotate together cannot both install one.
CREATE UNIQUE INDEX card_keys_one_current ON card_keys ((retired_at IS NULL)) WHERE retired_at IS NULL;

-- A key is retired and given its end of grace together.
ALTER TABLE card_keys ADD CONSTRAINT card_keys_retired_has_expiry CHECK ((retired_at IS NULL) = (expires_at IS NULL));
