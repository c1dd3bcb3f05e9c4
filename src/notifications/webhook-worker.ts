// The webhook outbox worker. Each batch picks due notifications (pick-webhooks.sql: order per record, fair
// share), claims them with FOR UPDATE SKIP LOCKED and a lease (next_attempt_at pushed past the attempt's
// timeout) in one short statement (claim-webhooks.sql), sends them outside any transaction, then records
// each outcome (the delivered ones that finish together by one statement, record-delivered.sql, through the
// group-commit batcher; a failed one by the record-failed-*.sql statements, in a transaction of its own).
// So several processes never send one attempt twice, a crash mid-send retries once the dead process's
// heartbeat is stale (or at the end of the lease), and all state lives in the database. A batch
// does not wait for its sends: each recorded outcome kicks the worker, so the room it frees (and the next
// notification of its record) is claimed at once, and the sends stay a steady pipeline rather than
// batches that each wait for their slowest.
import { masterKeys, openWithAny } from '../crypto/secretbox';
import { bound, hotSqlFile, sqlFile } from '../db';
import { Batcher } from '../db/batcher';
import { inSpan } from '../telemetry';
import type { Base } from '../base';
import type { LivenessService } from '../workers/liveness';
import { postWebhook } from './deliver';
import type { AttemptOutcome } from './deliver';
import { webhookHeaders } from './signing';

export const WEBHOOK_BATCH = 50;
/** sends under way in this process at once (a batch's stragglers included) */
export const MAX_IN_FLIGHT = 500;
/**
 * sends under way in this process to one endpoint (API token) at once: its fair share. One merchant's
 * changes at 500/s to an endpoint answering in 20 ms need about ten at once; 50 leaves room for a slower
 * endpoint, and ten hanging endpoints are what it takes to fill MAX_IN_FLIGHT.
 */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 50;
/** time left after the attempt's own timeout for recording its outcome before another process may retry */
const LEASE_MARGIN_MS = 20_000;

interface Claimed {
  id: bigint;
  api_token_id: number | null;
  event_id: string;
  body: string;
  trace_parent: string | null;
  webhook_url: string | null;
  webhook_hash_enc: string | null;
}

const PICK_SQL = hotSqlFile(__dirname, 'pick-webhooks.sql');
const CLAIM_SQL = hotSqlFile(__dirname, 'claim-webhooks.sql');
const RECORD_DELIVERED_SQL = sqlFile(__dirname, 'record-delivered.sql');
const RECORD_FAILED_SQL = {
  count: sqlFile(__dirname, 'record-failed-count.sql'),
  attempt: sqlFile(__dirname, 'record-failed-attempt.sql'),
  next: sqlFile(__dirname, 'record-failed-next.sql'),
};
/** delivered attempts recorded by one statement at most, and such statements under way at once */
const RECORD_LIMITS = { maxBatch: 100, maxRunning: 2 };

interface Delivered {
  id: bigint;
  at: Date;
  outcome: AttemptOutcome;
}
/** picked per claim: room to spare for rows another process claims between the pick and the claim */
const PICK_SPARE = 2;

export class WebhookWorker {
  private readonly inFlight = new Set<Promise<void>>();
  /** sends under way per endpoint (API token id; 0 for a deleted token) */
  private readonly perEndpoint = new Map<number, number>();
  /** delivered attempts finishing at once are recorded together (group commit), each answered with its attempt number */
  private readonly delivered: Batcher<Delivered, number | null>;

  constructor(
    private readonly s: Base & { liveness: LivenessService },
    private readonly timeoutMs: () => number,
  ) {
    this.delivered = new Batcher((batch) => this.recordDelivered(batch), RECORD_LIMITS, (err, size) =>
      this.s.log.warn('a batch of delivered webhooks was refused: recorded one by one', { size, err }));
  }

  /**
   * One batch: claim, then send in parallel (at most one per collection) and record, in the background
   * within MAX_IN_FLIGHT. Returns how many were claimed; each send, once recorded, kicks the worker.
   */
  async runBatch(): Promise<number> {
    const room = Math.min(WEBHOOK_BATCH, MAX_IN_FLIGHT - this.inFlight.size);
    if (room <= 0) return 0;
    const now = this.s.now();
    const leaseUntil = new Date(now.getTime() + this.timeoutMs() + LEASE_MARGIN_MS);
    const picked = await this.s.db.any<{ id: bigint }>(bound(this.s.db, PICK_SQL, {
      now,
      limit: room * PICK_SPARE,
      perEndpoint: MAX_IN_FLIGHT_PER_ENDPOINT,
      busyTokens: [...this.perEndpoint.keys()],
      busyCounts: [...this.perEndpoint.values()],
    }));
    if (picked.length === 0) return 0;
    const claimed = await this.s.db.any<Claimed>(bound(this.s.db, CLAIM_SQL, {
      ids: picked.map((p) => p.id),
      now,
      limit: room,
      leaseUntil,
      processId: this.s.liveness.processId,
    }));
    for (const c of claimed) {
      const endpoint = c.api_token_id ?? 0;
      this.perEndpoint.set(endpoint, (this.perEndpoint.get(endpoint) ?? 0) + 1);
      const p = this.deliver(c, leaseUntil).finally(() => {
        this.inFlight.delete(p);
        const left = (this.perEndpoint.get(endpoint) ?? 1) - 1;
        if (left > 0) this.perEndpoint.set(endpoint, left);
        else this.perEndpoint.delete(endpoint);
        // room for one more, and the record's next notification may be due now
        this.s.kick('webhooks');
      });
      this.inFlight.add(p);
    }
    return claimed.length;
  }

