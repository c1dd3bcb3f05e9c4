// Refunds (docs/contract/refunds.md): accepting a refund of a COMPLETED collection (held from the
// wallet's available balance in the refund's own transaction), sending it to the processor from a
// worker, settling unknown outcomes with status queries, and every state change with its ledger
// journal, notification and emails. The rules of processor requests hold (docs/contract/processors.md):
// the refund row is its request, written first; it is sent with our reference, which never changes;
// a send whose worker died mid-call is never sent again blind: after its lease it is an unknown outcome.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { QueryFile } from 'pg-promise';
import type { Config } from '../config';
import { sqlFile } from '../db';
import { inOneChange } from '../db/change';
import type { Db, Tx } from '../db';
import { listPage } from '../db/keyset';
import type { KeyColumn, ListPage, PageRequest } from '../db/keyset';
import { accountName, assertBalanced } from '../domain/ledger';
import type { AccountKey } from '../domain/ledger';
import { MoneyFormatError, toMinor } from '../domain/money';
import {
  availableCovers,
  isRefundFinal,
  REFUND_MESSAGES,
  refundAmounts,
  refundHoldPlan,
  refundOutcomePlan,
  RefundRefused,
} from '../domain/refund';
import type { RefundFinal, RefundJournal, RefundStatus } from '../domain/refund';
import { formatMinor } from '../domain/money';
import { AppError, validationError } from '../errors';
import type { Logger } from '../log';
import type { AmountAsked, AmountCheck } from '../processors/amounts';
import type { CallContext, ConfirmationSent, Observed, OriginalCheck, QueryResult, RefundConnector, RefundOrder, RefundSendResult } from '../processors/types';
import { currentTraceParent } from '../telemetry';
import type { WorkerSpec } from '../workers/loops';
import { refundEmails } from './emails';
import type { RefundRecipients } from './emails';
import { refundFilterWhere } from './filters';
import type { RefundFilters } from './filters';
import { toRefundRecord } from './record';
import type { RefundRow } from './record';
import type { components } from '../../generated/merchant-api';

export type RefundCreateBody = components['schemas']['RefundCreate'];

/**
 * Who asks for a refund: an API token of the business (the merchant API: the refund is audited under
 * it), or a person in the dashboard (audited by the operator API's own entry). The refund's notifications
 * go to apiTokenId's webhook: the asking token's, or the collection's for the dashboard.
 */
export interface RefundRequester {
  businessId: number;
  apiTokenId: number | null;
  /** the merchant API: this API token asked, and the refund's audit entry names it */
  byToken: boolean;
}

/** What the refund service is built from: the narrow parts it uses, nothing more. */
export interface RefundParts {
  /** the database (inside an audited change, that change's transaction) */
  db: () => Db;
  config: Pick<Config, 'processors' | 'webhookRetryScheduleMs' | 'publicBaseUrl'>;
  log: Logger;
  now: () => Date;
  /** the refund side of a service type's processor (the simulator's for `sandbox`); null when it offers none */
  refundsOf: (serviceType: string) => RefundConnector | null;
  /** whether a service type's processor can move an amount exactly (src/processors/amounts.ts) */
  amountCheck: (serviceType: string, asked: AmountAsked) => AmountCheck;
  /** a MID's sealed credentials, opened (never logged) */
  openCredentials: (sealed: string | null) => CallContext['credentials'];
  /** run a named worker soon, once the current change commits */
  kick: (worker: string) => void;
}

const sql = (name: string): QueryFile => sqlFile(__dirname, name);
const SQL = {
  lockCollection: sql('lock-collection.sql'),
  refundedAccount: sql('refunded-account.sql'),
  lockWallet: sql('lock-wallet.sql'),
  walletAvailable: sql('wallet-available.sql'),
  insertRefund: sql('insert-refund.sql'),
  collectionRefunded: sql('collection-refunded.sql'),
  ledgerAccounts: sql('ledger-accounts.sql'),
  postJournal: sql('post-journal.sql'),
  audit: sql('audit.sql'),
  byReference: sql('by-reference.sql'),
  byGatewayReference: sql('by-gateway-reference.sql'),
  ofCollection: sql('of-collection.sql'),
  move: sql('move.sql'),
  notification: sql('notification.sql'),
  emails: sql('emails.sql'),
  claim: sql('claim.sql'),
  requestState: sql('request-state.sql'),
  prompt: sql('prompt.sql'),
  promptByPayment: sql('prompt-by-payment.sql'),
  originalByToken: sql('original-by-token.sql'),
  originalAsked: sql('original-asked.sql'),
  originalConfirmed: sql('original-confirmed.sql'),
  originalWaiting: sql('original-waiting.sql'),
  hold: sql('hold.sql'),
  lockHeld: sql('lock-held.sql'),
};

