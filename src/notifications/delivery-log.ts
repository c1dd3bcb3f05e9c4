// The read side of the outbox: a collection's notifications with their attempts (NotificationLogEntry)
// and the operator's list of failing webhooks (FailingWebhook).
import type { Db, Tx } from '../db';
import { listPage } from '../db/keyset';
import type { KeyColumn, PageRequest } from '../db/keyset';
import type { Status } from '../domain/collection';
import { apiTime, apiTimeOrNull } from '../domain/time';

/** Attempts listed per notification: the most recent ones (re-sends can add attempts without end). */
export const MAX_ATTEMPTS_LISTED = 100;

interface NotificationRow {
  id: bigint;
  event_id: string;
  sequence: number;
  transaction_status: Status;
  created_at: Date;
  delivered_at: Date | null;
  gave_up_at: Date | null;
  next_attempt_at: Date | null;
}

interface AttemptRow {
  notification_id: bigint;
  attempt: number;
  at: Date;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
  response_body: string | null;
}

function attemptOf(a: AttemptRow) {
  return {
    attempt: a.attempt,
    at: apiTime(a.at),
    http_status: a.http_status,
    error: a.error,
    duration_ms: a.duration_ms,
    response_body: a.response_body,
  };
}

export type NotificationLogEntry = ReturnType<typeof entryOf>;

function entryOf(n: NotificationRow, attempts: AttemptRow[]) {
  const settled = n.delivered_at !== null || n.gave_up_at !== null;
  return {
    event_id: n.event_id,
    sequence: n.sequence,
    transaction_status: n.transaction_status,
    created_at: apiTime(n.created_at),
    delivered: n.delivered_at !== null,
    delivered_at: apiTimeOrNull(n.delivered_at),
    next_attempt_at: settled ? null : apiTimeOrNull(n.next_attempt_at),
    attempts: attempts.filter((a) => a.notification_id === n.id).map(attemptOf),
  };
}

const NOTIFICATION_COLUMNS = 'n.id, n.event_id, n.sequence, n.transaction_status, n.created_at, n.delivered_at, n.gave_up_at, n.next_attempt_at';

async function withAttempts(db: Db | Tx, rows: NotificationRow[]): Promise<NotificationLogEntry[]> {
  if (rows.length === 0) return [];
  const attempts = await db.any<AttemptRow>(
    `SELECT notification_id, attempt, at, http_status, error, duration_ms, response_body FROM (
       SELECT a.*, row_number() OVER (PARTITION BY notification_id ORDER BY attempt DESC, id DESC) AS recent
       FROM notification_attempts a WHERE notification_id IN ($1:csv)) x
     WHERE recent <= $2 ORDER BY notification_id, attempt, id`,
    [rows.map((r) => r.id), MAX_ATTEMPTS_LISTED],
  );
  return rows.map((n) => entryOf(n, attempts));
}

/** Every notification of one collection, oldest first. */
export async function logOfCollection(db: Db | Tx, collectionId: bigint): Promise<NotificationLogEntry[]> {
  const rows = await db.any<NotificationRow>(
    `SELECT ${NOTIFICATION_COLUMNS} FROM notifications n WHERE n.collection_id = $1 AND n.refund_id IS NULL AND n.dispute_id IS NULL ORDER BY n.sequence, n.id`,
    [collectionId],
  );
  return withAttempts(db, rows);
}

export async function logOfNotification(db: Db | Tx, notificationId: bigint): Promise<NotificationLogEntry> {
  const row = await db.one<NotificationRow>(`SELECT ${NOTIFICATION_COLUMNS} FROM notifications n WHERE n.id = $1`, [notificationId]);
  return (await withAttempts(db, [row]))[0];
}

interface FailingRow {
  api_token_id: number;
  business_id: number;
  webhook_url: string;
  undelivered: number;
  oldest_undelivered_at: Date;
  last_error: string | null;
  last_attempt_at: Date | null;
}

// Per API token: its undelivered notifications, provided at least one of them has a failed attempt.
const FAILING_FROM = `
  FROM (
    SELECT api_token_id, count(*)::int AS undelivered, min(created_at) AS oldest
    FROM notifications WHERE delivered_at IS NULL AND api_token_id IS NOT NULL
    GROUP BY api_token_id
  ) u
  JOIN api_tokens t ON t.id = u.api_token_id
  JOIN LATERAL (
    SELECT a.at, a.error FROM notification_attempts a JOIN notifications n ON n.id = a.notification_id
    WHERE n.api_token_id = u.api_token_id AND n.delivered_at IS NULL AND a.error IS NOT NULL
    ORDER BY a.at DESC, a.id DESC LIMIT 1
  ) l ON true`;

/** Oldest undelivered first; the key is (oldest undelivered notification, API token). */
const FAILING_ORDER: KeyColumn[] = [
  { column: 'oldest_undelivered_at', type: 'timestamptz' },
  { column: 'api_token_id', type: 'bigint' },
];

export async function failingWebhooks(db: Db, page: PageRequest) {
  const sql = `SELECT t.id AS api_token_id, t.business_id, t.webhook_url, u.undelivered, u.oldest AS oldest_undelivered_at,
            l.error AS last_error, l.at AS last_attempt_at
     ${FAILING_FROM}`;
  const listed = await listPage<FailingRow>(db, { sql, values: [], key: FAILING_ORDER, direction: 'ASC' }, page);
  const rows = listed.rows.map((r) => ({
    api_token_id: r.api_token_id,
    business_id: r.business_id,
    webhook_url: r.webhook_url,
    undelivered: r.undelivered,
    oldest_undelivered_at: apiTime(r.oldest_undelivered_at),
    last_error: r.last_error,
    last_attempt_at: apiTimeOrNull(r.last_attempt_at),
  }));
  return { ...listed, rows };
}
