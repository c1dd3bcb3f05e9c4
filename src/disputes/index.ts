// Card disputes (docs/contract/disputes.md): the door of the wing that owns the `disputes` table. A
// processor's dispute is learnt from its signed events (prompts: the service asks the processor for the
// dispute) and from a scheduled poll of its dispute list; each word is recorded by `record`, in one
// transaction under the disputed collection's lock: the dispute's row, its journal through the ledger (the
// hold when it opens, the release or the debit when it closes), the merchant's webhook notification
// (webhooks.ts) and e-mail.
import { randomBytes } from 'node:crypto';
import { sqlFiles } from '../db';
import type { ListPage, PageRequest } from '../db/keyset';
import type { Db, Tx } from '../db';
import { COUNTRY_OF_CURRENCY, disputeDeadline, disputeHoldPlan, disputeOutcomePlan, inWalletCurrency, isDisputeClosed } from '../domain/dispute';
import type { DisputeStatus, ObservedDispute } from '../domain/dispute';
import type { LedgerService } from '../ledger/ledger';
import type { Logger } from '../log';
import type { NotificationService } from '../notifications/notifications';
import type { CallContext, DisputeConnector } from '../processors/types';
import type { WorkerSpec } from '../workers/loops';
import { AppError, validationError } from '../errors';
import { amountOrError, toApi } from '../domain/money';
import type { DisputeView } from '../api-records/dispute';
import { disputeOpenedEmails, disputeReminderEmails } from './emails';
import type { DisputeRecipients, OpenedDispute } from './emails';
import { notifyDispute } from './webhooks';
import { answerable, evidenceOf } from './responses';
import type { components } from '../../generated/merchant-api';
import { getDispute, listDisputes } from './queries';
import type { DisputeFilters } from './queries';

const SQL = sqlFiles(__dirname, ['disputed-collection', 'due-reminders', 'insert-dispute', 'move-dispute']);

/** The poll looks back this far for disputes (a chargeback may come months after the payment). */
export const DISPUTE_POLL_LOOKBACK_DAYS = 120;
/** Pages of the dispute list read per MID per poll: a bound, the next poll reads on. */
export const DISPUTE_POLL_MAX_PAGES = 5;
export const DISPUTE_POLL_INTERVAL_MS = 15 * 60_000;
/** A dispute still needing an answer is reminded once, this long before its deadline. */
export const DISPUTE_REMINDER_LEAD_MS = 4 * 3_600_000;
const DISPUTE_REMINDER_BATCH = 100;
/** MIDs polled per run: a bound on one run's calls. */
const DISPUTE_POLL_MAX_MIDS = 200;

export interface DisputeParts {
  db: () => Db;
  log: Logger;
  now: () => Date;
  kick: (worker: string) => void;
  /** the dispute side of a service type's processor; null when it has no chargebacks */
  disputesOf: (serviceType: string) => DisputeConnector | null;
  /** a MID's sealed credentials, opened (never logged) */
  openCredentials: (sealed: string | null) => CallContext['credentials'];
  ledger: Pick<LedgerService, 'postJournal'>;
  notifications: Pick<NotificationService, 'enqueueEmails' | 'enqueueWebhook'>;
}

export interface DisputeRow {
  id: bigint;
  gateway_reference: string;
  business_id: number;
  collection_id: bigint;
  mid_id: number;
  wallet_id: number;
  processor_dispute_id: string;
  stage: string;
  status: DisputeStatus;
  processor_status: string;
  reason: string | null;
  amount_minor: bigint;
  currency: string;
  held_minor: bigint;
  debited_minor: bigint | null;
  refunded_minor: bigint;
  deadline_at: Date;
  resolution: string | null;
  opened_at: Date;
  closed_at: Date | null;
}

