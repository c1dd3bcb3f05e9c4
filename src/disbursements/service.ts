// Disbursements (docs/contract/disbursements.md): paying money out of a merchant's wallet to a phone or a
// bank account. Every API call is guarded first (the API token's secret, its IP allowlist); an owner
// asking in the dashboard is guarded by the caller (a fresh authenticator code) and then takes the same
// path. A new disbursement is written with the hold of amount + fee under the wallet's lock, after the business's
// freeze, the wallet's limits and its available balance are checked in the same transaction. A worker
// sends it to the MID's processor with our reference, which never changes; an unknown outcome (a send
// whose worker died mid-call included: never sent again blind) is settled by a status query; a callback
// is only a prompt. Every state change goes through move(), with its journal and notification.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { QueryFile } from 'pg-promise';
import type { components } from '../../generated/merchant-api';
import type { Config } from '../config';
import { sqlFile } from '../db';
import { disbursementEmails } from './emails';
import { disbursementFilterWhere } from './filters';
import type { DisbursementFilters } from './filters';
import type { Db, Tx } from '../db';
import { listPage } from '../db/keyset';
import type { KeyColumn, ListPage, PageRequest } from '../db/keyset';
import {
  DISBURSEMENT_MESSAGES,
  disbursementFee,
  disbursementHeldMinor,
  disbursementHoldPlan,
  disbursementMovesFrom,
  disbursementOutcomePlan,
  isDisbursementSettled,
  limitRefusal,
  needsApproval,
} from '../domain/disbursement';
import type { DisbursementJournal, DisbursementPendingReason, DisbursementStatus } from '../domain/disbursement';
import { accountName, assertBalanced } from '../domain/ledger';
import type { AccountKey } from '../domain/ledger';
import { formatMinor, MoneyFormatError, toMinor } from '../domain/money';
import { AppError, validationError } from '../errors';
import type { FieldError } from '../errors';
import type { Logger } from '../log';
import { secretMatches } from '../merchants/access-tokens';
import type { AmountAsked, AmountCheck } from '../processors/amounts';
import type { CallContext, Observed, PayoutConnector, PayoutObservedStatus, PayoutOrder, QueryResult, SendResult } from '../processors/types';
import { currentTraceParent } from '../telemetry';
import type { WorkerSpec } from '../workers/loops';
import { toDisbursementRecord } from './record';
import type { DisbursementRow } from './record';

export type DisbursementCreateBody = components['schemas']['DisbursementCreate'];

/** The caller of a disbursement operation: its API token, the Secret-Key it sent, the address it came from. */
export interface DisbursementCaller {
  businessId: number;
  apiTokenId: number;
  secret: string | undefined;
  /** the TCP peer's address as the socket gives it (no proxy header is trusted) */
  address: string | undefined;
  requestId: string | null;
}

/**
 * Who asks for a disbursement once the caller is checked: an API token of the business (the merchant API:
 * its webhook is notified and the audit entry names it), or an owner in the dashboard (who may not
 * approve it; audited by the operator API's own entry, and no webhook, since no token asked).
 */
type Requester = { businessId: number; requestId: string | null } & ({ apiTokenId: number; requestedBy: null } | { apiTokenId: null; requestedBy: number });

/** An owner asking in the dashboard, their second factor already checked by the caller. */
export interface DashboardRequester {
  businessId: number;
  userId: number;
  requestId: string | null;
}

export type { DisbursementFilters } from './filters';

/** What the disbursement service is built from: the narrow parts it uses, nothing more. */
export interface DisbursementParts {
  db: () => Db;
  config: Pick<Config, 'processors' | 'webhookRetryScheduleMs' | 'publicBaseUrl' | 'appEnv'>;
  log: Logger;
  now: () => Date;
  /** the payout side of a service type's processor (the simulator's for `sandbox`); null when it offers none */
  payoutsOf: (serviceType: string) => PayoutConnector | null;
  /** whether a service type's processor can move an amount exactly (src/processors/amounts.ts) */
  amountCheck: (serviceType: string, asked: AmountAsked) => AmountCheck;
  /** a MID's sealed credentials, opened (never logged) */
  openCredentials: (sealed: string | null) => CallContext['credentials'];
  /** the next round-robin turn (from 1) among a business's MIDs of one method, currency and rank */
  takeTurn: (businessId: number, method: 'MOBILE_MONEY' | 'BANK', currency: string, rank: number) => Promise<number>;
  kick: (worker: string) => void;
}

