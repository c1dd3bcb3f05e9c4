// The email outbox worker: claims due emails with FOR UPDATE SKIP LOCKED and a lease, sends them
// outside any transaction, records the outcome. A failure is retried with backoff and given up after
// EMAIL_MAX_ATTEMPTS; payments never wait for email. An attempt that could not reach the SMTP server at
// all is marked so: while such emails wait, the server is probed every SMTP_PROBE_INTERVAL_MS, and once
// it answers (a probe or any send succeeds) they are due at once instead of after their backoff.
import path from 'node:path';
import { sqlFile } from '../db';
import type { Base } from '../base';
import type { LivenessService } from '../workers/liveness';
import { Mailer } from './email';

export const EMAIL_BATCH = 10;
/** delay after the 1st, 2nd, ... failed attempt; the attempt after the last one is the last */
export const EMAIL_BACKOFF_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];
export const EMAIL_MAX_ATTEMPTS = EMAIL_BACKOFF_MS.length + 1;
/** longer than an SMTP exchange can take with nodemailer's connection, greeting and socket timeouts */
const EMAIL_LEASE_MS = 120_000;
const ERROR_MAX_CHARS = 500;
/**
 * Once an email has gone (or been given up), the outbox keeps no usable single-use link: the token of
 * an invitation or password-reset link is blanked out of the stored body. The tokens' own tables keep
 * only hashes, so after delivery nothing in the database opens an account.
 */
const REDACT_LINK_TOKENS = `text_body = regexp_replace(text_body, '([?&]token=)[A-Za-z0-9_-]+', '\\1(removed once sent)', 'g')`;
export const SMTP_PROBE_INTERVAL_MS = 5000;

interface ClaimedEmail {
  id: bigint;
  kind: string;
  recipient: string;
  subject: string;
  text_body: string;
}

const CLAIM_SQL = sqlFile(__dirname, 'claim-emails.sql');

/** The sender: notifications@<host of PUBLIC_BASE_URL>. */
function senderOf(publicBaseUrl: string): string {
  const host = new URL(publicBaseUrl).hostname.replace(/^\[|\]$/g, '');
  return `PayCollect <notifications@${/^[\d.]+$|:/.test(host) ? `[${host}]` : host}>`;
}

export class EmailWorker {
  private mailer: Mailer | null = null;
  private lastProbe = 0;

  constructor(private readonly s: Base & { liveness: LivenessService }) {}

  private mail(): Mailer {
    const { config } = this.s;
    this.mailer ??= new Mailer(config.smtpUrl, path.join(config.dataDir, 'mail'), senderOf(config.publicBaseUrl));
    return this.mailer;
  }

  async runBatch(): Promise<number> {
    const now = this.s.now();
    const claimed = await this.s.db.any<ClaimedEmail>(CLAIM_SQL, { now, limit: EMAIL_BATCH, leaseEnd: new Date(now.getTime() + EMAIL_LEASE_MS), processId: this.s.liveness.processId });
    const sent = await Promise.all(claimed.map((e) => this.sendOne(e)));
    if (sent.some(Boolean)) return claimed.length + (await this.smtpIsBack());
    if (claimed.length === 0) return this.probe();
    return claimed.length;
  }

  /** Whether it went out. */
  private async sendOne(e: ClaimedEmail): Promise<boolean> {
    let error: { text: string; unreachable: boolean } | null = null;
    try {
      await this.mail().send({ id: e.id.toString(), kind: e.kind, recipient: e.recipient, subject: e.subject, text: e.text_body });
    } catch (err) {
      // no SMTP reply code: the server was never reached (refused, timed out, no greeting)
      const unreachable = typeof (err as { responseCode?: unknown })?.responseCode !== 'number';
      error = { text: ((err as Error)?.message ?? String(err)).slice(0, ERROR_MAX_CHARS), unreachable };
    }
    try {
      await this.record(e, error);
    } catch (err) {
      this.s.log.error('email outcome could not be recorded', { email_id: e.id, err });
    }
    return error === null;
  }

  /**
   * While emails wait because the SMTP server could not be reached, ask it (at most every
   * SMTP_PROBE_INTERVAL_MS) whether it is back. Returns how many emails became due.
   */
  private async probe(): Promise<number> {
    const { config } = this.s;
    if (!config.smtpUrl || Date.now() - this.lastProbe < SMTP_PROBE_INTERVAL_MS) return 0;
    this.lastProbe = Date.now();
    const waiting = await this.s.db.oneOrNone(
      'SELECT 1 FROM emails WHERE smtp_unreachable AND sent_at IS NULL AND gave_up_at IS NULL LIMIT 1',
    );
    if (!waiting || !(await this.mail().reachable())) return 0;
    return this.smtpIsBack();
  }

  /** The SMTP server answers again: every email that waits only because it could not be reached is due now. */
  private async smtpIsBack(): Promise<number> {
    const due = await this.s.db.result(
      `UPDATE emails SET next_attempt_at = $1, smtp_unreachable = false
       WHERE smtp_unreachable AND sent_at IS NULL AND gave_up_at IS NULL AND next_attempt_at > $1`,
      [this.s.now()],
    );
    if (due.rowCount > 0) this.s.log.info('SMTP server reachable again: waiting emails are due now', { emails: due.rowCount });
    return due.rowCount;
  }

  private async record(e: ClaimedEmail, failure: { text: string; unreachable: boolean } | null): Promise<void> {
    const now = this.s.now();
    if (failure === null) {
      await this.s.db.none(
        `UPDATE emails SET attempts = attempts + 1, sent_at = $2, last_error = NULL, smtp_unreachable = false, claimed_by = NULL, ${REDACT_LINK_TOKENS} WHERE id = $1`,
        [e.id, now],
      );
      this.s.log.info('email sent', { email_id: e.id, kind: e.kind });
      return;
    }
    const error = failure.text;
    const attempts = await this.s.db.tx(async (t) => {
      const n = await t.one<{ attempts: number }>(
        'UPDATE emails SET attempts = attempts + 1, last_error = $2, smtp_unreachable = $3, claimed_by = NULL WHERE id = $1 RETURNING attempts',
        [e.id, error, failure.unreachable],
      );
      const delay = EMAIL_BACKOFF_MS[n.attempts - 1];
      if (delay === undefined) await t.none(`UPDATE emails SET gave_up_at = $2, ${REDACT_LINK_TOKENS} WHERE id = $1`, [e.id, now]);
      else await t.none('UPDATE emails SET next_attempt_at = $2 WHERE id = $1', [e.id, new Date(now.getTime() + delay)]);
      return n.attempts;
    });
    this.s.log.warn('email attempt failed', { email_id: e.id, kind: e.kind, attempt: attempts, error, gave_up: attempts >= EMAIL_MAX_ATTEMPTS });
  }
}