interface Disputed {
  id: bigint;
  business_id: number;
  gateway_reference: string;
  status: string;
  payment_method: string;
  mid_id: number;
  request_amount_minor: bigint;
  account_amount_minor: bigint;
  account_currency: string;
  refunded_minor: bigint;
  wallet_id: number;
  mid_currency: string;
  recipients: DisputeRecipients | null;
}

/** What a recorded word did. */
export type Recorded = 'opened' | 'moved' | 'unchanged' | 'no_collection';

export class DisputeService {
  constructor(private readonly p: DisputeParts) {}

  private get db(): Db {
    return this.p.db();
  }

  /**
   * A signed event on a MID's webhook route (its signature already checked): when it names a dispute, the
   * processor is asked for it with that MID's credentials and its answer recorded. False when the body is
   * not a dispute event (the caller prompts the other kinds).
   */
  async prompt(serviceType: string, midId: number, rawBody: Buffer): Promise<boolean> {
    const connector = this.p.disputesOf(serviceType);
    const id = connector?.disputeOfEvent(rawBody) ?? null;
    if (!connector || id === null) return false;
    await this.learn(serviceType, midId, id);
    return true;
  }

  /** The processor is asked for one dispute with the MID's credentials, and its answer recorded. */
  async learn(serviceType: string, midId: number, id: string): Promise<Recorded | null> {
    const connector = this.p.disputesOf(serviceType);
    if (!connector) return null;
    const mid = await this.db.one<{ credentials_enc: string | null }>('SELECT credentials_enc FROM mids WHERE id = $1', [midId]);
    const a = await connector.fetchDispute({ midId, credentials: this.p.openCredentials(mid.credentials_enc) }, id);
    if (a.kind === 'found') return this.record(serviceType, a.dispute);
    if (a.kind === 'unavailable') this.p.log.warn('dispute: the processor did not answer for the dispute', { service_type: serviceType, mid_id: midId, dispute: id, detail: a.detail });
    else this.p.log.info('dispute: the processor has no such dispute', { service_type: serviceType, mid_id: midId, dispute: id });
    return null;
  }

  /** Each open dispute of a business read again from its processor and recorded (the sandbox's clock moved). */
  async reread(businessId: number): Promise<number> {
    const open = await this.db.any<{ service_type: string; mid_id: number; processor_dispute_id: string }>(
      'SELECT m.service_type, d.mid_id, d.processor_dispute_id FROM disputes d JOIN mids m ON m.id = d.mid_id WHERE d.business_id = $1 AND d.closed_at IS NULL ORDER BY d.id',
      [businessId],
    );
    let moved = 0;
    for (const d of open) if ((await this.learn(d.service_type, d.mid_id, d.processor_dispute_id)) === 'moved') moved += 1;
    return moved;
  }

  /** The scheduled poll: each MID of a processor with chargebacks, its disputes of the look-back, a bounded number of pages. */
  async poll(): Promise<number> {
    const mids = await this.db.any<{ id: number; service_type: string; credentials_enc: string | null }>(
      `SELECT id, service_type, credentials_enc FROM mids WHERE active AND payment_method = 'CARD' ORDER BY id LIMIT $1`,
      [DISPUTE_POLL_MAX_MIDS],
    );
    const from = new Date(this.p.now().getTime() - DISPUTE_POLL_LOOKBACK_DAYS * 86_400_000);
    let recorded = 0;
    for (const mid of mids) {
      const connector = this.p.disputesOf(mid.service_type);
      if (!connector) continue;
      const ctx = { midId: mid.id, credentials: this.p.openCredentials(mid.credentials_enc) };
      for (let page = 1; page <= DISPUTE_POLL_MAX_PAGES; page++) {
        const a = await connector.listDisputes(ctx, from, page);
        if (a.kind !== 'listed') {
          this.p.log.warn('dispute poll: the processor did not answer', { mid_id: mid.id, detail: a.detail });
          break;
        }
        for (const d of a.disputes) if ((await this.record(mid.service_type, d)) !== 'unchanged') recorded += 1;
        if (!a.more) break;
      }
    }
    return recorded;
  }