const sql = (name: string): QueryFile => sqlFile(__dirname, name);
const SQL = {
  tokenGuard: sql('token-guard.sql'),
  auditRefused: sql('audit-refused.sql'),
  audit: sql('audit.sql'),
  routes: sql('routes.sql'),
  walletOf: sql('wallet-of.sql'),
  lockWallet: sql('lock-wallet.sql'),
  dayTotal: sql('day-total.sql'),
  walletAvailable: sql('wallet-available.sql'),
  insert: sql('insert.sql'),
  byReference: sql('by-reference.sql'),
  byGatewayReference: sql('by-gateway-reference.sql'),
  ledgerAccounts: sql('ledger-accounts.sql'),
  postJournal: sql('post-journal.sql'),
  move: sql('move.sql'),
  notification: sql('notification.sql'),
  claim: sql('claim.sql'),
  requestState: sql('request-state.sql'),
  prompt: sql('prompt.sql'),
  promptByReference: sql('prompt-by-reference.sql'),
  approvalsDue: sql('approvals-due.sql'),
  businessName: sql('business-name.sql'),
  ownersEmail: sql('owners-email.sql'),
};

/** Disbursements sent or checked per worker run. */
const BATCH = 20;
/** a send or query: a token, the call, and both again after a refused token */
const CALLS_PER_ITEM = 4;
const LEASE_MARGIN_MS = 10_000;
const DAY_MS = 86_400_000;
const REF_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const PHONE = /^[0-9]{10,15}$/;
const NEWEST_FIRST: KeyColumn[] = [
  { column: 'created_at', type: 'timestamptz' },
  { column: 'id', type: 'bigint' },
];

interface LockedWallet {
  id: number;
  currency: string;
  disbursement_limit_minor: bigint | null;
  disbursement_daily_limit_minor: bigint | null;
  disbursement_approval_threshold_minor: bigint | null;
  disbursements_frozen: boolean;
  fee_percent: string;
  fee_fixed_minor: bigint;
  disbursement_approval_hours: number;
}

interface Route {
  midId: number;
  serviceType: string;
}

/** A disbursement claimed for a send or a query, with its MID's sealed credentials. */
export interface Claimed extends DisbursementRow {
  credentials_enc: string | null;
  /** a send's claim found it 'sending': its last worker died mid-call, with no outcome written */
  was_sending: boolean;
}

/** A move of a disbursement: to which state, and what its request to the processor becomes. */
export interface DisbursementMove {
  to: Exclude<DisbursementStatus, 'PENDING_APPROVAL'>;
  failureReason?: string | null;
  vendorReference?: string | null;
  /** when PROCESSING: the first status query */
  nextCheckAt?: Date | null;
  /** leaving PENDING_APPROVAL: the owner who decided (none for the timeout) */
  decidedBy?: number | null;
  /** only from these states (a decision or the timeout: PENDING_APPROVAL); else every state `to` may come from */
  from?: DisbursementStatus[];
}

/** An owner's decision on a disbursement waiting for approval: who (a person of `businessId`), and which way. */
export interface ApprovalDecision {
  businessId: number;
  userId: number;
  approve: boolean;
}

/** Thrown inside the create transaction when a concurrent request took the merchant_reference first. */
class ReferenceTaken extends Error {}

function newGatewayReference(): string {
  return 'DB' + Array.from(randomBytes(20), (b) => REF_ALPHABET[b % REF_ALPHABET.length]).join('');
}

/** A stable digest of what the disbursement asks for, keys in a fixed order. */
export function disbursementRequestHash(b: DisbursementCreateBody): string {
  const asked = [b.amount, b.currency, b.payment_method, b.account_number, b.bank_code ?? null, b.account_name, b.merchant_reference, b.narration ?? null];
  return createHash('sha256').update(JSON.stringify(asked)).digest('hex');
}

/** The socket's address as PostgreSQL reads it (an IPv4 client of a dual-stack socket is ::ffff:a.b.c.d); null when unreadable. */
export function clientInet(address: string | undefined): string | null {
  if (!address) return null;
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  return isIP(plain) ? plain : null;
}

export class DisbursementService {
  constructor(private readonly p: DisbursementParts) {}

  private get db(): Db {
    return this.p.db();
  }

  // ---- the guard of every disbursement call --------------------------------------------------------

  /**
   * The API token's secret, then its IP allowlist (in live, a token without one is refused). A refusal
   * for the address is written to the audit log and changes nothing else; a wrong secret changes nothing.
   * Outside the create transaction: neither depends on the wallet, and the secret's argon2 check would
   * otherwise hold the wallet's lock.
   */
  async guard(c: DisbursementCaller, operation: string): Promise<void> {
    const address = clientInet(c.address);
    const t = await this.db.oneOrNone<{ secret_hash: string; has_allowlist: boolean; address_allowed: boolean }>(SQL.tokenGuard, { apiTokenId: c.apiTokenId, address });
    if (!t || !(await secretMatches(t.secret_hash, c.secret))) {
      throw new AppError('UNAUTHORIZED', 'Disbursements need the API token\'s secret in the Secret-Key header, besides the access token');
    }
    if (t.address_allowed || (!t.has_allowlist && this.p.config.appEnv !== 'live')) return;
    const why = t.has_allowlist ? 'not_on_allowlist' : 'no_allowlist_in_live';
    await this.db.none(SQL.auditRefused, { now: this.p.now(), apiTokenId: c.apiTokenId, requestId: c.requestId, after: JSON.stringify({ operation, client_address: address ?? c.address ?? null, reason: why }) });
    this.p.log.warn('disbursement call refused for its address', { api_token_id: c.apiTokenId, reason: why });
    throw new AppError(
      'IP_NOT_ALLOWED',
      t.has_allowlist
        ? 'Disbursements with this API token are accepted only from the addresses on its IP allowlist'
        : 'In live, disbursements are accepted only once the API token has an IP allowlist',
    );
  }