/** What the merchant reads on a held refund an operator failed: its money is back in the wallet. */
export const RESOLVED_FAILED_REASON = 'Not refunded: the processor could not settle this refund, and an operator returned its money to your wallet';

/** Refunds sent or checked per worker run. */
const BATCH = 20;
/** a send or query: a token, the call, and both again after a refused token */
const CALLS_PER_ITEM = 4;
const LEASE_MARGIN_MS = 10_000;
const REF_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const NEWEST_FIRST: KeyColumn[] = [
  { column: 'created_at', type: 'timestamptz' },
  { column: 'id', type: 'bigint' },
];

interface LockedCollection {
  id: bigint;
  business_id: number;
  status: string;
  gateway_reference: string;
  request_amount_minor: bigint;
  request_currency: string;
  account_amount_minor: bigint;
  account_currency: string;
  refunded_minor: bigint;
  mid_id: number | null;
  service_type: string | null;
}

/** A refund claimed for a send or a query, with what the call needs. */
export interface Claimed extends RefundRow {
  collection_amount_minor: bigint;
  account_number: string | null;
  original_reference: string | null;
  original_vendor_reference: string | null;
  /** the processor's receipt of the payment as its callback gave it (M-Pesa's MpesaReceiptNumber) */
  original_receipt: string | null;
  credentials_enc: string | null;
  /** a send's claim found it 'sending': its last worker died mid-call, with no outcome written */
  was_sending: boolean;
}

interface Moved extends RefundRow {
  account_email: string | null;
  recipients: RefundRecipients | null;
}

/** A move of a refund: to which state, from which, and what its request to the processor becomes. */
interface Move {
  to: Exclude<RefundStatus, 'PENDING'>;
  failureReason?: string | null;
  vendorReference?: string | null;
  claimUrl?: string | null;
  /** when PROCESSING: the first status query */
  nextCheckAt?: Date | null;
  /** an operator's decision on a held refund: why, and who */
  resolution?: { note: string; by: string };
}

/** Thrown inside the create transaction when a concurrent request took the merchant_reference first. */
class ReferenceTaken extends Error {}

function newGatewayReference(): string {
  return 'RF' + Array.from(randomBytes(20), (b) => REF_ALPHABET[b % REF_ALPHABET.length]).join('');
}

/** A stable digest of what the refund asks for: the collection and the body, keys in a fixed order. */
export function refundRequestHash(collectionReference: string, body: RefundCreateBody): string {
  const asked = { collection: collectionReference, amount: body.amount ?? null, merchant_reference: body.merchant_reference, reason: body.reason ?? null };
  return createHash('sha256').update(JSON.stringify(asked)).digest('hex');
}

export class RefundService {
  constructor(private readonly p: RefundParts) {}

  private get db(): Db {
    return this.p.db();
  }

  // ---- the merchant's operations -----------------------------------------------------------------

  /**
   * Accepts a refund of the caller's COMPLETED collection: the refund row, the collection's refunded
   * amount, the hold journal and the audit entry commit together, or nothing does. A replay (same
   * reference and body) answers the refund made first; a different body is DUPLICATE_MERCHANT_REFERENCE.
   */
  async create(who: RefundRequester, collectionReference: string, body: RefundCreateBody, requestId: string | null): Promise<{ row: RefundRow; replayed: boolean }> {
    const hash = refundRequestHash(collectionReference, body);
    const earlier = await this.byMerchantReference(who.businessId, body.merchant_reference);
    if (earlier) return this.replay(earlier, hash);
    const requested = body.amount === undefined ? null : minorOf(body.amount);
    try {
      const row = await this.db.tx('refund-create', (t) => this.createIn(t, who, collectionReference, body, hash, requested, requestId));
      this.p.kick('refund-sends');
      return { row, replayed: false };
    } catch (e) {
      if (!(e instanceof ReferenceTaken)) throw e;
      const winner = await this.byMerchantReference(who.businessId, body.merchant_reference);
      if (!winner) throw new Error('refund merchant_reference conflict without a row');
      return this.replay(winner, hash);
    }
  }

  private replay(row: RefundRow, hash: string): { row: RefundRow; replayed: boolean } {
    if (row.request_hash !== hash) throw new AppError('DUPLICATE_MERCHANT_REFERENCE', 'merchant_reference was already used for a different refund');
    return { row, replayed: true };
  }