  /**
   * Reminds the merchant of each dispute still needing an answer whose deadline is within the lead of `now`,
   * once each: the e-mail and the `dispute.deadline_near` webhook, in one transaction.
   */
  async remind(now = this.p.now()): Promise<number> {
    const sent = await this.db.tx('dispute-remind', async (t) => {
      const due = await t.any<OpenedDispute & { id: bigint; collection_id: bigint; recipients: DisputeRecipients | null }>(SQL.dueReminders, {
        now, remindBefore: new Date(now.getTime() + DISPUTE_REMINDER_LEAD_MS), limit: DISPUTE_REMINDER_BATCH,
      });
      for (const d of due) {
        await this.p.notifications.enqueueEmails(t, d.collection_id, disputeReminderEmails(d, d.recipients));
        await notifyDispute(t, this.p.notifications, d.id, 'dispute.deadline_near', this.p.now()); // written now, as the e-mail
        await t.none('UPDATE disputes SET reminded_at = $2 WHERE id = $1', [d.id, now]);
      }
      return due.length;
    });
    if (sent > 0) this.kickOutbox();
    return sent;
  }

  workers(): WorkerSpec[] {
    return [
      { name: 'dispute-poll', intervalMs: DISPUTE_POLL_INTERVAL_MS, run: () => this.poll() },
      { name: 'dispute-reminders', intervalMs: 60_000, run: () => this.remind() },
    ];
  }

  /**
   * One word of the processor on a dispute, in one transaction under the collection's lock: a dispute
   * first seen is written with its hold (and its outcome at once when it was closed already); an open one
   * moves, and a move to a closed state posts its release or debit. A closed dispute never moves again.
   */
  async record(serviceType: string, d: ObservedDispute): Promise<Recorded> {
    const done = await this.db.tx('dispute-record', async (t) => {
      const c = await t.oneOrNone<Disputed>(SQL.disputedCollection, { serviceType, reference: d.transactionReference });
      if (!c || c.status !== 'COMPLETED' || c.payment_method !== 'CARD') return 'no_collection' as const;
      const now = this.p.now();
      const known = await t.oneOrNone<DisputeRow>('SELECT * FROM disputes WHERE mid_id = $1 AND processor_dispute_id = $2 FOR UPDATE', [c.mid_id, d.processorDisputeId]);
      if (!known) return this.open(t, c, d, now);
      if (isDisputeClosed(known.status)) return 'unchanged' as const;
      return this.move(t, known, d, now);
    });
    if (done === 'no_collection') this.p.log.warn('dispute names no completed card collection of ours', { service_type: serviceType, dispute: d.processorDisputeId });
    if (done === 'opened' || done === 'moved') this.kickOutbox();
    return done;
  }

  private kickOutbox(): void {
    this.p.kick('emails');
    this.p.kick('webhooks');
  }

  private async open(t: Tx, c: Disputed, d: ObservedDispute, now: Date): Promise<Recorded> {
    const held = d.currency === c.account_currency ? d.amountMinor : inWalletCurrency(d.amountMinor, c.request_amount_minor, c.account_amount_minor);
    const row = await t.oneOrNone<DisputeRow>(SQL.insertDispute, {
      gatewayReference: `DSP${randomBytes(10).toString('hex').toUpperCase()}`, businessId: c.business_id, collectionId: c.id, midId: c.mid_id, walletId: c.wallet_id,
      processorDisputeId: d.processorDisputeId, stage: d.stage, processorStatus: d.processorStatus, reason: d.reason, amountMinor: d.amountMinor, currency: d.currency,
      heldMinor: held > 0n ? held : 1n, refundedMinor: c.refunded_minor, deadlineAt: disputeDeadline(d.openedAt, COUNTRY_OF_CURRENCY[c.mid_currency] ?? 'NG'), openedAt: d.openedAt, now,
    });
    if (!row) throw new Error(`dispute ${d.processorDisputeId} was written by another transaction under the collection's lock`);
    await this.post(t, row, disputeHoldPlan({ walletId: row.wallet_id, currency: c.account_currency, heldMinor: row.held_minor }), now);
    await this.p.notifications.enqueueEmails(t, c.id, disputeOpenedEmails({ ...row, collection_gateway_reference: c.gateway_reference, account_currency: c.account_currency }, c.recipients));
    await notifyDispute(t, this.p.notifications, row.id, 'dispute.opened', now);
    this.p.log.info('dispute opened', { dispute: row.gateway_reference, collection: c.gateway_reference });
    if (d.status !== 'needs_response') await this.move(t, row, d, now);
    return 'opened';
  }