  // ---- the merchant's operations -----------------------------------------------------------------

  /**
   * Accepts a disbursement: the row, the hold journal and the audit entry commit together under the
   * wallet's lock, or nothing does. A replay (same reference and body) answers the disbursement made
   * first; a different body is DUPLICATE_MERCHANT_REFERENCE.
   */
  async create(c: DisbursementCaller, body: DisbursementCreateBody): Promise<{ row: DisbursementRow; replayed: boolean }> {
    await this.guard(c, 'createDisbursement');
    return this.accept({ businessId: c.businessId, apiTokenId: c.apiTokenId, requestedBy: null, requestId: c.requestId }, body);
  }

  /**
   * A disbursement an owner asks for in the dashboard: the same path as the API's from here on (rules,
   * limits, freeze, funds, idempotency, threshold), with the owner as its requester.
   */
  requestFromDashboard(who: DashboardRequester, body: DisbursementCreateBody): Promise<{ row: DisbursementRow; replayed: boolean }> {
    return this.accept({ businessId: who.businessId, apiTokenId: null, requestedBy: who.userId, requestId: who.requestId }, body);
  }

  private async accept(who: Requester, body: DisbursementCreateBody): Promise<{ row: DisbursementRow; replayed: boolean }> {
    const amountMinor = checkBody(body);
    const hash = disbursementRequestHash(body);
    const earlier = await this.byMerchantReference(who.businessId, body.merchant_reference);
    if (earlier) return replay(earlier, hash);
    const route = await this.route(who.businessId, body.payment_method, body.currency);
    const { refused } = this.p.amountCheck(route.serviceType, { kind: 'payout', amountMinor, currency: body.currency });
    if (refused) throw validationError([refused]);
    try {
      const row = await this.db.tx('disbursement-create', (t) => this.createIn(t, who, body, amountMinor, hash, route));
      if (row.status === 'PENDING') this.p.kick('disbursement-sends');
      else this.p.kick('emails');
      return { row, replayed: false };
    } catch (e) {
      if (!(e instanceof ReferenceTaken)) throw e;
      const winner = await this.byMerchantReference(who.businessId, body.merchant_reference);
      if (!winner) throw new Error('disbursement merchant_reference conflict without a row');
      return replay(winner, hash);
    }
  }

  /** The MID that pays: the best rank among the active disbursing MIDs, round robin within it. */
  private async route(businessId: number, method: 'MOBILE_MONEY' | 'BANK', currency: string): Promise<Route> {
    const mids = await this.db.any<{ id: number; service_type: string; processing_rank: number }>(SQL.routes, { businessId, paymentMethod: method, currency });
    const usable = mids.filter((m) => this.p.payoutsOf(m.service_type) !== null);
    if (usable.length === 0) {
      // without a wallet in the currency, that is the reason to give (a MID could not pay from nothing)
      const wallet = await this.db.oneOrNone(SQL.walletOf, { businessId, currency });
      if (!wallet) throw noWallet(currency);
      throw new AppError('NO_ROUTE', `No active MID of yours disburses by ${method} in ${currency}`);
    }
    const rank = usable[0].processing_rank;
    const top = usable.filter((m) => m.processing_rank === rank);
    const turn = top.length === 1 ? 1 : await this.p.takeTurn(businessId, method, currency, rank);
    const mid = top[(turn - 1) % top.length];
    return { midId: mid.id, serviceType: mid.service_type };
  }

