-- Who asked for and who decided one or more disbursements (dashboard users), for the dashboard's record.
SELECT id, email FROM users WHERE id = ANY(${ids}::int[])