  private async move(t: Tx, known: DisputeRow, d: ObservedDispute, now: Date): Promise<Recorded> {
    const closes = isDisputeClosed(d.status);
    const debit = closes && d.status !== 'won' ? (d.currency === known.currency ? (d.debitMinor * known.held_minor) / known.amount_minor : known.held_minor) : null;
    const row = await t.oneOrNone<DisputeRow & { account_currency?: string }>(SQL.moveDispute, {
      id: known.id, status: d.status, stage: d.stage, processorStatus: d.processorStatus, reason: d.reason, resolution: d.resolution,
      debitedMinor: debit === null ? (d.status === 'won' ? 0n : null) : debit > known.held_minor ? known.held_minor : debit, now,
    });
    if (!row) return 'unchanged';
    if (closes) {
      const currency = await t.one<{ currency: string }>('SELECT currency FROM wallets WHERE id = $1', [row.wallet_id]);
      const plan = disputeOutcomePlan({ walletId: row.wallet_id, currency: currency.currency, heldMinor: row.held_minor }, d.status as 'won' | 'lost' | 'accepted', row.debited_minor ?? 0n);
      await this.post(t, row, plan, now);
    }
    if (row.status !== known.status) await notifyDispute(t, this.p.notifications, row.id, 'dispute.status_changed', now);
    this.p.log.info('dispute moved', { dispute: row.gateway_reference, status: row.status });
    return 'moved';
  }

  /** A dispute's journal, posted by the ledger; the DB's unique index makes a second hold or outcome impossible, and a bug if tried. */
  private async post(t: Tx, row: DisputeRow, plan: ReturnType<typeof disputeHoldPlan>, now: Date): Promise<void> {
    const owner = { collectionId: row.collection_id, disputeId: row.id };
    if (!(await this.p.ledger.postJournal(t, { businessId: row.business_id, owner, kind: plan.kind, postings: plan.postings, now }))) {
      throw new Error(`dispute ${row.id} already has its ${plan.kind} journal`);
    }
  }

  /** A collection's open dispute, if any: a refund of it is refused (src/refunds/request.ts asks). */
  async openOf(t: Tx | Db, collectionId: bigint): Promise<string | null> {
    const r = await t.oneOrNone<{ gateway_reference: string }>('SELECT gateway_reference FROM disputes WHERE collection_id = $1 AND closed_at IS NULL LIMIT 1', [collectionId]);
    return r?.gateway_reference ?? null;
  }