  private async createIn(t: Tx, c: Requester, body: DisbursementCreateBody, amountMinor: bigint, hash: string, route: Route): Promise<DisbursementRow> {
    const w = await t.oneOrNone<LockedWallet>(SQL.lockWallet, { businessId: c.businessId, currency: body.currency });
    if (!w) throw noWallet(body.currency);
    if (w.disbursements_frozen) throw new AppError('DISBURSEMENTS_FROZEN', 'Disbursements of this business are frozen; contact support');
    const now = this.p.now();
    const feeMinor = disbursementFee(amountMinor, { percent: w.fee_percent, fixedMinor: w.fee_fixed_minor });
    const dayStart = new Date(now.getTime() - (now.getTime() % DAY_MS));
    const today = w.disbursement_daily_limit_minor === null ? 0n : (await t.one<{ total_minor: bigint }>(SQL.dayTotal, { walletId: w.id, dayStart, dayEnd: new Date(dayStart.getTime() + DAY_MS) })).total_minor;
    const refused = limitRefusal(amountMinor, today, { perDisbursementMinor: w.disbursement_limit_minor, dailyMinor: w.disbursement_daily_limit_minor });
    if (refused) {
      const limit = refused.limit === 'daily' ? w.disbursement_daily_limit_minor : w.disbursement_limit_minor;
      throw new AppError('LIMIT_EXCEEDED', `This disbursement ${refused.message} (${w.currency} ${formatMinor(limit ?? 0n)})`);
    }
    const needed = disbursementHeldMinor({ amountMinor, feeMinor });
    const { available_minor: available } = await t.one<{ available_minor: bigint }>(SQL.walletAvailable, { walletId: w.id });
    if (available < needed) {
      throw new AppError('INSUFFICIENT_FUNDS', `The ${w.currency} wallet has ${formatMinor(available)} available; this disbursement needs ${formatMinor(needed)} with its fee`);
    }
    const waits = needsApproval(amountMinor, w.disbursement_approval_threshold_minor);
    const status: DisbursementStatus = waits ? 'PENDING_APPROVAL' : 'PENDING';
    const row = await t.oneOrNone<DisbursementRow>(SQL.insert, {
      businessId: c.businessId, apiTokenId: c.apiTokenId, requestedBy: c.requestedBy, walletId: w.id, gatewayReference: newGatewayReference(), merchantReference: body.merchant_reference,
      requestHash: hash, amountMinor, feeMinor, currency: w.currency, paymentMethod: body.payment_method, accountNumber: body.account_number,
      bankCode: body.bank_code ?? null, accountName: body.account_name, narration: body.narration ?? null, status,
      pendingReason: waits ? 'awaiting_approval' : 'awaiting_processor', message: DISBURSEMENT_MESSAGES[status],
      approvalExpiresAt: waits ? new Date(now.getTime() + w.disbursement_approval_hours * 3_600_000) : null,
      serviceType: route.serviceType, midId: route.midId, reference: randomUUID(), callbackToken: randomBytes(24).toString('base64url'),
      sendState: waits ? 'held' : 'queued', nextSendAt: waits ? null : now, now,
    });
    if (!row) throw new ReferenceTaken();
    await this.post(t, row, disbursementHoldPlan(moneyOf(row)), now);
    if (c.apiTokenId !== null) {
      await t.none(SQL.audit, { now, businessId: c.businessId, gatewayReference: row.gateway_reference, after: JSON.stringify(toDisbursementRecord(row)), requestId: c.requestId, apiTokenId: c.apiTokenId });
    }
    await this.emailOwners(t, row, now);
    return row;
  }

  /** The caller's disbursement; NOT_FOUND for anyone else's. */
  async get(c: DisbursementCaller, gatewayReference: string): Promise<DisbursementRow> {
    await this.guard(c, 'getDisbursement');
    const row = await this.db.oneOrNone<DisbursementRow>(SQL.byGatewayReference, { gatewayReference, businessId: c.businessId });
    if (!row) throw new AppError('NOT_FOUND', 'No disbursement of yours has this gateway_reference');
    return row;
  }

  /** The caller's disbursements, newest first, filtered. */
  async list(c: DisbursementCaller, f: DisbursementFilters, page: PageRequest): Promise<ListPage<DisbursementRow>> {
    await this.guard(c, 'listDisbursements');
    const text = `SELECT d.* FROM disbursements d WHERE ${disbursementFilterWhere({ ...f, business_id: c.businessId })}`;
    return listPage<DisbursementRow>(this.db, { sql: text, values: [], key: NEWEST_FIRST, direction: 'DESC' }, page);
  }

  byMerchantReference(businessId: number, merchantReference: string): Promise<DisbursementRow | null> {
    return this.db.oneOrNone<DisbursementRow>(SQL.byReference, { businessId, merchantReference });
  }

  // ---- state changes -------------------------------------------------------------------------------

