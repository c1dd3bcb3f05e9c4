// Changing the guards of money out (docs/contract/disbursements.md, "Changing the guards"): a wallet's
// approval threshold and limits, an API token's IP allowlist. A change that loosens one (raising or
// removing a threshold or a limit, widening an allowlist) is not made at once: it waits
// DISBURSEMENT_GUARD_NOTICE_HOURS, and every owner of the business is told by email when it is asked for,
// so one person cannot quietly take a guard away and move money the next minute. A change that tightens
// one applies at once and withdraws a loosening of the same setting that waits (so setting a guard to what
// it is now is how an owner stops one). The `guard-changes` worker applies what is due.
import { sqlFiles } from '../db';
import type { Tx } from '../db';
import { emailTime, apiTime } from '../domain/time';
import { toApi } from '../domain/money';
import { moneyText } from '../domain/currencies';
import type { OwnersEmail } from '../notifications/notifications';
import type { Base } from '../base';
import type { ScheduledGuardChange } from '../api-records/merchant';
import type { WorkerSpec } from '../workers/loops';

const SQL = sqlFiles(__dirname, ['guard-schedule', 'guard-withdraw', 'guard-scheduled', 'guard-due']);

/** Changes applied per worker run. */
const BATCH = 50;

export type WalletGuard = 'disbursement_limit_minor' | 'disbursement_daily_limit_minor' | 'disbursement_approval_threshold_minor';
export type GuardField = WalletGuard | 'ip_allowlist';

/** What a guard is called in the API and in the owners' email. */
const NAMES: Record<GuardField, { api: ScheduledChange['field']; words: string }> = {
  disbursement_limit_minor: { api: 'disbursement_limit', words: 'largest disbursement' },
  disbursement_daily_limit_minor: { api: 'disbursement_daily_limit', words: 'daily disbursement limit' },
  disbursement_approval_threshold_minor: { api: 'disbursement_approval_threshold', words: 'approval threshold' },
  ip_allowlist: { api: 'ip_allowlist', words: 'IP allowlist' },
};

/** Who asks for a change: a signed-in person (their email), or the operator key. */
export interface Requester {
  userId: number | null;
  name: string;
}

/** A wallet's or an API token's guard, and what its value is to become. */
export type GuardTarget =
  | { businessId: number; walletId: number; currency: string; field: WalletGuard; valueMinor: bigint | null }
  | { businessId: number; apiTokenId: number; apiKey: string; field: 'ip_allowlist'; cidrs: string[] | null };

type ScheduledChange = ScheduledGuardChange;

/** A loosened guard applied, as the audit log keeps it (the people wing writes it) under who asked. */
export interface AppliedEntry {
  actor: { type: 'operator_key' } | { type: 'user'; user: { id: number; email: string } };
  action: 'applyScheduledGuardChange';
  businessId: number;
  targetType: 'wallet' | 'api_token';
  targetId: string;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  requestId: null;
}

interface ScheduledRow {
  wallet_id: number | null;
  api_token_id: number | null;
  field: GuardField;
  value_minor: bigint | null;
  value_cidrs: string[] | null;
  requested_by: string;
  requested_at: Date;
  effective_at: Date;
}

interface DueRow {
  id: bigint;
  business_id: number;
  wallet_id: number | null;
  api_token_id: number | null;
  field: GuardField;
  value_minor: bigint | null;
  value_cidrs: string[] | null;
  requested_by_user_id: number | null;
  requested_by: string;
  requested_at: Date;
}

const valueWords = (t: GuardTarget): string =>
  'cidrs' in t ? (t.cidrs === null ? 'no list' : t.cidrs.join(', ')) : t.valueMinor === null ? 'none' : moneyText(t.valueMinor, t.currency);

const targetWords = (t: GuardTarget): string => ('cidrs' in t ? `API token ${t.apiKey}` : `${t.currency} wallet`);

export class GuardChanges {
  constructor(private readonly s: Base & { emailOwners: (t: Tx, e: OwnersEmail) => Promise<void>; audit: (t: Tx, e: AppliedEntry) => Promise<void> }) {}

  /**
   * A loosening, scheduled in `t` (whose caller holds the business's lock): it takes effect after the
   * notice, every owner told now; a loosening of the same setting that waited is replaced. Returns when.
   */
  async schedule(t: Tx, target: GuardTarget, by: Requester, businessName: string): Promise<Date> {
    const now = this.s.now();
    const effectiveAt = new Date(now.getTime() + this.s.config.disbursementGuardNoticeHours * 3_600_000);
    const what = `${NAMES[target.field].words} of the ${targetWords(target)}`;
    const subject = `${businessName}: the ${what} changes on ${emailTime(effectiveAt)} unless an owner stops it`;
    const text = [
      `${by.name} asked on ${emailTime(now)} to change the ${what} of ${businessName} to: ${valueWords(target)}.`,
      '',
      `This loosens a guard of money out, so it takes effect only on ${emailTime(effectiveAt)}, and every owner`,
      'of the business gets this email. Lowering a guard, or setting it to what it is now, applies at once and',
      'withdraws this change.',
      '',
      'If nobody agreed to this, any owner can stop it in the dashboard before then (Balances for a wallet,',
      'API tokens for an allowlist), and should ask why it was asked for.',
    ].join('\n');
    await t.none(SQL.guardSchedule, {
      now, effectiveAt, businessId: target.businessId, field: target.field, userId: by.userId, requestedBy: by.name,
      walletId: 'walletId' in target ? target.walletId : null,
      apiTokenId: 'apiTokenId' in target ? target.apiTokenId : null,
      valueMinor: 'valueMinor' in target ? target.valueMinor : null,
      valueCidrs: 'cidrs' in target ? target.cidrs : null,
    });
    await this.s.emailOwners(t, { businessId: target.businessId, exceptUserId: null, kind: 'guard_change_scheduled', subject, text, now });
    this.s.kick('emails');
    return effectiveAt;
  }

