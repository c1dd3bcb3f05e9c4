// The audit log: every change made through the operator API by a person or a key, with the record
// before and after. Secrets never enter it: a record is read as the columns listed here as fit to show
// (a column added later stays out until someone decides it may be shown), and any answer kept as
// "after" is stripped of secret fields first.
import { sqlFile } from '../db';
import type { Db, Queryable } from '../db';
import { ifRolledBack } from '../db/change';
import { where } from '../db/filters';
import type { FilterTable } from '../db/filters';
import { BY_ID, listPage } from '../db/keyset';
import type { ListPage, PageRequest } from '../db/keyset';
import { maskedAccountNumber } from '../domain/disbursement';
import { apiTime } from '../domain/time';
import type { Base } from '../base';

/** A wallet's or an API token's loosened guards that wait for their notice (merchants/guard-changes.ts), as its snapshot shows them. */
function scheduledSql(column: 'wallet_id' | 'api_token_id', value: 'value_minor' | 'value_cidrs'): string {
  return `(SELECT coalesce(jsonb_agg(jsonb_build_object('field', g.field, 'value', g.${value}, 'effective_at', g.effective_at, 'requested_by', g.requested_by) ORDER BY g.id), '[]'::jsonb)
             FROM guard_changes g WHERE g.${column} = t.id AND g.applied_at IS NULL AND g.withdrawn_at IS NULL) AS scheduled_changes`;
}

/**
 * Kinds of record the log can read, with the columns it may show. Never a sealed column (`*_enc`), a
 * hash of a secret or a TOTP step. A business carries its fees (`business_fees`), so a price change
 * shows in its entry.
 */
const SHOWN = {
  business: {
    table: 'businesses',
    columns: ['id', 'name', 'default_currency', 'rolling_reserve_percent', 'rolling_reserve_months', 'card_settlement_days', 'fee_bearer', 'disbursement_fee_percent', 'disbursement_fee_fixed_minor', 'disbursements_frozen', 'disbursement_approval_hours', 'verified_at', 'verified_by', 'verification_note', 'created_at', 'updated_at'],
    extra: `(SELECT coalesce(jsonb_agg(jsonb_build_object('payment_method', f.payment_method, 'percent', f.percent, 'fixed_minor', f.fixed_minor) ORDER BY f.payment_method), '[]'::jsonb)
             FROM business_fees f WHERE f.business_id = t.id) AS fees`,
  },
  api_token: {
    table: 'api_tokens',
    columns: ['id', 'business_id', 'api_key', 'generation', 'notification_email', 'webhook_url', 'email_merchant', 'email_user', 'ip_allowlist', 'secret_holder_user_id', 'created_at', 'updated_at'],
    extra: scheduledSql('api_token_id', 'value_cidrs'),
  },
  mid: {
    table: 'mids',
    columns: ['id', 'business_id', 'business_name', 'service_type', 'payment_method', 'currency', 'allowed_traffic', 'merchant_operator', 'merchant_username', 'credential_names', 'processing_rank', 'reject_first_time_depositors', 'active', 'created_at', 'updated_at'],
  },
  wallet: {
    table: 'wallets',
    columns: ['id', 'business_id', 'currency', 'is_default', 'disbursement_limit_minor', 'disbursement_daily_limit_minor', 'disbursement_approval_threshold_minor', 'created_at'],
    extra: scheduledSql('wallet_id', 'value_minor'),
  },
  user: {
    table: 'users',
    columns: ['id', 'email', 'name', 'role', 'business_id', 'totp_enabled_at', 'disabled_at', 'last_login_at', 'created_at'],
  },
  invitation: {
    table: 'invitations',
    columns: ['id', 'email', 'role', 'business_id', 'invited_by_user_id', 'invited_by_email', 'created_at', 'expires_at', 'accepted_at', 'revoked_at'],
  },
  payment_link: {
    table: 'payment_links',
    columns: ['id', 'link_id', 'business_id', 'title', 'state', 'deactivation_message', 'deactivated_at', 'updated_at'],
  },
  // an operator's decision on a reconciliation item: who asked, who approved, what was done and why
  reconciliation_item: {
    table: 'reconciliation_items',
    columns: ['id', 'mid_id', 'business_id', 'day', 'state', 'collection_id', 'reference', 'ours_minor', 'ours_currency', 'theirs_minor', 'theirs_currency', 'resolution', 'action', 'reason', 'requested_by', 'requested_at', 'approved_by', 'resolved_at'],
  },
} satisfies Record<string, { table: string; columns: string[]; extra?: string }>;
export type TargetType = keyof typeof SHOWN | 'collection' | 'refund' | 'disbursement' | 'fx_rate' | 'card_key' | 'session' | 'go_live_request';

/** The statement reading one record of `type` as the log shows it. */
function snapshotSql(type: keyof typeof SHOWN): string {
  const shown: { table: string; columns: string[]; extra?: string } = SHOWN[type];
  const columns = [...shown.columns.map((c) => `t.${c}`), ...(shown.extra ? [shown.extra] : [])].join(', ');
  return `SELECT to_jsonb(r) AS j FROM (SELECT ${columns} FROM ${shown.table} t WHERE t.id = $1) r`;
}
const SNAPSHOT_SQL = Object.fromEntries(Object.keys(SHOWN).map((k) => [k, snapshotSql(k as keyof typeof SHOWN)])) as Record<keyof typeof SHOWN, string>;

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

/**
 * A disbursement's record as the log keeps it: the payee's number masked (as the owners' emails show it),
 * since the log is read by more people than may see a payee's whole account.
 */
function maskedPayee(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const v = value as Record<string, unknown>;
  return typeof v.account_number === 'string' ? { ...v, account_number: maskedAccountNumber(v.account_number) } : value;
}