  /**
   * The one path by which a disbursement changes state, in one transaction: the move (guarded on the
   * states it may come from, and kept for the timeline in the same statement), the journal the move calls
   * for, and the notification. Null when the
   * disbursement was not in a state it may move from (a repeat or a late report changes nothing).
   */
  async move(disbursementId: bigint, m: DisbursementMove): Promise<DisbursementRow | null> {
    const moved = await this.db.tx('disbursement-move', async (t) => {
      const now = this.p.now();
      const settled = isDisbursementSettled(m.to);
      const queued = m.to === 'PENDING';
      const row = await t.oneOrNone<DisbursementRow>(SQL.move, {
        disbursementId, to: m.to, from: m.from ?? disbursementMovesFrom(m.to), pendingReason: queued ? 'awaiting_processor' : null,
        failureReason: m.failureReason ?? null, message: DISBURSEMENT_MESSAGES[m.to], now, vendorReference: m.vendorReference ?? null,
        sendState: settled ? 'settled' : queued ? 'queued' : 'sent', nextSendAt: queued ? now : null,
        nextCheckAt: settled || queued ? null : (m.nextCheckAt ?? null), decidedBy: m.decidedBy ?? null,
      });
      if (!row) return null;
      const plan = disbursementOutcomePlan(m.to, moneyOf(row));
      if (plan) await this.post(t, row, plan, now);
      await this.outbox(t, row, now);
      await this.emailOwners(t, row, now);
      return row;
    });
    if (moved) {
      this.p.log.info('disbursement moved', { gateway_reference: moved.gateway_reference, status: moved.status });
      this.p.kick('webhooks');
      if (moved.status === 'FAILED' || moved.status === 'REVERSED') this.p.kick('emails');
      if (moved.status === 'PENDING') this.p.kick('disbursement-sends');
    }
    return moved;
  }

  /** A disbursement journal, checked to balance first; a second one of a kind is a bug. */
  private async post(t: Tx, row: DisbursementRow, journal: DisbursementJournal, now: Date): Promise<void> {
    assertBalanced(journal.postings);
    const ids = await this.accountIds(t, row.business_id, journal.postings.map((p) => p.account));
    const written = await t.any(SQL.postJournal, {
      disbursementId: row.id, kind: journal.kind, now,
      accountIds: journal.postings.map((p) => ids.get(accountName(p.account))),
      amounts: journal.postings.map((p) => p.amountMinor),
      currencies: journal.postings.map((p) => p.account.currency),
    });
    if (written.length !== 1) throw new Error(`disbursement ${row.id} already has its ${journal.kind} journal`);
  }

  private async accountIds(t: Tx, businessId: number, keys: AccountKey[]): Promise<Map<string, number>> {
    const unique = [...new Map(keys.map((k) => [accountName(k), k])).values()].sort((a, b) => (accountName(a) < accountName(b) ? -1 : 1));
    const params = { businessId, walletIds: unique.map((k) => k.walletId), currencies: unique.map((k) => k.currency), kinds: unique.map((k) => k.kind) };
    for (let attempt = 0; attempt < 2; attempt++) {
      const rows = await t.any<{ id: number; wallet_id: number | null; currency: string; kind: AccountKey['kind'] }>(SQL.ledgerAccounts, params);
      const ids = new Map(rows.map((r) => [accountName({ kind: r.kind, walletId: r.wallet_id, currency: r.currency }), r.id]));
      if (ids.size === unique.length) return ids;
    }
    throw new Error('ledger accounts could not be created');
  }

  /** The webhook notification of a move, when an API token asked for the disbursement. */
  private async outbox(t: Tx, row: DisbursementRow, now: Date): Promise<void> {
    if (row.api_token_id === null) return;
    await t.none(SQL.notification, {
      disbursementId: row.id, apiTokenId: row.api_token_id, eventId: 'evt_' + randomBytes(16).toString('hex'), sequence: row.notification_seq,
      status: row.status, body: JSON.stringify({ ...toDisbursementRecord(row), sequence: row.notification_seq }), now, traceParent: currentTraceParent(),
      firstAttemptAt: new Date(now.getTime() + this.p.config.webhookRetryScheduleMs[0]),
    });
  }

  /** The owners' emails of the state the disbursement is now in (waiting for approval, or its money returned). */
  private async emailOwners(t: Tx, row: DisbursementRow, now: Date): Promise<void> {
    if (row.status !== 'PENDING_APPROVAL' && row.status !== 'FAILED' && row.status !== 'REVERSED') return;
    const page = `${this.p.config.publicBaseUrl}/dashboard/disbursements/${row.gateway_reference}`;
    const business = await t.one<{ name: string }>(SQL.businessName, { businessId: row.business_id });
    for (const e of disbursementEmails(row, business.name, page)) {
      await t.any(SQL.ownersEmail, { kind: e.kind, subject: e.subject, text: e.text, now, businessId: row.business_id, exceptUserId: e.exceptUserId });
    }
  }

  // ---- four eyes ------------------------------------------------------------------------------------

  /**
   * An owner approves (to PENDING: sent next) or rejects (to CANCELLED: the hold returns) a disbursement
   * waiting for approval. Never the person who asked for it; INVALID_STATE once decided.
   */
  async decide(gatewayReference: string, d: ApprovalDecision): Promise<DisbursementRow> {
    const row = await this.db.oneOrNone<DisbursementRow>(SQL.byGatewayReference, { businessId: d.businessId, gatewayReference });
    if (!row) throw new AppError('NOT_FOUND', 'No disbursement of your business has this reference');
    if (row.requested_by_user_id === d.userId) throw new AppError('FORBIDDEN', 'Another owner must decide on a disbursement you asked for');
    const undecided = () => new AppError('INVALID_STATE', `The disbursement is ${row.status}; only one waiting for approval can be approved or rejected`);
    if (row.status !== 'PENDING_APPROVAL') throw undecided();
    // the move's guard decides between two owners deciding at once: the second finds it decided
    const from: DisbursementStatus[] = ['PENDING_APPROVAL'];
    const moved = await this.move(row.id, d.approve ? { to: 'PENDING', decidedBy: d.userId, from } : { to: 'CANCELLED', failureReason: 'Rejected by an owner of the business', decidedBy: d.userId, from });
    if (!moved) throw new AppError('INVALID_STATE', 'The disbursement was decided meanwhile');
    return moved;
  }