  private async createIn(t: Tx, who: RefundRequester, collectionReference: string, body: RefundCreateBody, hash: string, requested: bigint | null, requestId: string | null): Promise<RefundRow> {
    const c = await t.oneOrNone<LockedCollection>(SQL.lockCollection, { gatewayReference: collectionReference, businessId: who.businessId });
    if (!c) throw new AppError('NOT_FOUND', 'No collection of yours has this gateway_reference');
    if (c.status !== 'COMPLETED') throw new AppError('INVALID_STATE', `The collection is ${c.status}; only a COMPLETED collection can be refunded`);
    if (!c.service_type || !this.p.refundsOf(c.service_type)) {
      throw new AppError('INVALID_STATE', `The processor that took this payment (${c.service_type ?? 'none'}) offers no refunds through this service`);
    }
    const { refunded_account_minor: refundedAccount } = await t.one<{ refunded_account_minor: bigint }>(SQL.refundedAccount, { collectionId: c.id });
    const amounts = refundAmountsOrRefuse(c, refundedAccount, requested);
    const { refused } = this.p.amountCheck(c.service_type, { kind: 'refund', amountMinor: amounts.amountMinor, currency: c.request_currency, paidMinor: c.request_amount_minor });
    if (refused) throw validationError([refused]);
    const wallet = await t.oneOrNone<{ id: number }>(SQL.lockWallet, { businessId: c.business_id, currency: c.account_currency });
    if (!wallet) throw new Error(`collection ${c.id} has no ${c.account_currency} wallet`);
    const { available_minor: available } = await t.one<{ available_minor: bigint }>(SQL.walletAvailable, { walletId: wallet.id });
    if (!availableCovers(available, amounts.accountAmountMinor)) {
      throw new AppError(
        'INSUFFICIENT_FUNDS',
        `The ${c.account_currency} wallet has ${formatMinor(available)} available; this refund needs ${formatMinor(amounts.accountAmountMinor)}`,
      );
    }
    const now = this.p.now();
    const row = await t.oneOrNone<RefundRow>(SQL.insertRefund, {
      businessId: who.businessId, apiTokenId: who.apiTokenId, collectionId: c.id, walletId: wallet.id, gatewayReference: newGatewayReference(),
      merchantReference: body.merchant_reference, requestHash: hash, amountMinor: amounts.amountMinor, currency: c.request_currency,
      accountAmountMinor: amounts.accountAmountMinor, accountCurrency: c.account_currency, reason: body.reason ?? null, message: REFUND_MESSAGES.PENDING,
      serviceType: c.service_type, midId: c.mid_id, reference: randomUUID(), callbackToken: randomBytes(24).toString('base64url'), now,
      collectionGatewayReference: c.gateway_reference,
    });
    if (!row) throw new ReferenceTaken();
    await t.none(SQL.collectionRefunded, { collectionId: c.id, deltaMinor: amounts.amountMinor });
    await this.post(t, row, refundHoldPlan({ walletId: wallet.id, currency: c.account_currency, accountAmountMinor: row.account_amount_minor }), now);
    if (who.byToken) {
      await t.none(SQL.audit, { now, businessId: who.businessId, gatewayReference: row.gateway_reference, after: JSON.stringify(toRefundRecord(row)), requestId, apiTokenId: who.apiTokenId });
    }
    return row;
  }

  /** The caller's refund; NOT_FOUND for anyone else's. */
  async get(businessId: number, gatewayReference: string): Promise<RefundRow> {
    const row = await this.db.oneOrNone<RefundRow>(SQL.byGatewayReference, { gatewayReference, businessId });
    if (!row) throw new AppError('NOT_FOUND', 'No refund of yours has this gateway_reference');
    return row;
  }

  byMerchantReference(businessId: number, merchantReference: string): Promise<RefundRow | null> {
    return this.db.oneOrNone<RefundRow>(SQL.byReference, { businessId, merchantReference });
  }

  /** Every refund of a collection (found by its caller, who checked who may see it), newest first. */
  ofCollection(collectionId: bigint): Promise<RefundRow[]> {
    return this.db.any<RefundRow>(SQL.ofCollection, { collectionId });
  }

  /** Refunds, newest first, filtered: one business's (`f.business_id`, always set for a merchant) or every business's. */
  list(f: RefundFilters, page: PageRequest): Promise<ListPage<RefundRow>> {
    const where = refundFilterWhere(f);
    const text = `SELECT r.*, c.gateway_reference AS collection_gateway_reference FROM refunds r JOIN collections c ON c.id = r.collection_id WHERE ${where}`;
    return listPage<RefundRow>(this.db, { sql: text, values: [], key: NEWEST_FIRST, direction: 'DESC' }, page);
  }