export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !SECRET_FIELDS.has(k)).map(([k, v]) => [k, withoutSecrets(v)]));
}

/** Who made a change: a person (also one just signing in), the operator key, or nobody signed in (a refused sign-in). */
export type AuditActor = { type: 'operator_key' } | { type: 'anonymous' } | { type: 'user'; user: { id: number; email: string } };

/**
 * A refused attempt on a person's account (a wrong password or code) or a password-reset request.
 * `attempt` says what was tried, never with what: the email given, why it was refused, the client address.
 */
export interface AccountAttempt {
  action: 'loginFailed' | 'verifyTotpFailed' | 'startTotpEnrolmentFailed' | 'confirmTotpEnrolmentFailed' | 'changeOwnPasswordFailed' | 'requestPasswordReset' | 'disbursementCodeRefused' | 'approvalCodeRefused';
  /** the person tried, when the email is theirs; whoever tried, when signed in */
  user: { id: number; email: string; business_id: number | null } | null;
  /** a session's own person made it (a wrong code while signed in), or nobody signed in */
  bySessionOf: boolean;
  attempt: Record<string, string | boolean | null>;
}

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
  actor_type: 'user' | 'operator_key' | 'anonymous' | 'api_token';
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

/** The audit log's filters: null or absent for none; `from` and `to` are inclusive bounds on `at`, to the second. */
export interface AuditFilter {
  businessId: number | null;
  actorUserId: number | null;
  action?: string;
  from?: Date;
  to?: Date;
}

/** The audit list's filters (src/db/filters.ts): only the conditions given, so each can use its index (business, actor, action, at). */
const AUDIT_FILTERS: FilterTable<AuditFilter> = [
  { field: 'businessId', column: 'business_id', operator: '=' },
  { field: 'actorUserId', column: 'actor_user_id', operator: '=' },
  { field: 'action', column: 'action', operator: '=' },
  { field: 'from', column: 'at', operator: '>=' },
  // times are whole seconds in the API: `to` takes in the whole of its second
  { field: 'to', column: 'at', operator: '<', value: (to: Date) => new Date(to.getTime() + 1000) },
];

const TOKEN_ACTION_SQL = sqlFile(__dirname, 'token-action.sql');

export class AuditService {
  constructor(private readonly s: Base) {}

  /** The record as the log keeps it (the columns fit to show), or null when there is none. */
  async snapshot(type: TargetType, id: string | number, db: Db = this.s.db): Promise<Record<string, unknown> | null> {
    if (!(type in SHOWN)) return null;
    const row = await db.oneOrNone<{ j: Record<string, unknown> }>(SNAPSHOT_SQL[type as keyof typeof SHOWN], [Number(id)]);
    return row?.j ?? null;
  }

  /**
   * Records an attempt on an account (refused, or a reset request). A refused one fails its request, so
   * the change around it (if any) rolls back: the entry is then written again outside it. Attempts refused by the sign-in throttle are not checked and not
   * recorded, which bounds the entries to the throttle's 10 a minute per email and per client address.
   */
  async attempted(r: AccountAttempt): Promise<void> {
    const entry: AuditEntryInput = {
      actor: r.bySessionOf && r.user ? { type: 'user', user: r.user } : { type: 'anonymous' },
      action: r.action,
      businessId: r.user?.business_id ?? null,
      targetType: r.user ? 'user' : null,
      targetId: r.user ? String(r.user.id) : null,
      before: null,
      after: r.attempt,
      requestId: null,
    };
    await this.record(entry);
    ifRolledBack(() => this.record(entry));
  }

  /**
   * An API token's action (a refund or a disbursement it asked for, a call refused for its address), in
   * the caller's transaction; target null names the token itself.
   */
  async tokenAction(t: Queryable, a: { apiTokenId: number; action: string; targetType: string; targetId: string | null; after: unknown; requestId: string | null; now: Date }): Promise<void> {
    await t.none(TOKEN_ACTION_SQL, { ...a, after: JSON.stringify(a.after) });
  }

  /** Deletes up to `limit` audit entries, oldest first, older than `before` (retention). */
  async deleteOld(before: Date, limit: number): Promise<number> {
    return (await this.s.db.result('DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < $1 ORDER BY at LIMIT $2)', [before, limit])).rowCount;
  }

  /** One entry, in `t` when given (the caller's transaction), else in the open change or the pool. */
  async record(e: AuditEntryInput, t: Queryable = this.s.db): Promise<void> {
    const user = e.actor.type === 'user' ? e.actor.user : null;
    const shown = (v: unknown) => JSON.stringify(withoutSecrets(e.targetType === 'disbursement' ? maskedPayee(v) : v));
    await t.none(
      `INSERT INTO audit_log (at, actor_type, actor_user_id, actor_email, action, business_id, target_type, target_id, before, after, request_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        this.s.now(),
        e.actor.type,
        user?.id ?? null,
        user?.email ?? null,
        e.action,
        e.businessId,
        e.targetType,
        e.targetId,
        e.before === null || e.before === undefined ? null : shown(e.before),
        e.after === null || e.after === undefined ? null : shown(e.after),
        e.requestId,
      ],
    );
  }

  /** Newest first, filtered (AUDIT_FILTERS). */
  async list(filter: AuditFilter, page: PageRequest): Promise<ListPage<ReturnType<typeof entryRecord>>> {
    const w = where(AUDIT_FILTERS, filter);
    const found = await listPage<AuditRow>(this.s.db, { sql: `SELECT * FROM audit_log WHERE ${w.text}`, values: w.values, key: BY_ID, direction: 'DESC' }, page);
    return { ...found, rows: found.rows.map(entryRecord) };
  }
}