  /** Cancels the disbursements nobody approved in time (their hold returns). */
  async expireApprovals(): Promise<number> {
    const due = await this.db.any<{ id: bigint }>(SQL.approvalsDue, { now: this.p.now(), limit: BATCH });
    for (const d of due) await this.move(d.id, { to: 'CANCELLED', failureReason: 'Not approved in time', from: ['PENDING_APPROVAL'] });
    return due.length;
  }

  // ---- the workers: sends and status queries ---------------------------------------------------------

  private leaseEnd(): Date {
    return new Date(this.p.now().getTime() + CALLS_PER_ITEM * this.p.config.processors.timeoutMs + LEASE_MARGIN_MS);
  }

  private after(schedule: number[], n: number): Date {
    return new Date(this.p.now().getTime() + schedule[Math.min(Math.max(n, 0), schedule.length - 1)]);
  }

  private connectorOf(d: Claimed): PayoutConnector {
    const c = this.p.payoutsOf(d.service_type);
    if (!c) throw new Error(`service type ${d.service_type} offers no payouts`);
    return c;
  }

  private context(d: Claimed): CallContext {
    return { midId: d.mid_id ?? 0, credentials: this.p.openCredentials(d.credentials_enc) };
  }

  /** Where the processor may call back about this payout: its own unguessable token. */
  private callbackUrl(d: DisbursementRow): string {
    return `${this.p.config.publicBaseUrl}/callbacks/${d.service_type}/${d.callback_token}`;
  }

  /** Sends the disbursements that are due (new ones, retries), and asks about those whose worker died mid-send. */
  async sendDue(): Promise<number> {
    const claimed = await this.claimSends();
    await Promise.all(claimed.map((d) => this.sendOne(d)));
    return claimed.length;
  }

  /** The disbursements due a send, claimed for a lease and marked 'sending': a worker that dies now leaves them to the next after it. */
  claimSends(): Promise<Claimed[]> {
    return this.db.any<Claimed>(SQL.claim, { clock: 'next_send_at', counter: 'send_attempts', send: true, now: this.p.now(), limit: BATCH, leaseEnd: this.leaseEnd() });
  }

  private async sendOne(d: Claimed): Promise<void> {
    if (d.was_sending) {
      // its last worker died after the call may have reached the processor: an unknown outcome, settled by
      // a status query (and sent again, same reference, only when the processor never received it)
      await this.afterSend(d, { kind: 'unknown', detail: 'the worker sending it stopped before writing the outcome' });
      return;
    }
    if (d.status !== 'PENDING' || d.send_state !== 'sending') {
      await this.record(d, { sendState: d.send_state, nextSendAt: null, nextCheckAt: d.next_check_at, lastError: d.last_error, pendingReason: d.pending_reason });
      return;
    }
    const order: PayoutOrder = {
      reference: d.reference, gatewayReference: d.gateway_reference, amountMinor: d.amount_minor, currency: d.currency, paymentMethod: d.payment_method,
      accountNumber: d.account_number, bankCode: d.bank_code, accountName: d.account_name, narration: d.narration ?? d.merchant_reference, callbackUrl: this.callbackUrl(d),
    };
    let result: SendResult;
    try {
      result = await this.connectorOf(d).initiatePayout(this.context(d), order);
    } catch (err) {
      this.p.log.error('disbursement send failed', { service_type: d.service_type, gateway_reference: d.gateway_reference, err });
      result = { kind: 'unknown', detail: 'connector failed' };
    }
    await this.afterSend(d, result);
  }

