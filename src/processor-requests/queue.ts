// The queue of requests to processors, every kind's (engine.ts): the statements the engine runs on a
// kind's rows, composed once from its adapter's QueueShape into constant text. A claim takes what is due
// with FOR UPDATE SKIP LOCKED, pushes its clock past the calls' deadlines (the lease: no other process
// claims it meanwhile) and names this process; a claim whose process stopped beating (workers/liveness.ts)
// is due at once, so a dead process's requests are taken over within a heartbeat, not at the lease's end.
// A send's claim marks a queued request 'sending' before any call, while its owner still waits for it.
import type { QueueShape, RequestKind } from '../processors/requests';

/** What is due on a clock: its time has come, or its claim's process stopped beating (its lease notwithstanding). */
function dueOn(clock: string, key: string): string {
  return `WHERE r.${clock} IS NOT NULL AND (r.${clock} <= \${now} OR (r.claimed_by IS NOT NULL AND r.claimed_by <> \${processId}
    AND NOT EXISTS (SELECT 1 FROM worker_processes w WHERE w.id = r.claimed_by AND w.heartbeat_at >= \${staleBefore})))
  ORDER BY r.${clock}, r.${key} LIMIT \${limit} FOR UPDATE SKIP LOCKED`;
}

/**
 * A claim on one clock: sends (next_send_at, send_attempts, the 'sending' mark) or status queries
 * (next_check_at, checks), of what `due` picks (FOR UPDATE) among the kind's rows `r`.
 */
function claimSql(q: QueueShape, send: boolean, due: string): string {
  const [clock, counter] = send ? ['next_send_at', 'send_attempts'] : ['next_check_at', 'checks'];
  const mark = send ? `, ${q.state} = CASE WHEN q.${q.state} = 'queued' AND (${q.sendable}) THEN 'sending' ELSE q.${q.state} END` : '';
  return `WITH due AS (
  SELECT r.${q.key} AS id, r.${q.state} AS state FROM ${q.table} r
  ${due}
)
UPDATE ${q.table} q SET ${clock} = \${leaseEnd}, ${counter} = q.${counter} + 1, claimed_by = \${processId}${mark}
FROM due${q.from}
WHERE q.${q.key} = due.id${q.where}
RETURNING ${q.returning}, q.${q.key} AS id, q.${q.state} AS state, q.service_type, q.mid_id, q.reference, q.callback_token,
  q.vendor_reference, q.send_attempts, q.checks, q.next_send_at, q.next_check_at, q.last_error, q.trace_parent,
  (SELECT m.credentials_enc FROM mids m WHERE m.id = q.mid_id) AS credentials_enc, (${q.watch}) AS watch,
  ${send ? "due.state = 'sending'" : 'false'} AS was_sending`;
}

/** This kind's part of the callback lookup: its request with the callback's token, if any. */
function lookupSql(kind: RequestKind, q: QueueShape): string {
  return `SELECT '${kind}' AS kind, q.${q.key} AS id, q.${q.state} AS state, (${q.ownerStatus})::text AS status, q.checks,
    q.vendor_reference, (${q.watch}) AS watch
  FROM ${q.table} q${q.from}
  WHERE q.callback_token = \${callbackToken} AND q.service_type = \${serviceType}${q.where}`;
}

/** A status query brought forward to now (never later than it was due). */
function askSoonSql(q: QueueShape): string {
  return `UPDATE ${q.table} SET next_check_at = LEAST(COALESCE(next_check_at, \${now}), \${now}) WHERE ${q.key} = \${id}`;
}

export interface KindStatements {
  claimSends: string;
  claimChecks: string;
  claimOne: string;
  askSoon: string;
}

export function kindStatements(q: QueueShape): KindStatements {
  return {
    claimSends: claimSql(q, true, dueOn('next_send_at', q.key)),
    claimChecks: claimSql(q, false, dueOn('next_check_at', q.key)),
    // one request asked about now: it waits for a concurrent claim rather than skip it
    claimOne: claimSql(q, false, `WHERE r.${q.key} = \${id} AND r.${q.state} IN ('sent', 'unknown') FOR UPDATE`),
    askSoon: askSoonSql(q),
  };
}

/** The one callback lookup: every kind's part, in one read. */
export function callbackLookupSql(kinds: readonly { kind: RequestKind; queue: QueueShape }[]): string {
  return kinds.map((k) => lookupSql(k.kind, k.queue)).join('\nUNION ALL\n');
}
