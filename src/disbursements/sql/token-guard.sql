-- What the guard of a disbursement call reads of the API token: its secret's hash (checked by the caller
-- with argon2), and whether it has an IP allowlist and the caller's address is on it. ${address} is NULL
-- when the caller's address could not be read (then it is on no list).
SELECT t.secret_hash, t.ip_allowlist IS NOT NULL AS has_allowlist,
  COALESCE(${address}::inet <<= ANY(t.ip_allowlist), false) AS address_allowed
FROM api_tokens t WHERE t.id = ${apiTokenId}
