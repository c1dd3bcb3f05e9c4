// Asking for a disbursement (docs/contract/disbursements.md): the guard of every API call (the API token's
// secret, its IP allowlist; an owner in the dashboard is guarded by the caller with a fresh authenticator
// code and then takes the same path), the route to a paying MID, and the new disbursement written with
// the hold of amount + fee under the wallet's lock, after the business's freeze, the wallet's limits and
// its available balance are checked in the same transaction. Reading one and listing them.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { components } from '../../generated/merchant-api';
import { sqlFiles } from '../db';
import { WingFlow } from '../base';
import type { Tx } from '../db';
import type { ListPage, PageRequest } from '../db/keyset';
import { DISBURSEMENT_MESSAGES, disbursementFee, disbursementHeldMinor, disbursementHoldPlan, limitRefusal, maskedAccountNumber } from '../domain/disbursement';
import type { DisbursementStatus } from '../domain/disbursement';
import { moneyText } from '../domain/currencies';
import { amountOrError } from '../domain/money';
import { DAY_MS } from '../domain/time';
import { AppError, validationError } from '../errors';
import { currentTraceParent } from '../telemetry';
import type { FieldError } from '../errors';
import { secretMatches } from '../merchants/access-tokens';
import { approvalOf } from './approvals';
import { listDisbursements } from './filters';
import type { DisbursementFilters } from './filters';
import type { DisbursementParts } from './parts';
import { toDisbursementRecord } from '../api-records/disbursement';
import type { DisbursementRow } from '../api-records/disbursement';
import { moneyOf } from './state-change';
import type { DisbursementStateChanges } from './state-change';

export type DisbursementCreateBody = components['schemas']['DisbursementCreate'];

/** The caller of a disbursement operation: its API token, the Secret-Key it sent, the address it came from. */
export interface DisbursementCaller {
  businessId: number;
  apiTokenId: number;
  secret: string | undefined;
  /** the client's address: the TCP peer's, or behind a proxy named by TRUST_PROXY the one it forwarded (express's req.ip) */
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

const SQL = sqlFiles(__dirname, [
  'token-guard', 'routes', 'lock-wallet', 'day-total', 'wallet-available', 'insert', 'by-reference', 'by-gateway-reference',
]);

const REF_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const PHONE = /^[0-9]{10,15}$/;
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

export class DisbursementRequests extends WingFlow<DisbursementParts, DisbursementStateChanges> {
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
    await this.p.audit.tokenAction(this.db, { now: this.p.now(), apiTokenId: c.apiTokenId, action: 'disbursementAddressRefused', targetType: 'api_token', targetId: null, after: { operation, client_address: address ?? c.address ?? null, reason: why }, requestId: c.requestId });
    this.p.log.warn('disbursement call refused for its address', { api_token_id: c.apiTokenId, reason: why });
    throw new AppError(
      'IP_NOT_ALLOWED',
      t.has_allowlist
        ? 'Disbursements with this API token are accepted only from the addresses on its IP allowlist'
        : 'In live, disbursements are accepted only once the API token has an IP allowlist',
    );
  }

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
      if (row.status === 'PENDING') this.p.kick('payout-sends');
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
      const wallet = await this.db.oneOrNone('SELECT id FROM wallets WHERE business_id = $1 AND currency = $2', [businessId, currency]);
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
      throw new AppError('LIMIT_EXCEEDED', `This disbursement ${refused.message} (${moneyText(limit ?? 0n, w.currency)})`);
    }
    const needed = disbursementHeldMinor({ amountMinor, feeMinor });
    const { available_minor: available } = await t.one<{ available_minor: bigint }>(SQL.walletAvailable, { walletId: w.id });
    if (available < needed) {
      throw new AppError('INSUFFICIENT_FUNDS', `The ${w.currency} wallet has ${moneyText(available, w.currency)} available; this disbursement needs ${moneyText(needed, w.currency)} with its fee`);
    }
    const { waits, expiresAt } = approvalOf(amountMinor, w, now);
    const status: DisbursementStatus = waits ? 'PENDING_APPROVAL' : 'PENDING';
    const row = await t.oneOrNone<DisbursementRow>(SQL.insert, {
      businessId: c.businessId, apiTokenId: c.apiTokenId, requestedBy: c.requestedBy, walletId: w.id, gatewayReference: newGatewayReference(), merchantReference: body.merchant_reference,
      requestHash: hash, amountMinor, feeMinor, currency: w.currency, paymentMethod: body.payment_method, accountNumber: body.account_number,
      bankCode: body.bank_code ?? null, accountName: body.account_name, narration: body.narration ?? null, status,
      pendingReason: waits ? 'awaiting_approval' : 'awaiting_processor', message: DISBURSEMENT_MESSAGES[status],
      approvalExpiresAt: expiresAt,
      serviceType: route.serviceType, midId: route.midId, reference: randomUUID(), callbackToken: randomBytes(24).toString('base64url'),
      sendState: waits ? 'held' : 'queued', nextSendAt: waits ? null : now, traceParent: currentTraceParent(), now,
    });
    if (!row) throw new ReferenceTaken();
    await this.changes.post(t, row, disbursementHoldPlan(moneyOf(row)), now);
    if (c.apiTokenId !== null) {
      // the log keeps the payee's number masked, as the owners' emails do
      const after = { ...toDisbursementRecord(row), account_number: maskedAccountNumber(row.account_number) };
      await this.p.audit.tokenAction(t, { now, apiTokenId: c.apiTokenId, action: 'createDisbursement', targetType: 'disbursement', targetId: row.gateway_reference, after, requestId: c.requestId });
    }
    await this.changes.emailOwners(t, row, now);
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
    return listDisbursements(this.db, { ...f, business_id: c.businessId }, page);
  }

  byMerchantReference(businessId: number, merchantReference: string): Promise<DisbursementRow | null> {
    return this.db.oneOrNone<DisbursementRow>(SQL.byReference, { businessId, merchantReference });
  }
}

function noWallet(currency: string): AppError {
  return new AppError('UNSUPPORTED_CURRENCY', `You have no ${currency} wallet to pay from`);
}

function replay(row: DisbursementRow, hash: string): { row: DisbursementRow; replayed: boolean } {
  if (row.request_hash !== hash) throw new AppError('DUPLICATE_MERCHANT_REFERENCE', 'merchant_reference was already used for a different disbursement');
  return { row, replayed: true };
}

/** The rules the contract's schema cannot state: two decimals, a phone for mobile money, bank_code with BANK only. Every broken one is listed. */
function checkBody(b: DisbursementCreateBody): bigint {
  const amount = amountOrError(b.amount);
  const errors: FieldError[] = typeof amount === 'bigint' ? [] : [amount];
  if (b.payment_method === 'MOBILE_MONEY' && !PHONE.test(b.account_number)) {
    errors.push({ field: 'account_number', message: 'must be the phone number, 10 to 15 digits, country code first, no +' });
  }
  if (b.payment_method === 'BANK' && b.bank_code === undefined) errors.push({ field: 'bank_code', message: 'is required when payment_method is BANK' });
  if (b.payment_method === 'MOBILE_MONEY' && b.bank_code !== undefined) errors.push({ field: 'bank_code', message: 'is only for payment_method BANK' });
  if (errors.length > 0 || typeof amount !== 'bigint') throw validationError(errors);
  return amount;
}