  // ---- state changes -------------------------------------------------------------------------------

  /**
   * The one path by which a refund changes state, in one transaction: the move (guarded on where it may
   * come from), the collection's refunded amount given back on FAILED or CANCELLED, the outcome journal
   * of a final state, the notification and the emails. Null when the refund was not in a state it may
   * move from (a repeat or a late report changes nothing).
   */
  async move(refundId: bigint, m: Move): Promise<RefundRow | null> {
    const from: RefundStatus[] = m.to === 'PROCESSING' ? ['PENDING'] : ['PENDING', 'PROCESSING'];
    const moved = await this.db.tx('refund-move', async (t) => {
      const now = this.p.now();
      const final = isRefundFinal(m.to);
      const row = await t.oneOrNone<Moved>(SQL.move, {
        refundId, to: m.to, from, failureReason: m.failureReason ?? null, message: REFUND_MESSAGES[m.to], now,
        vendorReference: m.vendorReference ?? null, claimUrl: m.claimUrl ?? null, sendState: final ? 'settled' : 'sent', nextCheckAt: final ? null : (m.nextCheckAt ?? null),
        resolutionNote: m.resolution?.note ?? null, resolvedBy: m.resolution?.by ?? null,
      });
      if (!row) return null;
      if (final) {
        // the collection before the ledger, in the order a new refund takes them (no deadlock)
        if (m.to !== 'COMPLETED') await t.none(SQL.collectionRefunded, { collectionId: row.collection_id, deltaMinor: -row.amount_minor });
        const plan = refundOutcomePlan(m.to as RefundFinal, { walletId: row.wallet_id, currency: row.account_currency, accountAmountMinor: row.account_amount_minor });
        await this.post(t, row, plan, now);
      }
      await this.outbox(t, row, now);
      return row;
    });
    if (moved) {
      this.p.log.info('refund moved', { gateway_reference: moved.gateway_reference, status: moved.status });
      this.p.kick('webhooks');
      this.p.kick('emails');
    }
    return moved;
  }

  /**
   * An operator's decision on a refund held for them, once, through the one state change: COMPLETED posts
   * its hold out as any completed refund (the customer has the money back), FAILED returns the hold to the
   * wallet as any failed refund; the merchant is notified as for any such change. NOT_FOUND for no such
   * refund; INVALID_STATE, changing nothing, for one that is not held (never held, or settled already).
   */
  async resolveHeld(gatewayReference: string, outcome: 'COMPLETED' | 'FAILED', note: string, by: string): Promise<RefundRow> {
    // the lock, the move and (in the operator API) its audit entry in one transaction
    return inOneChange(this.db, async () => {
      const held = await this.db.oneOrNone<{ id: bigint; send_state: RefundRow['send_state'] }>(SQL.lockHeld, { gatewayReference });
      if (!held) throw new AppError('NOT_FOUND', 'No refund has this gateway_reference');
      if (held.send_state !== 'held') throw new AppError('INVALID_STATE', 'This refund is not held for an operator: only a held refund can be resolved, once');
      const failureReason = outcome === 'FAILED' ? RESOLVED_FAILED_REASON : null;
      const moved = await this.move(held.id, { to: outcome, failureReason, resolution: { note, by } });
      if (!moved) throw new Error(`held refund ${gatewayReference} did not move`);
      return moved;
    });
  }

