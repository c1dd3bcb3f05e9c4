// Webhook and email outbox: written in the state change's transaction, delivered by a worker
// (docs/contract/webhooks.md). The notification body is serialised once, stored, and sent and signed as
// those exact bytes on every attempt.
import { randomBytes } from 'node:crypto';
import type { PageRequest } from '../db/keyset';
import { sqlFile, sqlPart } from '../db';
import type { Tx } from '../db';
import type { CollectionRow } from '../domain/collection';
import { AppError, validationError } from '../errors';
import { businessDeliveries } from './business-deliveries';
import type { DeliveryState } from './business-deliveries';
import { failingWebhooks, logOfCollection, logOfNotification } from './delivery-log';
import type { NotificationLogEntry } from './delivery-log';
import { finalSummary, receipt, startNotice } from './email';
import type { EmailDraft } from './email';
import { EmailWorker } from './email-worker';
import { assertPublicHost, BlockedAddressError, hostOf } from './ssrf';
import { WebhookWorker } from './webhook-worker';
import type { WorkerSpec } from '../workers/loops';
import { currentTraceParent } from '../telemetry';
import { toRecord } from '../api-records/collection';
import type { Base } from '../base';
import type { LivenessService } from '../workers/liveness';

export const WEBHOOK_TIMEOUT_MS = 10_000;
const WEBHOOK_INTERVAL_MS = 200;
const EMAIL_INTERVAL_MS = 1000;

export interface Recipients {
  notification_email: string;
  email_merchant: boolean;
  email_user: boolean;
  business_name: string;
}

/**
 * The outbox's values of a state change, for the move's write (collections/sql/move.sql): the webhook
 * notification (body NULL: none) and the emails as arrays, one element each.
 */
export interface StatusChangeValues {
  event_id: string | null;
  body: string | null;
  first_attempt_at: Date | null;
  notified_at: Date | null;
  trace_parent: string | null;
  emails_at: Date;
  email_kinds: string[];
  email_recipients: string[];
  email_subjects: string[];
  email_texts: string[];
}

/**
 * The outbox rows of a collection's state change and of its request-to-pay: the notifications' CTEs of
 * collections/sql/move.sql and create.sql, each its own part then the emails' one (collection-emails-cte.sql).
 */
const COLLECTION_EMAILS_CTE = sqlPart(__dirname, 'collection-emails-cte.sql');
export const STATUS_CHANGE_CTES = `${sqlPart(__dirname, 'status-change-ctes.sql')},\n${COLLECTION_EMAILS_CTE}`;
export const START_EMAILS_CTE = `${sqlPart(__dirname, 'start-emails-cte.sql')},\n${COLLECTION_EMAILS_CTE}`;
/** The webhook notification of a payment link's end, from the statement's `link_ended` (sql/link-ended-cte.sql). */
export const LINK_ENDED_CTE = sqlPart(__dirname, 'link-ended-cte.sql');

const SQL = {
  freeDeadClaims: sqlFile(__dirname, 'free-dead-claims.sql'),
  webhook: sqlFile(__dirname, 'webhook.sql'),
  emails: sqlFile(__dirname, 'emails.sql'),
  ownersEmail: sqlFile(__dirname, 'owners-email.sql'),
};

/** Retention's deletes of this wing's history: up to $2 rows older than $1, oldest first. */
const DELETE_OLD = {
  attempts: `DELETE FROM notification_attempts WHERE id IN (
      SELECT a.id FROM notification_attempts a JOIN notifications n ON n.id = a.notification_id
      WHERE a.at < $1 AND (n.delivered_at IS NOT NULL OR n.gave_up_at IS NOT NULL)
      ORDER BY a.at LIMIT $2)`,
  emails: `DELETE FROM emails WHERE id IN (
      SELECT id FROM emails WHERE created_at < $1 AND (sent_at IS NOT NULL OR gave_up_at IS NOT NULL)
      ORDER BY created_at LIMIT $2)`,
};