  private async afterSend(d: Claimed, result: SendResult): Promise<void> {
    const fields = { service_type: d.service_type, gateway_reference: d.gateway_reference, attempt: d.send_attempts };
    const sends = this.p.config.processors.sendScheduleMs;
    switch (result.kind) {
      case 'accepted':
        this.p.log.info('disbursement accepted by the processor', fields);
        await this.move(d.id, { to: 'PROCESSING', vendorReference: result.vendorReference, nextCheckAt: this.after(this.p.config.processors.checkScheduleMs, 0) });
        return;
      case 'refused':
        this.p.log.warn('processor refused the disbursement', { ...fields, detail: result.detail });
        await this.move(d.id, { to: 'FAILED', failureReason: result.message });
        return;
      case 'retry':
        this.p.log.warn('disbursement send to be retried', { ...fields, detail: result.detail });
        await this.record(d, { sendState: 'queued', nextSendAt: this.after(sends, d.send_attempts), nextCheckAt: null, lastError: result.detail, pendingReason: 'awaiting_processor' });
        return;
      case 'unknown':
        this.p.log.warn('disbursement send outcome unknown', { ...fields, detail: result.detail });
        await this.record(d, { sendState: 'unknown', nextSendAt: null, nextCheckAt: this.after(sends, d.send_attempts), lastError: result.detail, pendingReason: 'outcome_unknown' });
        return;
    }
  }

  /** Asks the processor about the disbursements due a status query. */
  async checkDue(): Promise<number> {
    const claimed = await this.db.any<Claimed>(SQL.claim, { clock: 'next_check_at', counter: 'checks', send: false, now: this.p.now(), limit: BATCH, leaseEnd: this.leaseEnd() });
    await Promise.all(claimed.map((d) => this.checkOne(d)));
    return claimed.length;
  }

  private async checkOne(d: Claimed): Promise<void> {
    const reversible = d.status === 'COMPLETED';
    if ((isDisbursementSettled(d.status) && !reversible) || d.send_state === 'queued' || d.send_state === 'sending' || d.send_state === 'held') {
      await this.record(d, { sendState: d.send_state, nextSendAt: d.next_send_at, nextCheckAt: null, lastError: d.last_error, pendingReason: d.pending_reason });
      return;
    }
    let result: QueryResult<PayoutObservedStatus>;
    try {
      result = await this.connectorOf(d).queryPayout(this.context(d), { reference: d.reference, vendorReference: d.vendor_reference, callbackUrl: this.callbackUrl(d) });
    } catch (err) {
      this.p.log.error('disbursement status query failed', { service_type: d.service_type, gateway_reference: d.gateway_reference, err });
      result = { kind: 'unavailable', detail: 'connector failed' };
    }
    await this.afterCheck(d, result);
  }

  private async afterCheck(d: Claimed, result: QueryResult<PayoutObservedStatus>): Promise<void> {
    const again = this.after(this.p.config.processors.checkScheduleMs, d.checks);
    if (result.kind === 'observed') {
      const o = result.observed;
      if (o.unmapped) this.p.log.error('unknown payout status read as PENDING', { service_type: d.service_type, gateway_reference: d.gateway_reference, vendor_status: o.vendorStatus });
      if (await this.settle(d.id, d.status, o, again)) return;
      if (d.status === 'COMPLETED') await this.record(d, { sendState: d.send_state, nextSendAt: null, nextCheckAt: null, lastError: d.last_error, pendingReason: null });
      else await this.record(d, { sendState: 'sent', nextSendAt: null, nextCheckAt: again, lastError: null, pendingReason: null, vendorReference: o.vendorReference ?? null });
      return;
    }
    if (d.status === 'COMPLETED') {
      // asked after a callback about a completed payout: no answer leaves it as it is
      await this.record(d, { sendState: d.send_state, nextSendAt: null, nextCheckAt: null, lastError: d.last_error, pendingReason: null });
      return;
    }
    if (result.kind === 'not_found' && d.send_state === 'unknown') {
      // it never reached the processor: sent again, under the same reference
      this.p.log.warn('disbursement unknown to the processor: sent again under the same reference', { gateway_reference: d.gateway_reference });
      await this.record(d, { sendState: 'queued', nextSendAt: this.p.now(), nextCheckAt: null, lastError: 'not found at the processor', pendingReason: 'awaiting_processor' });
      this.p.kick('disbursement-sends');
      return;
    }
    const note = result.kind === 'not_found' ? 'not found at the processor' : result.detail;
    await this.record(d, { sendState: d.send_state, nextSendAt: null, nextCheckAt: again, lastError: note, pendingReason: d.pending_reason });
  }

  /**
   * What the processor's word (a status query's answer, or a result on the payout's own callback URL)
   * does to a disbursement in `status`: true when it moved it (or the move found it moved already), false
   * when the word changes nothing (PENDING at the processor for one already PROCESSING; anything but a
   * reversal for a COMPLETED one).
   */
  private async settle(id: bigint, status: DisbursementStatus, o: Observed<PayoutObservedStatus>, again: Date): Promise<boolean> {
    const found = o.vendorReference ?? null;
    if (status === 'COMPLETED') {
      if (o.status !== 'REVERSED') return false;
      await this.move(id, { to: 'REVERSED', failureReason: o.message ?? 'The processor reversed the payment' });
      return true;
    }
    switch (o.status) {
      case 'COMPLETED':
      case 'FAILED':
      case 'CANCELLED':
        await this.move(id, { to: o.status, failureReason: o.status === 'COMPLETED' ? null : (o.message ?? DISBURSEMENT_MESSAGES[o.status]), vendorReference: found });
        return true;
      case 'REVERSED':
        // paid and taken back before we saw it paid: the money never left for good; settled as FAILED
        await this.move(id, { to: 'FAILED', failureReason: o.message ?? 'The processor reversed the payment', vendorReference: found });
        return true;
      case 'PENDING':
        // the processor has it: an unknown send was taken after all
        if (status !== 'PENDING') return false;
        await this.move(id, { to: 'PROCESSING', nextCheckAt: again, vendorReference: found });
        return true;
    }
  }

