-- The notifications' part of request-to-pay's write (collections/sql/create.sql, which includes it as
-- ${@startEmails} in its one statement, followed by collection-emails-cte.sql): the start notices of each new
-- collection, valued by NotificationService.startEmails, due when it was made. It reads the statement's
-- `made` (the new rows, n their place).
email_owner AS (SELECT m.n, m.id, m.created_at AS due_at FROM made m)
