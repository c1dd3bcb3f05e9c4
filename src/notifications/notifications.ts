// Webhook and email outbox: written in the state change's transaction, delivered by a worker
// (docs/contract/webhooks.md). The notification body is serialised once, stored, and sent and signed as
// those exact bytes on every attempt.
import { randomBytes } from 'node:crypto';
import type { PageRequest } from '../db/keyset';
import { pgp } from '../db';
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

/** JSON of the Recipients of an API token (an SQL expression), null for none: for embedding in a read. */
export function recipientsSql(apiTokenId: string): string {
  return `(SELECT json_build_object('notification_email', t.notification_email, 'email_merchant', t.email_merchant,
      'email_user', t.email_user, 'business_name', b.name)
    FROM api_tokens t JOIN businesses b ON b.id = t.business_id WHERE t.id = ${apiTokenId})`;
}

/**
 * The outbox writes of a state change go out as data-modifying CTEs of one statement. Each CTE here
 * takes the collection's id from `source`, a relation with an `id` column (the collection just
 * inserted, or the id of one already known), and writes nothing when the source is empty. The CTEs
 * are formatted SQL: a statement made of them is sent as is, never through pg-promise formatting again
 * (a `$1` inside a value would be replaced).
 */
export type Source = string;

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

  /** Inside the transaction that created the PENDING collection: the start notice email. */
  async enqueueStarted(t: Tx, row: CollectionRow): Promise<void> {
    await this.writeFor(t, row.id, this.startedWrites(row, await this.recipients(t, row), 'src'));
  }

  /** Inside the transaction that moved the collection out of PENDING: webhook + emails. */
  async enqueueStatusChange(t: Tx, row: CollectionRow): Promise<void> {
    const sequence = row.api_token_id !== null ? await this.nextSequence(t, row.id) : null;
    await this.writeFor(t, row.id, this.statusChangeWrites(row, sequence, await this.recipients(t, row), 'src'));
  }

  /**
   * CTEs writing the start notice email of a new collection (who: recipientsSql of its API token). The
   * row may be the one about to be inserted, without its id: the notice does not show the id.
   */
  startedWrites(row: Omit<CollectionRow, 'id'>, who: Recipients | null, source: Source): string[] {
    const emails = this.startEmails(row, who);
    return emails.length > 0 ? [this.emailsCte('start_email', source, emails)] : [];
  }

  /**
   * The emails a new collection starts with (who: recipientsSql of its API token): the merchant's start
   * notice, when it asked for one. The row may be the one about to be inserted, without its id.
   */
  startEmails(row: Omit<CollectionRow, 'id'>, who: Recipients | null): EmailDraft[] {
    if (!who?.email_merchant) return [];
    return [startNotice(row as CollectionRow, who.notification_email, who.business_name)];
  }

  /**
   * CTEs writing the outbox of a change out of PENDING: the webhook notification (when the collection
   * has an API token; `sequence` is the collection's notification_seq already taken for it) and emails.
   */
  statusChangeWrites(row: CollectionRow, sequence: number | null, who: Recipients | null, source: Source): string[] {
    const ctes: string[] = [];
    if (row.api_token_id !== null) {
      if (sequence === null) throw new Error(`collection ${row.id} has an API token but no notification sequence`);
      const n = this.notificationValues(row, row.api_token_id, sequence);
      ctes.push(
        pgp.as.format(
          `notification AS (INSERT INTO notifications (collection_id, api_token_id, event_id, sequence, transaction_status, body, next_attempt_at, created_at, trace_parent)
           SELECT s.id, $1::int, $2, $3::int, $4, $5, $6::timestamptz, $7::timestamptz, $8 FROM ${source} s)`,
          n,
        ),
      );
    }
    const emails: EmailDraft[] = [];
    if (who?.email_merchant) emails.push(finalSummary(row, who.notification_email, who.business_name));
    if (who?.email_user && row.account_email) emails.push(receipt(row, row.account_email, who.business_name));
    if (emails.length > 0) ctes.push(this.emailsCte('status_emails', source, emails));
    return ctes;
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
   */
  async resend(businessId: number, apiTokenId: number, gatewayReference: string): Promise<NotificationLogEntry> {
    const id = await this.s.db.tx(async (t) => {
      const row = await t.oneOrNone<CollectionRow>(
        'SELECT * FROM collections WHERE gateway_reference = $1 AND business_id = $2 FOR UPDATE',
        [gatewayReference, businessId],
      );
      if (!row) throw new AppError('NOT_FOUND', 'No collection of yours has this gateway_reference');
      if (row.status === 'PENDING') {
        throw new AppError('INVALID_STATE', 'The collection is still PENDING, so it has no notification yet');
      }
      const latest = await t.oneOrNone<{ id: bigint }>(
        'SELECT id FROM notifications WHERE collection_id = $1 AND refund_id IS NULL ORDER BY sequence DESC, id DESC LIMIT 1 FOR UPDATE',
        [row.id],
      );
      // none when the collection's API token was deleted before the change: the caller's token takes it
      if (!latest) return this.insertNotification(t, row, apiTokenId);
      await t.none(
        `UPDATE notifications SET delivered_at = NULL, gave_up_at = NULL, next_attempt_at = $2, schedule_start = attempts,
           api_token_id = COALESCE(api_token_id, $3)
         WHERE id = $1`,
        [latest.id, this.s.now(), apiTokenId],
      );
      return latest.id;
    });
    this.s.kick('webhooks');
    return logOfNotification(this.s.db, id);
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

  /** The outbox row's values after collection_id: body serialised once to the bytes sent. */
  private notificationValues(row: CollectionRow, apiTokenId: number, sequence: number) {
    const body = JSON.stringify({ ...toRecord(row), sequence });
    const now = this.s.now();
    const firstAt = new Date(now.getTime() + this.s.config.webhookRetryScheduleMs[0]);
    return [apiTokenId, 'evt_' + randomBytes(16).toString('hex'), sequence, row.status, body, firstAt, now, currentTraceParent()] as const;
  }

  /** The outbox row: sequence taken from the collection. */
  private async insertNotification(t: Tx, row: CollectionRow, apiTokenId: number): Promise<bigint> {
    const sequence = await this.nextSequence(t, row.id);
    const { id } = await t.one<{ id: bigint }>(
      `INSERT INTO notifications (collection_id, api_token_id, event_id, sequence, transaction_status, body, next_attempt_at, created_at, trace_parent)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
      [row.id, ...this.notificationValues(row, apiTokenId, sequence)],
    );
    return id;
  }

  /** Runs CTEs from startedWrites/statusChangeWrites (made with source 'src') for one collection. */
  private async writeFor(t: Tx, collectionId: bigint, ctes: string[]): Promise<void> {
    if (ctes.length === 0) return;
    // The CTEs hold formatted values already: the statement must not be formatted again.
    const src = pgp.as.format('src AS (SELECT $1::bigint AS id)', [collectionId]);
    await t.any(`WITH ${[src, ...ctes].join(', ')} SELECT 1 WHERE false`);
  }

  private recipients(t: Tx, row: CollectionRow): Promise<Recipients | null> {
    if (row.api_token_id === null) return Promise.resolve(null);
    return t.oneOrNone<Recipients>(
      `SELECT t.notification_email, t.email_merchant, t.email_user, b.name AS business_name
       FROM api_tokens t JOIN businesses b ON b.id = t.business_id WHERE t.id = $1`,
      [row.api_token_id],
    );
  }

  /** One CTE inserting the emails in order (their ids follow the array). */
  private emailsCte(name: string, source: Source, emails: EmailDraft[]): string {
    return pgp.as.format(
      `${name} AS (INSERT INTO emails (collection_id, kind, recipient, subject, text_body, next_attempt_at)
       SELECT s.id, v.kind, v.recipient, v.subject, v.text_body, $5::timestamptz
       FROM ${source} s CROSS JOIN unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS v(kind, recipient, subject, text_body, n)
       ORDER BY v.n)`,
      [emails.map((e) => e.kind), emails.map((e) => e.recipient), emails.map((e) => e.subject), emails.map((e) => e.text), this.s.now()],
    );
  }
}