  /**
   * The merchant accepts a dispute that needs its response, for the whole amount or `amount` of it (a
   * partial acceptance), with its message: passed on to the processor, whose answer is then read and
   * recorded as any other word on the dispute (the debit follows through `record`). INVALID_STATE for a
   * dispute that does not need a response (answered, closed, or past its deadline: the processor accepted it
   * already); SERVICE_UNAVAILABLE when the processor did not answer (nothing changed here).
   */
  async accept(businessId: number, gatewayReference: string, body: { amount?: number; message: string }): Promise<DisputeView> {
    const d = await answerable(this.db, this.p.now(), businessId, gatewayReference, 'accepted');
    const amount = body.amount === undefined ? d.amount_minor : amountOrError(body.amount);
    if (typeof amount !== 'bigint') throw validationError([amount]);
    if (amount <= 0n || amount > d.amount_minor) throw validationError([{ field: 'amount', message: `must be more than 0 and at most the disputed ${toApi(d.amount_minor)}` }]);
    const connector = this.p.disputesOf(d.service_type);
    if (!connector) throw new Error(`dispute ${d.id} is at ${d.service_type}, which has no disputes`);
    const ctx = { midId: d.mid_id, credentials: this.p.openCredentials(d.credentials_enc) };
    const a = await connector.acceptDispute(ctx, d.processor_dispute_id, amount, body.message);
    return this.answered(businessId, d, 'acceptance', a);
  }

  /**
   * The merchant contests a dispute that needs its response: its evidence, its file (or its message as one)
   * and its message passed on to the processor, which declines the dispute with nothing refunded; what was
   * sent (the file by name, type and size) is kept on the dispute, whose new state is read and recorded as
   * any other word on it (under review until the bank decides). The same refusals as an acceptance.
   */
  async submitEvidence(businessId: number, gatewayReference: string, body: components['schemas']['DisputeEvidence']): Promise<DisputeView> {
    const d = await answerable(this.db, this.p.now(), businessId, gatewayReference, 'contested');
    const { evidence, file, message } = evidenceOf(gatewayReference, body);
    const connector = this.p.disputesOf(d.service_type);
    if (!connector) throw new Error(`dispute ${d.id} is at ${d.service_type}, which has no disputes`);
    if (!connector.declineDispute) throw new AppError('INVALID_STATE', 'Disputes at this processor cannot be contested with evidence through the API');
    const ctx = { midId: d.mid_id, credentials: this.p.openCredentials(d.credentials_enc) };
    const a = await connector.declineDispute(ctx, d.processor_dispute_id, evidence, file, message);
    if (a.kind === 'done') {
      const sent = { ...evidence, message, file: { name: file.name, content_type: file.contentType, bytes: file.bytes.length }, at: this.p.now().toISOString() };
      await this.db.none('UPDATE disputes SET evidence = $2 WHERE id = $1', [d.id, JSON.stringify(sent)]);
    }
    return this.answered(businessId, d, 'evidence', a);
  }

  /** After the processor's answer to the merchant's: a refusal or no answer is the caller's error; done, the dispute is read back and recorded. */
  private async answered(businessId: number, d: DisputeRow & { service_type: string; credentials_enc: string | null }, what: string, a: Awaited<ReturnType<DisputeConnector['acceptDispute']>>): Promise<DisputeView> {
    if (a.kind === 'refused') throw new AppError('INVALID_STATE', `The processor refused the ${what}: ${a.message}`.slice(0, 300));
    if (a.kind === 'unavailable') {
      this.p.log.warn(`dispute ${what}: the processor did not answer`, { dispute: d.gateway_reference, detail: a.detail });
      throw new AppError('SERVICE_UNAVAILABLE', 'The processor did not answer; the dispute is unchanged here. Try again in a moment');
    }
    const connector = this.p.disputesOf(d.service_type);
    const now = await connector?.fetchDispute({ midId: d.mid_id, credentials: this.p.openCredentials(d.credentials_enc) }, d.processor_dispute_id);
    if (now?.kind === 'found') await this.record(d.service_type, now.dispute);
    return this.get(businessId, d.gateway_reference);
  }

  /** A page of disputes, newest first, of the filters given (a merchant's always name its business). */
  list(filters: DisputeFilters, page: PageRequest): Promise<ListPage<DisputeView>> {
    return listDisputes(this.db, filters, page);
  }

  /** One dispute, of `businessId` when given (null: any business's, for the operator); NOT_FOUND for none. */
  get(businessId: number | null, gatewayReference: string): Promise<DisputeView> {
    return getDispute(this.db, businessId, gatewayReference);
  }
}