  /** A setting changed at once (tightened, or set to what it is): a loosening of it that waits is withdrawn. */
  async withdraw(t: Tx, target: { walletId: number; field: WalletGuard } | { apiTokenId: number; field: 'ip_allowlist' }): Promise<void> {
    await t.none(SQL.guardWithdraw, {
      now: this.s.now(), field: target.field,
      walletId: 'walletId' in target ? target.walletId : null,
      apiTokenId: 'apiTokenId' in target ? target.apiTokenId : null,
    });
  }

  /** The loosenings that wait, per wallet and per API token, oldest first. */
  async waiting(t: Pick<Tx, 'any'>, ids: { walletIds?: number[]; apiTokenIds?: number[] }): Promise<{ wallets: Map<number, ScheduledChange[]>; apiTokens: Map<number, ScheduledChange[]> }> {
    const rows = await t.any<ScheduledRow>(SQL.guardScheduled, { walletIds: ids.walletIds ?? [], apiTokenIds: ids.apiTokenIds ?? [] });
    const wallets = new Map<number, ScheduledChange[]>();
    const apiTokens = new Map<number, ScheduledChange[]>();
    for (const r of rows) {
      const change: ScheduledChange = {
        field: NAMES[r.field].api,
        value: r.field === 'ip_allowlist' ? r.value_cidrs : r.value_minor === null ? null : toApi(r.value_minor),
        effective_at: apiTime(r.effective_at),
        requested_by: r.requested_by,
        requested_at: apiTime(r.requested_at),
      };
      const [map, id] = r.wallet_id !== null ? [wallets, r.wallet_id] : [apiTokens, r.api_token_id as number];
      map.set(id, [...(map.get(id) ?? []), change]);
    }
    return { wallets, apiTokens };
  }

  /** Applies the loosenings whose notice is over, each recorded in the audit log under who asked. */
  async applyDue(): Promise<number> {
    const applied = await this.s.db.tx('guard-changes', async (t) => {
      // the version row first, as every change to a configuration table takes it (migration 0070)
      await t.one('SELECT version FROM config_version FOR UPDATE');
      const due = await t.any<DueRow>(SQL.guardDue, { now: this.s.now(), limit: BATCH });
      for (const d of due) await this.apply(t, d);
      return due.length;
    });
    if (applied > 0) this.s.log.info('loosened guards of money out applied after their notice', { applied });
    return applied;
  }

  private async apply(t: Tx, d: DueRow): Promise<void> {
    const onToken = d.field === 'ip_allowlist';
    const before = onToken
      ? await t.one<{ v: string[] | null }>('SELECT ip_allowlist::text[] AS v FROM api_tokens WHERE id = $1 FOR UPDATE', [d.api_token_id])
      : await t.one<{ v: bigint | null }>('SELECT $2:name AS v FROM wallets WHERE id = $1 FOR UPDATE', [d.wallet_id, d.field]);
    if (onToken) await t.none('UPDATE api_tokens SET ip_allowlist = $2::cidr[], updated_at = $3 WHERE id = $1', [d.api_token_id, d.value_cidrs, this.s.now()]);
    else await t.none('UPDATE wallets SET $2:name = $3 WHERE id = $1', [d.wallet_id, d.field, d.value_minor]);
    // amounts as JSON numbers, as the wallet's own snapshots in the log show them
    const shown = (v: bigint | string[] | null) => (typeof v === 'bigint' ? Number(v) : v);
    await this.s.audit(t, {
      actor: d.requested_by_user_id === null ? { type: 'operator_key' } : { type: 'user', user: { id: d.requested_by_user_id, email: d.requested_by } },
      action: 'applyScheduledGuardChange', businessId: d.business_id,
      targetType: onToken ? 'api_token' : 'wallet', targetId: String(onToken ? d.api_token_id : d.wallet_id),
      before: { [d.field]: shown(before.v) },
      after: { [d.field]: shown(onToken ? d.value_cidrs : d.value_minor), requested_at: apiTime(d.requested_at) },
      requestId: null,
    });
  }

  workers(): WorkerSpec[] {
    return [{ name: 'guard-changes', intervalMs: 60_000, run: () => this.applyDue() }];
  }
}
