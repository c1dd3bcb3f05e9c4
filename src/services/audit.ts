// The audit log: every change made through the operator API by a person or a key, with the record
// before and after. Secrets never enter it: records are read without their secret columns, and any
// answer kept as "after" is stripped of secret fields first.
import type { Db } from '../db';
import { BY_ID, listPage } from '../db/keyset';
import type { ListPage, PageRequest } from '../db/keyset';
import { apiTime } from '../domain/time';
import type { Base } from './index';

/** Kinds of record the log can read, with the columns that must never be copied into it. */
const TABLES = {
  business: { table: 'businesses', secrets: [] as string[] },
  api_token: { table: 'api_tokens', secrets: ['secret_hash', 'webhook_hash_enc'] },
  mid: { table: 'mids', secrets: ['merchant_password_enc'] },
  user: { table: 'users', secrets: ['password_hash', 'totp_secret_enc', 'totp_pending_secret_enc', 'totp_last_step'] },
  invitation: { table: 'invitations', secrets: ['token_hash'] },
} as const;
export type TargetType = keyof typeof TABLES | 'collection' | 'wallet' | 'fx_rate' | 'card_key' | 'session' | 'go_live_request';

/** Field names whose values are secrets wherever they appear in an answer. */
const SECRET_FIELDS = new Set([
  'api_secret',
  'webhook_hash',
  'merchant_password',
  'password',
  'new_password',
  'current_password',
  'secret',
  'otpauth_url',
  'recovery_codes',
  'recovery_code',
  'code',
  'csrf_token',
  'token',
  'private_pem',
]);

export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !SECRET_FIELDS.has(k)).map(([k, v]) => [k, withoutSecrets(v)]));
}

/** Who made a change: a person (also one just signing in) or the operator key. */
export type AuditActor = { type: 'operator_key' } | { type: 'user'; user: { id: number; email: string } };

export interface AuditEntryInput {
  actor: AuditActor;
  action: string;
  businessId: number | null;
  targetType: TargetType | null;
  targetId: string | null;
  before: unknown;
  after: unknown;
  requestId: string | null;
}

interface AuditRow {
  id: bigint;
  at: Date;
  actor_type: 'user' | 'operator_key';
  actor_user_id: number | null;
  actor_email: string | null;
  action: string;
  business_id: number | null;
  target_type: string | null;
  target_id: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  request_id: string | null;
}

function entryRecord(r: AuditRow) {
  return {
    id: Number(r.id),
    at: apiTime(r.at),
    actor: { type: r.actor_type, user_id: r.actor_user_id, email: r.actor_email },
    action: r.action,
    business_id: r.business_id,
    target_type: r.target_type,
    target_id: r.target_id,
    before: r.before,
    after: r.after,
    request_id: r.request_id,
  };
}

export class AuditService {
  constructor(private readonly s: Base) {}

  /** The record as the log keeps it (no secret column), or null when there is none. */
  async snapshot(type: TargetType, id: string | number, db: Db = this.s.db): Promise<Record<string, unknown> | null> {
    if (!(type in TABLES)) return null;
    const { table, secrets } = TABLES[type as keyof typeof TABLES];
    const row = await db.oneOrNone<{ j: Record<string, unknown> }>('SELECT to_jsonb(t) - $2::text[] AS j FROM $1:name t WHERE t.id = $3', [
      table,
      secrets,
      Number(id),
    ]);
    return row?.j ?? null;
  }

  async record(e: AuditEntryInput): Promise<void> {
    const user = e.actor.type === 'user' ? e.actor.user : null;
    await this.s.db.none(
      `INSERT INTO audit_log (at, actor_type, actor_user_id, actor_email, action, business_id, target_type, target_id, before, after, request_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        this.s.now(),
        user ? 'user' : 'operator_key',
        user?.id ?? null,
        user?.email ?? null,
        e.action,
        e.businessId,
        e.targetType,
        e.targetId,
        e.before === null || e.before === undefined ? null : JSON.stringify(withoutSecrets(e.before)),
        e.after === null || e.after === undefined ? null : JSON.stringify(withoutSecrets(e.after)),
        e.requestId,
      ],
    );
  }

  /** Newest first. */
  async list(filter: { businessId: number | null; actorUserId: number | null }, page: PageRequest): Promise<ListPage<ReturnType<typeof entryRecord>>> {
    const sql = 'SELECT * FROM audit_log WHERE ($1::int IS NULL OR business_id = $1) AND ($2::int IS NULL OR actor_user_id = $2)';
    const found = await listPage<AuditRow>(this.s.db, { sql, values: [filter.businessId, filter.actorUserId], key: BY_ID, direction: 'DESC' }, page);
    return { ...found, rows: found.rows.map(entryRecord) };
  }
}