  /** A refund journal, checked to balance first; a second hold or outcome of one refund is a bug. */
  private async post(t: Tx, row: RefundRow, journal: RefundJournal, now: Date): Promise<void> {
    assertBalanced(journal.postings);
    const ids = await this.accountIds(t, row.business_id, journal.postings.map((p) => p.account));
    const written = await t.any(SQL.postJournal, {
      collectionId: row.collection_id, refundId: row.id, kind: journal.kind, now,
      accountIds: journal.postings.map((p) => ids.get(accountName(p.account))),
      amounts: journal.postings.map((p) => p.amountMinor),
      currencies: journal.postings.map((p) => p.account.currency),
    });
    if (written.length !== 1) throw new Error(`refund ${row.id} already has its ${journal.kind} journal`);
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

  /** The webhook notification (when an API token asked) and the emails of a move. */
  private async outbox(t: Tx, row: Moved, now: Date): Promise<void> {
    const { account_email: customerEmail, recipients, ...refund } = row;
    if (refund.api_token_id !== null) {
      const body = JSON.stringify({ ...toRefundRecord(refund), sequence: refund.notification_seq });
      await t.none(SQL.notification, {
        collectionId: refund.collection_id, refundId: refund.id, apiTokenId: refund.api_token_id, eventId: 'evt_' + randomBytes(16).toString('hex'),
        sequence: refund.notification_seq, status: refund.status, body, now, traceParent: currentTraceParent(),
        firstAttemptAt: new Date(now.getTime() + this.p.config.webhookRetryScheduleMs[0]),
      });
    }
    const emails = refundEmails(refund, recipients, customerEmail);
    if (emails.length === 0) return;
    await t.none(SQL.emails, {
      collectionId: refund.collection_id, now,
      kinds: emails.map((e) => e.kind), recipients: emails.map((e) => e.recipient), subjects: emails.map((e) => e.subject), texts: emails.map((e) => e.text),
    });
  }

  // ---- the workers: sends and status queries ---------------------------------------------------------

  private leaseEnd(): Date {
    return new Date(this.p.now().getTime() + CALLS_PER_ITEM * this.p.config.processors.timeoutMs + LEASE_MARGIN_MS);
  }

  private after(schedule: number[], n: number): Date {
    return new Date(this.p.now().getTime() + schedule[Math.min(Math.max(n, 0), schedule.length - 1)]);
  }

  private connectorOf(r: Claimed): RefundConnector {
    const c = this.p.refundsOf(r.service_type);
    if (!c) throw new Error(`service type ${r.service_type} offers no refunds`);
    return c;
  }

  private context(r: Claimed): CallContext {
    return { midId: r.mid_id ?? 0, credentials: this.p.openCredentials(r.credentials_enc) };
  }

  /** The collection refunded, as it was sent to the processor. */
  private originalOf(r: Claimed): RefundOrder['original'] {
    return {
      reference: r.original_reference ?? r.collection_gateway_reference,
      vendorReference: r.original_vendor_reference,
      receipt: r.original_receipt,
      amountMinor: r.collection_amount_minor,
      accountNumber: r.account_number,
    };
  }

  /** Where the processor may call back about this refund: its own unguessable token. */
  private callbackUrl(r: Claimed): string {
    return `${this.p.config.publicBaseUrl}/callbacks/${r.service_type}/${r.callback_token}`;
  }

  /** Sends the refunds that are due (new ones, retries), and asks about those whose worker died mid-send. */
  async sendDue(): Promise<number> {
    const claimed = await this.claimSends();
    await Promise.all(claimed.map((r) => this.sendOne(r)));
    return claimed.length;
  }

  /** The refunds due a send, claimed for a lease and marked 'sending': a worker that dies now leaves them to the next after it. */
  claimSends(): Promise<Claimed[]> {
    return this.db.any<Claimed>(SQL.claim, { clock: 'next_send_at', counter: 'send_attempts', send: true, now: this.p.now(), limit: BATCH, leaseEnd: this.leaseEnd() });
  }

  private async sendOne(r: Claimed): Promise<void> {
    const check = this.p.refundsOf(r.service_type)?.originalCheck;
    const asking = check !== undefined && r.original_confirmed_at === null;
    if (r.was_sending && !asking) {
      // its last worker died after the call may have reached the processor: an unknown outcome, settled by
      // a status query (and sent again, same reference, only when the processor never received it). A
      // worker that died asking about the refunded payment only read: that is asked again below.
      await this.afterSend(r, { kind: 'unknown', detail: 'the worker sending it stopped before writing the outcome' });
      return;
    }
    if (r.status !== 'PENDING' || r.send_state !== 'sending') {
      await this.record(r, { sendState: r.send_state, nextSendAt: null, nextCheckAt: r.next_check_at, lastError: r.last_error, pendingReason: r.pending_reason });
      return;
    }
    const order: RefundOrder = {
      reference: r.reference,
      gatewayReference: r.gateway_reference,
      original: this.originalOf(r),
      amountMinor: r.amount_minor,
      currency: r.currency,
      reason: r.reason,
      callbackUrl: this.callbackUrl(r),
    };
    if (check && asking) {
      await this.askOriginal(r, check, order);
      return;
    }
    let result: RefundSendResult;
    try {
      result = await this.connectorOf(r).initiateRefund(this.context(r), order);
    } catch (err) {
      this.p.log.error('refund send failed', { service_type: r.service_type, gateway_reference: r.gateway_reference, err });
      result = { kind: 'unknown', detail: 'connector failed' };
    }
    await this.afterSend(r, result);
  }

  /**
   * Before a processor with an original check is sent the refund, it is asked about the refunded payment
   * (M-Pesa: Transaction Status of the receipt a callback gave); its answer comes to the callback URL
   * (promptOriginal). Asked again on the check schedule while no answer comes: asking is only reading.
   */
  private async askOriginal(r: Claimed, check: OriginalCheck, order: RefundOrder): Promise<void> {
    const fields = { service_type: r.service_type, gateway_reference: r.gateway_reference, attempt: r.send_attempts };
    let sent: ConfirmationSent;
    try {
      sent = await check.ask(this.context(r), order);
    } catch (err) {
      this.p.log.error('refund original check failed', { ...fields, err });
      sent = { kind: 'retry', detail: 'connector failed' };
    }
    switch (sent.kind) {
      case 'asked':
        this.p.log.info('processor asked about the refunded payment', fields);
        await this.db.none(SQL.originalAsked, { refundId: r.id, queryReference: sent.queryReference, nextSendAt: this.after(this.p.config.processors.checkScheduleMs, r.send_attempts - 1) });
        return;
      case 'refused':
        this.p.log.warn('refund refused before sending: the refunded payment is not confirmed', { ...fields, detail: sent.detail });
        await this.move(r.id, { to: 'FAILED', failureReason: sent.message });
        return;
      case 'retry':
        this.p.log.warn('refund original check to be retried', { ...fields, detail: sent.detail });
        await this.record(r, { sendState: 'queued', nextSendAt: this.after(this.p.config.processors.sendScheduleMs, r.send_attempts), nextCheckAt: null, lastError: sent.detail, pendingReason: 'awaiting_processor' });
        return;
    }
  }

  private async afterSend(r: Claimed, result: RefundSendResult): Promise<void> {
    const fields = { service_type: r.service_type, gateway_reference: r.gateway_reference, attempt: r.send_attempts };
    const checks = this.p.config.processors.checkScheduleMs;
    switch (result.kind) {
      case 'accepted':
      case 'accepted_with_link':
        this.p.log.info('refund accepted by the processor', fields);
        await this.move(r.id, {
          to: 'PROCESSING', vendorReference: result.vendorReference, claimUrl: result.kind === 'accepted_with_link' ? result.claimUrl : null,
          nextCheckAt: this.after(checks, 0),
        });
        return;
      case 'refused':
        this.p.log.warn('processor refused the refund', { ...fields, detail: result.detail });
        await this.move(r.id, { to: 'FAILED', failureReason: result.message });
        return;
      case 'retry':
        this.p.log.warn('refund send to be retried', { ...fields, detail: result.detail });
        await this.record(r, { sendState: 'queued', nextSendAt: this.after(this.p.config.processors.sendScheduleMs, r.send_attempts), nextCheckAt: null, lastError: result.detail, pendingReason: 'awaiting_processor' });
        return;
      case 'unknown':
        this.p.log.warn('refund send outcome unknown', { ...fields, detail: result.detail });
        await this.record(r, { sendState: 'unknown', nextSendAt: null, nextCheckAt: this.after(this.p.config.processors.sendScheduleMs, r.send_attempts), lastError: result.detail, pendingReason: 'outcome_unknown' });
        return;
    }
  }

  /** Asks the processor about the refunds due a status query. */
  async checkDue(): Promise<number> {
    const claimed = await this.db.any<Claimed>(SQL.claim, { clock: 'next_check_at', counter: 'checks', send: false, now: this.p.now(), limit: BATCH, leaseEnd: this.leaseEnd() });
    await Promise.all(claimed.map((r) => this.checkOne(r)));
    return claimed.length;
  }

  private async checkOne(r: Claimed): Promise<void> {
    if (isRefundFinal(r.status) || r.send_state === 'queued' || r.send_state === 'sending' || r.send_state === 'held') {
      await this.record(r, { sendState: r.send_state, nextSendAt: r.next_send_at, nextCheckAt: null, lastError: r.last_error, pendingReason: r.pending_reason });
      return;
    }
    let result: QueryResult;
    try {
      result = await this.connectorOf(r).queryRefund(this.context(r), {
        reference: r.reference, vendorReference: r.vendor_reference, callbackUrl: this.callbackUrl(r), original: this.originalOf(r),
      });
    } catch (err) {
      this.p.log.error('refund status query failed', { service_type: r.service_type, gateway_reference: r.gateway_reference, err });
      result = { kind: 'unavailable', detail: 'connector failed' };
    }
    await this.afterCheck(r, result);
  }

  private async afterCheck(r: Claimed, result: QueryResult): Promise<void> {
    const again = this.after(this.p.config.processors.checkScheduleMs, r.checks);
    if (result.kind === 'observed') {
      const o = result.observed;
      if (o.unmapped) this.p.log.error('unknown refund status read as PENDING', { service_type: r.service_type, gateway_reference: r.gateway_reference, vendor_status: o.vendorStatus });
      if (o.held) {
        await this.holdForOperator(r.id, o);
        return;
      }
      // a refund found by our reference keeps what its send's lost answer would have given: the processor's id, the claim link
      const found = { vendorReference: o.vendorReference ?? null, claimUrl: o.claimUrl ?? null };
      if (o.status !== 'PENDING') {
        await this.move(r.id, { to: o.status, failureReason: o.status === 'COMPLETED' ? null : (o.message ?? REFUND_MESSAGES[o.status]), ...found });
        return;
      }
      // the processor has it: an unknown send was taken after all
      if (r.status === 'PENDING') await this.move(r.id, { to: 'PROCESSING', nextCheckAt: again, ...found });
      else await this.record(r, { sendState: 'sent', nextSendAt: null, nextCheckAt: again, lastError: null, pendingReason: null, ...found });
      return;
    }
    if (result.kind === 'not_found' && r.send_state === 'unknown') {
      // it never reached the processor: sent again, under the same reference
      this.p.log.warn('refund unknown to the processor: sent again under the same reference', { gateway_reference: r.gateway_reference });
      await this.record(r, { sendState: 'queued', nextSendAt: this.p.now(), nextCheckAt: null, lastError: 'not found at the processor', pendingReason: 'awaiting_processor' });
      this.p.kick('refund-sends');
      return;
    }
    const note = result.kind === 'not_found' ? 'not found at the processor' : result.detail;
    await this.record(r, { sendState: r.send_state, nextSendAt: null, nextCheckAt: again, lastError: note, pendingReason: r.pending_reason });
  }

  /**
   * Holds a refund for an operator: the processor's answer (M-Pesa's "already reversed") settles nothing
   * by itself, since the customer may have the money back already. Neither FAILED (returning the hold
   * would credit the merchant twice) nor COMPLETED; not sent or asked about again; an error line tells the
   * operator. A repeated answer changes nothing.
   */
  private async holdForOperator(refundId: bigint, o: Observed): Promise<void> {
    const reason = o.message ?? o.vendorStatus;
    const held = await this.db.oneOrNone<{ gateway_reference: string }>(SQL.hold, { refundId, reason });
    if (held) this.p.log.error('refund held for the operator, its money still held: check with the processor', { gateway_reference: held.gateway_reference, vendor_status: o.vendorStatus, reason });
  }

  private async record(
    r: Claimed,
    s: {
      sendState: RefundRow['send_state']; nextSendAt: Date | null; nextCheckAt: Date | null; lastError: string | null; pendingReason: RefundRow['pending_reason'];
      vendorReference?: string | null; claimUrl?: string | null;
    },
  ): Promise<void> {
    const written = await this.db.result(SQL.requestState, { refundId: r.id, vendorReference: null, claimUrl: null, ...s });
    // held meanwhile (a send or query under way when the hold came): it waits for the operator
    if (written.rowCount === 0) this.p.log.warn('late processor answer for a refund held for the operator: ignored', { gateway_reference: r.gateway_reference, send_state: s.sendState });
  }

  /**
   * A processor's callback about a refund, found by the unguessable token of its URL: a prompt to ask
   * the processor now. What it says is taken as the answer only from a vendor whose results come this way
   * (M-Pesa's reversal and status results, `observed`) and only when it names the processor's id the send
   * was given. False when no refund of this service type has the token.
   */
  async prompt(serviceType: string, callbackToken: string, body: unknown): Promise<boolean> {
    const connector = this.p.refundsOf(serviceType);
    if (!connector) return false;
    if (connector.originalCheck) {
      const answered = await this.promptOriginal(connector.originalCheck, serviceType, callbackToken, body);
      if (answered !== null) return answered;
    }
    const note = connector.parseRefundCallback(body);
    const hit = await this.db.oneOrNone<{ id: bigint; status: RefundStatus; known_vendor_reference: string | null }>(SQL.prompt, {
      now: this.p.now(), vendorReference: note.vendorReference, callbackToken, serviceType,
    });
    if (!hit) return false;
    const o = note.observed;
    if (o && !o.unmapped && note.vendorReference !== null && note.vendorReference === hit.known_vendor_reference) {
      if (o.held) await this.holdForOperator(hit.id, o);
      else if (o.status !== 'PENDING') await this.move(hit.id, { to: o.status, failureReason: o.status === 'COMPLETED' ? null : (o.message ?? REFUND_MESSAGES[o.status]) });
      else if (hit.status === 'PENDING') await this.move(hit.id, { to: 'PROCESSING', nextCheckAt: this.after(this.p.config.processors.checkScheduleMs, 0) });
      return true;
    }
    this.p.kick('refund-checks');
    return true;
  }

  /**
   * The processor's answer about a refund's payment (askOriginal), on the refund's own callback URL and
   * naming one of the queries we made (one that came before its query's id was stored is dropped: the
   * payment is asked about again). A match lets the refund be sent now; anything else
   * fails it with the reason and returns its money, and nothing is sent. Null when the body answers no
   * such query of a refund still waiting for one (the caller reads it as any refund callback).
   */
  private async promptOriginal(check: OriginalCheck, serviceType: string, callbackToken: string, body: unknown): Promise<boolean | null> {
    const queryReference = check.answers(body);
    if (queryReference === null) return null;
    const r = await this.db.oneOrNone<Claimed>(SQL.originalByToken, { callbackToken, serviceType });
    if (!r) return false;
    // 'sending': asked again meanwhile (the answer to an earlier query still counts)
    const waiting = r.status === 'PENDING' && (r.send_state === 'queued' || r.send_state === 'sending') && r.original_confirmed_at === null;
    if (!waiting) return null;
    const fields = { service_type: r.service_type, gateway_reference: r.gateway_reference };
    if (!r.original_query_references.includes(queryReference)) {
      this.p.log.warn('answer about a refunded payment to another query: dropped', fields);
      return true;
    }
    const v = check.judge(this.context(r).credentials, this.originalOf(r), body);
    if (v.verdict === 'confirmed') {
      const confirmed = await this.db.oneOrNone(SQL.originalConfirmed, { refundId: r.id, now: this.p.now() });
      if (confirmed) {
        this.p.log.info('processor confirmed the refunded payment: sending the refund', fields);
        this.p.kick('refund-sends');
      }
    } else if (v.verdict === 'wait') {
      await this.db.none(SQL.originalWaiting, { refundId: r.id, lastError: v.detail });
    } else {
      this.p.log.warn('refund failed: the processor does not confirm the refunded payment', { ...fields, reason: v.message });
      await this.move(r.id, { to: 'FAILED', failureReason: v.message });
    }
    return true;
  }

  /**
   * A processor's signed webhook (checked by the caller) that may be about refunds of one payment: a
   * prompt to ask about them now. Returns how many refunds it prompted.
   */
  async promptByPayment(serviceType: string, body: unknown): Promise<number> {
    const connector = this.p.refundsOf(serviceType);
    if (!connector) return 0;
    const note = connector.parseRefundCallback(body);
    if (!note.vendorReference && !note.originalReference) return 0;
    const hits = await this.db.any(SQL.promptByPayment, { now: this.p.now(), serviceType, vendorReference: note.vendorReference, originalReference: note.originalReference ?? null });
    if (hits.length > 0) this.p.kick('refund-checks');
    return hits.length;
  }

  workers(): WorkerSpec[] {
    return [
      { name: 'refund-sends', intervalMs: 500, run: () => this.sendDue() },
      { name: 'refund-checks', intervalMs: 500, run: () => this.checkDue() },
    ];
  }
}

function minorOf(amount: number): bigint {
  try {
    return toMinor(amount);
  } catch (e) {
    if (e instanceof MoneyFormatError) throw validationError([{ field: 'amount', message: e.message }]);
    throw e;
  }
}

function refundAmountsOrRefuse(c: LockedCollection, refundedAccountMinor: bigint, requested: bigint | null) {
  try {
    return refundAmounts({ requestAmountMinor: c.request_amount_minor, accountAmountMinor: c.account_amount_minor, refundedMinor: c.refunded_minor, refundedAccountMinor }, requested);
  } catch (e) {
    if (!(e instanceof RefundRefused)) throw e;
    const rest = c.request_amount_minor - c.refunded_minor;
    const message = e.why === 'over_refund' ? `is more than the ${formatMinor(rest)} ${c.request_currency} still refundable on this collection` : e.message;
    throw validationError([{ field: 'amount', message }]);
  }
}