/** An email to every active owner of a business, but `exceptUserId` (who asked for what it tells of). */
export interface OwnersEmail {
  businessId: number;
  exceptUserId: number | null;
  kind: string;
  subject: string;
  text: string;
  now: Date;
}

export class NotificationService {
  /** per delivery attempt; the contract's 10 s (tests shorten it to prove timeouts are retried) */
  webhookTimeoutMs = WEBHOOK_TIMEOUT_MS;
  private readonly webhookWorker: WebhookWorker;
  private readonly emailWorker: EmailWorker;

  constructor(readonly s: Base & { liveness: LivenessService }) {
    this.webhookWorker = new WebhookWorker(s, () => this.webhookTimeoutMs);
    this.emailWorker = new EmailWorker(s);
  }

  /** Throws VALIDATION_ERROR (field webhook_url) for a URL live must refuse (SSRF guard). */
  async assertWebhookUrlAllowed(url: string): Promise<void> {
    const refuse = (message: string) => validationError([{ field: 'webhook_url', message }]);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refuse('must be an absolute http or https URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw refuse('must use http or https');
    if (this.s.config.webhookAllowPrivate) return;
    try {
      await assertPublicHost(hostOf(parsed));
    } catch (err) {
      if (err instanceof BlockedAddressError) throw refuse(`must reach a public address: ${err.message}`);
      throw refuse(`host ${hostOf(parsed)} cannot be resolved`);
    }
  }

  /**
   * The emails a new collection starts with (who: the recipients of its API token): the merchant's start
   * notice, when it asked for one. The row may be the one about to be inserted, without its id.
   */
  startEmails(row: Omit<CollectionRow, 'id'>, who: Recipients | null): EmailDraft[] {
    if (!who?.email_merchant) return [];
    return [startNotice(row as CollectionRow, who.notification_email, who.business_name)];
  }

  /**
   * The outbox of a change out of PENDING, as values of the move's write: the webhook notification (when
   * the collection has an API token; `sequence` is the collection's notification_seq the change takes for
   * it) and the emails (who: the recipients of its API token).
   */
  statusChangeValues(row: CollectionRow, sequence: number | null, who: Recipients | null): StatusChangeValues {
    let notification: Pick<StatusChangeValues, 'event_id' | 'body' | 'first_attempt_at' | 'notified_at' | 'trace_parent'> = {
      event_id: null, body: null, first_attempt_at: null, notified_at: null, trace_parent: null,
    };
    if (row.api_token_id !== null) {
      if (sequence === null) throw new Error(`collection ${row.id} has an API token but no notification sequence`);
      const n = this.notificationValues(row, sequence);
      notification = { event_id: n.eventId, body: n.body, first_attempt_at: n.firstAt, notified_at: n.at, trace_parent: n.traceParent };
    }
    const emails: EmailDraft[] = [];
    if (who?.email_merchant) emails.push(finalSummary(row, who.notification_email, who.business_name));
    if (who?.email_user && row.account_email) emails.push(receipt(row, row.account_email, who.business_name));
    return {
      ...notification,
      emails_at: this.s.now(),
      email_kinds: emails.map((e) => e.kind),
      email_recipients: emails.map((e) => e.recipient),
      email_subjects: emails.map((e) => e.subject),
      email_texts: emails.map((e) => e.text),
    };
  }

  /** Every notification of the caller's collection with its attempts; NOT_FOUND for anyone else's. */
  async logOf(businessId: number, gatewayReference: string): Promise<NotificationLogEntry[]> {
    const c = await this.s.db.oneOrNone<{ id: bigint }>(
      'SELECT id FROM collections WHERE gateway_reference = $1 AND business_id = $2',
      [gatewayReference, businessId],
    );
    if (!c) throw new AppError('NOT_FOUND', 'No collection of yours has this gateway_reference');
    return logOfCollection(this.s.db, c.id);
  }

  /**
   * Queues the latest notification of a final collection for delivery again: the same row, so the
   * same webhook-id, body and sequence, with the retry schedule restarted and the attempt log kept.
   * Its locks are NO KEY UPDATE: they wait for a state change of the collection (which writes the
   * notifications) but not for the webhook worker recording an attempt, whose update of the notification
   * checks its collection with KEY SHARE; FOR UPDATE there made the two wait for each other (a deadlock
   * on PostgreSQL, test/people/concurrent-changes.test.ts).
   */
  async resend(businessId: number, apiTokenId: number, gatewayReference: string): Promise<NotificationLogEntry> {
    // the answer is the notification as queued, read before the commit: read after it, the webhook worker the
    // kick wakes could already have recorded the next attempt in it
    const queued = await this.s.db.tx(async (t) => {
      const row = await t.oneOrNone<CollectionRow>(
        'SELECT * FROM collections WHERE gateway_reference = $1 AND business_id = $2 FOR NO KEY UPDATE',
        [gatewayReference, businessId],
      );
      if (!row) throw new AppError('NOT_FOUND', 'No collection of yours has this gateway_reference');
      if (row.status === 'PENDING') {
        throw new AppError('INVALID_STATE', 'The collection is still PENDING, so it has no notification yet');
      }
      const latest = await t.oneOrNone<{ id: bigint }>(
        'SELECT id FROM notifications WHERE collection_id = $1 AND refund_id IS NULL AND dispute_id IS NULL ORDER BY sequence DESC, id DESC LIMIT 1 FOR NO KEY UPDATE',
        [row.id],
      );
      // none when the collection's API token was deleted before the change: the caller's token takes it
      if (!latest) return logOfNotification(t, await this.insertNotification(t, row, apiTokenId));
      await t.none(
        `UPDATE notifications SET delivered_at = NULL, gave_up_at = NULL, next_attempt_at = $2, schedule_start = attempts,
           api_token_id = COALESCE(api_token_id, $3)
         WHERE id = $1`,
        [latest.id, this.s.now(), apiTokenId],
      );
      return logOfNotification(t, latest.id);
    });
    this.s.kick('webhooks');
    return queued;
  }

  /** Operator view: API tokens whose webhook has undelivered notifications with failed attempts. */
  failing(page: PageRequest) {
    return failingWebhooks(this.s.db, page);
  }

  /** A business's notifications, newest first, with their delivery state; NOT_FOUND for no such business. */
  async deliveriesOf(businessId: number, state: DeliveryState | null, page: PageRequest) {
    const business = await this.s.db.oneOrNone('SELECT 1 FROM businesses WHERE id = $1', [businessId]);
    if (!business) throw new AppError('NOT_FOUND', `No business with id ${businessId}`);
    return businessDeliveries(this.s.db, businessId, state, page);
  }

  /** Waits for webhook sends still under way; call after the workers stop, before the database closes. */
  drain(): Promise<void> {
    return this.webhookWorker.drain();
  }

  workers(): WorkerSpec[] {
    return [
      { name: 'webhooks', intervalMs: WEBHOOK_INTERVAL_MS, run: () => this.webhookWorker.runBatch() },
      { name: 'emails', intervalMs: EMAIL_INTERVAL_MS, run: () => this.emailWorker.runBatch() },
    ];
  }

  private async nextSequence(t: Tx, collectionId: bigint): Promise<number> {
    const { notification_seq: sequence } = await t.one<{ notification_seq: number }>(
      'UPDATE collections SET notification_seq = notification_seq + 1 WHERE id = $1 RETURNING notification_seq',
      [collectionId],
    );
    return sequence;
  }

  /** A new outbox row's values: body serialised once to the bytes sent. */
  private notificationValues(row: CollectionRow, sequence: number) {
    const body = JSON.stringify({ ...toRecord(row), sequence });
    const at = this.s.now();
    const { eventId, firstAt, traceParent } = this.newWebhook(at);
    return { eventId, body, firstAt, at, traceParent };
  }

  /** What every new webhook notification gets: its own event id, its first attempt's time, the trace it is part of. */
  private newWebhook(at: Date): { eventId: string; firstAt: Date; traceParent: string | null } {
    const firstAt = new Date(at.getTime() + this.s.config.webhookRetryScheduleMs[0]);
    return { eventId: 'evt_' + randomBytes(16).toString('hex'), firstAt, traceParent: currentTraceParent() };
  }

  /**
   * A webhook notification of a refund, a dispute or a disbursement, in the caller's transaction (a collection's is
   * written by its state change's one statement, collections/sql/move.sql, from statusChangeValues).
   */
  async enqueueWebhook(t: Tx, n: { owner: { collectionId?: bigint; refundId?: bigint; disputeId?: bigint; disbursementId?: bigint }; apiTokenId: number; sequence: number; status: string; body: string; now: Date }): Promise<void> {
    const { eventId, firstAt, traceParent } = this.newWebhook(n.now);
    await t.none(SQL.webhook, {
      collectionId: n.owner.collectionId ?? null, refundId: n.owner.refundId ?? null, disputeId: n.owner.disputeId ?? null, disbursementId: n.owner.disbursementId ?? null,
      apiTokenId: n.apiTokenId, eventId, sequence: n.sequence, status: n.status, body: n.body, now: n.now, traceParent, firstAttemptAt: firstAt,
    });
  }

  /** Emails in the outbox, in order, in the caller's transaction (a collection's when they are about one). */
  async enqueueEmails(t: Tx, collectionId: bigint | null, emails: readonly { kind: string; recipient: string; subject: string; text: string }[]): Promise<void> {
    if (emails.length === 0) return;
    await t.none(SQL.emails, {
      collectionId, now: this.s.now(),
      kinds: emails.map((e) => e.kind), recipients: emails.map((e) => e.recipient), subjects: emails.map((e) => e.subject), texts: emails.map((e) => e.text),
    });
  }

  /** One email to every active owner of a business but one (who asked for what it tells of), in the caller's transaction. */
  async emailOwners(t: Tx, e: OwnersEmail): Promise<void> {
    await t.none(SQL.ownersEmail, e);
  }

  /** Frees the webhook and email claims of processes that stopped beating (after this process's beat); returns how many. */
  async freeDeadClaims(self: string, staleBefore: Date, now: Date): Promise<number> {
    const { freed } = await this.s.db.one<{ freed: number }>(SQL.freeDeadClaims, { self, staleBefore, now });
    return freed;
  }

  /** Deletes up to `limit` delivery attempts, oldest first, older than `before`, of notifications that are finished (retention). */
  async deleteOldAttempts(before: Date, limit: number): Promise<number> {
    return (await this.s.db.result(DELETE_OLD.attempts, [before, limit])).rowCount;
  }

  /** Deletes up to `limit` emails, oldest first, older than `before`, that were sent or given up (retention). */
  async deleteOldEmails(before: Date, limit: number): Promise<number> {
    return (await this.s.db.result(DELETE_OLD.emails, [before, limit])).rowCount;
  }

  /** The outbox row: sequence taken from the collection. */
  private async insertNotification(t: Tx, row: CollectionRow, apiTokenId: number): Promise<bigint> {
    const sequence = await this.nextSequence(t, row.id);
    const n = this.notificationValues(row, sequence);
    const { id } = await t.one<{ id: bigint }>(
      `INSERT INTO notifications (collection_id, api_token_id, event_id, sequence, transaction_status, body, next_attempt_at, created_at, trace_parent)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
      [row.id, apiTokenId, n.eventId, sequence, row.status, n.body, n.firstAt, n.at, n.traceParent],
    );
    return id;
  }
}