  /** Resolves once every send under way has been recorded (for an orderly shutdown). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async deliver(c: Claimed, leaseUntil: Date): Promise<void> {
    const at = this.s.now();
    // the span continues the trace of the change that wrote the notification
    const span = this.s.figures.webhookSpan(c.trace_parent);
    span.setAttribute('paycollect.webhook.event_id', c.event_id);
    try {
      await inSpan(span, async () => {
        const { outcome, permanent } = await this.attempt(c);
        if (outcome.httpStatus !== null) span.setAttribute('http.response.status_code', outcome.httpStatus);
        if (!outcome.ok) span.setStatus({ code: 2, message: outcome.error ?? undefined });
        await this.record(c, at, outcome, permanent, leaseUntil);
      });
    } catch (err) {
      // the lease expires and another batch retries; nothing is lost
      this.s.log.error('webhook delivery could not be recorded', { event_id: c.event_id, err });
    }
  }

  private async attempt(c: Claimed): Promise<{ outcome: AttemptOutcome; permanent: boolean }> {
    const refused = (error: string) => ({ ok: false, httpStatus: null, error, durationMs: 0, responseBody: null });
    if (c.webhook_url === null || c.webhook_hash_enc === null) {
      return { outcome: refused('the API token was deleted'), permanent: true };
    }
    let hash: string;
    try {
      hash = openWithAny(masterKeys(this.s.config), c.webhook_hash_enc).plaintext;
    } catch (err) {
      this.s.log.error('webhook hash cannot be opened with MASTER_KEY', { event_id: c.event_id, err });
      return { outcome: refused('the webhook hash cannot be read'), permanent: false };
    }
    // the wall clock, not the injectable one: receivers compare it with theirs to refuse replays
    const timestamp = Math.floor(Date.now() / 1000);
    const outcome = await postWebhook({
      url: c.webhook_url,
      headers: webhookHeaders(hash, c.event_id, timestamp, c.body),
      body: c.body,
      timeoutMs: this.timeoutMs(),
      allowPrivate: this.s.config.webhookAllowPrivate,
    });
    return { outcome, permanent: false };
  }

  /** The attempt number is taken atomically here, so concurrent recorders never share one. */
  private async record(c: Claimed, at: Date, o: AttemptOutcome, permanent: boolean, leaseUntil: Date): Promise<void> {
    const schedule = this.s.config.webhookRetryScheduleMs;
    const now = this.s.now();
    let gaveUp = false;
    const attempt = o.ok ? await this.delivered.add({ id: c.id, at, outcome: o }) : await this.s.db.tx(async (t) => {
      const n = await t.one<{ attempts: number; schedule_start: number; next_attempt_at: Date | null }>(RECORD_FAILED_SQL.count, { id: c.id });
      await t.none(RECORD_FAILED_SQL.attempt, {
        id: c.id, attempt: n.attempts, at, httpStatus: o.httpStatus, error: o.error, durationMs: o.durationMs, responseBody: o.responseBody,
      });
      // a re-send or another process took the notification over meanwhile: it owns the schedule now
      const ours = n.next_attempt_at?.getTime() === leaseUntil.getTime();
      const delay = permanent ? undefined : schedule[n.attempts - n.schedule_start];
      gaveUp = ours && delay === undefined;
      const nextAttemptAt = delay === undefined ? null : new Date(now.getTime() + delay);
      await t.none(RECORD_FAILED_SQL.next, { id: c.id, error: o.error, ours, nextAttemptAt, now });
      return n.attempts;
    });
    const fields = { event_id: c.event_id, attempt, http_status: o.httpStatus, duration_ms: o.durationMs };
    this.s.figures.webhookAttempt(o.ok ? 'delivered' : gaveUp ? 'gave_up' : 'failed');
    if (o.ok) this.s.log.info('webhook delivered', fields);
    else this.s.log.warn('webhook attempt failed', { ...fields, error: o.error });
  }

  /**
   * Delivered attempts, the common case, in one statement (record-delivered.sql): each attempt counted and
   * logged and its row closed at once; the attempt number of each, in their order (null for a row gone).
   */
  private async recordDelivered(batch: Delivered[]): Promise<(number | null)[]> {
    const rows = await this.s.db.any<{ notification_id: bigint; attempt: number }>(RECORD_DELIVERED_SQL, {
      ids: batch.map((d) => d.id),
      ats: batch.map((d) => d.at),
      statuses: batch.map((d) => d.outcome.httpStatus),
      durations: batch.map((d) => d.outcome.durationMs),
      bodies: batch.map((d) => d.outcome.responseBody),
      now: this.s.now(),
    });
    const attempts = new Map(rows.map((r) => [String(r.notification_id), r.attempt]));
    return batch.map((d) => attempts.get(String(d.id)) ?? null);
  }
}
