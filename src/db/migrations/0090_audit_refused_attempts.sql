-- Refused sign-ins, wrong second-factor codes and password-reset requests are recorded in the audit log
-- so an operator can see them; a refused sign-in or a reset request is made by nobody signed in, which
-- the log names 'anonymous'.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_actor_type_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_actor_type_check CHECK (actor_type IN ('user', 'operator_key', 'anonymous'));