  private async record(
    d: Claimed,
    s: { sendState: DisbursementRow['send_state']; nextSendAt: Date | null; nextCheckAt: Date | null; lastError: string | null; pendingReason: DisbursementPendingReason | null; vendorReference?: string | null },
  ): Promise<void> {
    await this.db.none(SQL.requestState, { disbursementId: d.id, vendorReference: null, ...s });
  }

  /**
   * A processor's callback about a payout, found by the unguessable token of its URL: a prompt to ask the
   * processor now, never proof by itself (but see `observed` below). False when no disbursement of this
   * service type has the token.
   */
  async prompt(serviceType: string, callbackToken: string, body: unknown): Promise<boolean> {
    const connector = this.p.payoutsOf(serviceType);
    if (!connector) return false;
    const note = connector.parsePayoutCallback(body);
    const hit = await this.db.oneOrNone<{ id: bigint; status: DisbursementStatus; known_vendor_reference: string | null }>(SQL.prompt, {
      now: this.p.now(), vendorReference: note.vendorReference, callbackToken, serviceType,
    });
    if (!hit) return false;
    // a vendor whose only account is an asynchronous result (M-Pesa's B2C and Transaction Status results):
    // taken as the answer only on the payout's own URL and naming the id its send was given
    const o = note.observed;
    if (o && !o.unmapped && note.vendorReference !== null && note.vendorReference === hit.known_vendor_reference) {
      if (await this.settle(hit.id, hit.status, o, this.after(this.p.config.processors.checkScheduleMs, 0))) return true;
    }
    this.p.kick('disbursement-checks');
    return true;
  }

  /**
   * A processor's signed webhook (checked by the caller) that may name a payout by our reference: a prompt
   * to ask about it now. Returns how many disbursements it prompted.
   */
  async promptByReference(serviceType: string, body: unknown): Promise<number> {
    const connector = this.p.payoutsOf(serviceType);
    if (!connector) return 0;
    const note = connector.parsePayoutCallback(body);
    if (!note.vendorReference) return 0;
    const hits = await this.db.any(SQL.promptByReference, { now: this.p.now(), serviceType, reference: note.vendorReference });
    if (hits.length > 0) this.p.kick('disbursement-checks');
    return hits.length;
  }

  workers(): WorkerSpec[] {
    return [
      { name: 'disbursement-sends', intervalMs: 500, run: () => this.sendDue() },
      { name: 'disbursement-checks', intervalMs: 500, run: () => this.checkDue() },
      { name: 'disbursement-approvals', intervalMs: 60_000, run: () => this.expireApprovals() },
    ];
  }
}

function noWallet(currency: string): AppError {
  return new AppError('UNSUPPORTED_CURRENCY', `You have no ${currency} wallet to pay from`);
}

function replay(row: DisbursementRow, hash: string): { row: DisbursementRow; replayed: boolean } {
  if (row.request_hash !== hash) throw new AppError('DUPLICATE_MERCHANT_REFERENCE', 'merchant_reference was already used for a different disbursement');
  return { row, replayed: true };
}

function moneyOf(row: DisbursementRow) {
  return { walletId: row.wallet_id, currency: row.currency, amountMinor: row.amount_minor, feeMinor: row.fee_minor };
}

/** The rules the contract's schema cannot state: two decimals, a phone for mobile money, bank_code with BANK only. Every broken one is listed. */
function checkBody(b: DisbursementCreateBody): bigint {
  const errors: FieldError[] = [];
  let amountMinor = 0n;
  try {
    amountMinor = toMinor(b.amount);
  } catch (e) {
    if (!(e instanceof MoneyFormatError)) throw e;
    errors.push({ field: 'amount', message: e.message });
  }
  if (b.payment_method === 'MOBILE_MONEY' && !PHONE.test(b.account_number)) {
    errors.push({ field: 'account_number', message: 'must be the phone number, 10 to 15 digits, country code first, no +' });
  }
  if (b.payment_method === 'BANK' && b.bank_code === undefined) errors.push({ field: 'bank_code', message: 'is required when payment_method is BANK' });
  if (b.payment_method === 'MOBILE_MONEY' && b.bank_code !== undefined) errors.push({ field: 'bank_code', message: 'is only for payment_method BANK' });
  if (errors.length > 0) throw validationError(errors);
  return amountMinor;
}
