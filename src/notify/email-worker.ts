// The email outbox worker: claims due emails with FOR UPDATE SKIP LOCKED and a lease, sends them
// outside any transaction, records the outcome. A failure is retried with backoff and given up after
// EMAIL_MAX_ATTEMPTS; payments never wait for email.
import path from 'node:path';
import type { Services } from '../services';
import { Mailer } from './email';

export const EMAIL_BATCH = 10;
/** delay after the 1st, 2nd, ... failed attempt; the attempt after the last one is the last */
export const EMAIL_BACKOFF_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];
export const EMAIL_MAX_ATTEMPTS = EMAIL_BACKOFF_MS.length + 1;
/** longer than an SMTP exchange can take with nodemailer's connection, greeting and socket timeouts */
const EMAIL_LEASE_MS = 120_000;
const ERROR_MAX_CHARS = 500;

interface ClaimedEmail {
  id: bigint;
  kind: string;
  recipient: string;
  subject: string;
  text_body: string;
}

const CLAIM_SQL = `
  WITH due AS (
    SELECT id FROM emails
    WHERE sent_at IS NULL AND gave_up_at IS NULL AND next_attempt_at <= $1
    ORDER BY next_attempt_at, id
    LIMIT $2
    FOR UPDATE SKIP LOCKED
  )
  UPDATE emails e SET next_attempt_at = $3 FROM due WHERE e.id = due.id
  RETURNING e.id, e.kind, e.recipient, e.subject, e.text_body`;

/** The sender: notifications@<host of PUBLIC_BASE_URL>. */
function senderOf(publicBaseUrl: string): string {
  const host = new URL(publicBaseUrl).hostname.replace(/^\[|\]$/g, '');
  return `PayCollect <notifications@${/^[\d.]+$|:/.test(host) ? `[${host}]` : host}>`;
}

export class EmailWorker {
  private mailer: Mailer | null = null;

  constructor(private readonly s: Services) {}

  private mail(): Mailer {
    const { config } = this.s;
    this.mailer ??= new Mailer(config.smtpUrl, path.join(config.dataDir, 'mail'), senderOf(config.publicBaseUrl));
    return this.mailer;
  }

  async runBatch(): Promise<number> {
    const now = this.s.now();
    const claimed = await this.s.db.any<ClaimedEmail>(CLAIM_SQL, [now, EMAIL_BATCH, new Date(now.getTime() + EMAIL_LEASE_MS)]);
    await Promise.all(claimed.map((e) => this.sendOne(e)));
    return claimed.length;
  }

  private async sendOne(e: ClaimedEmail): Promise<void> {
    let error: string | null = null;
    try {
      await this.mail().send({ id: e.id.toString(), kind: e.kind, recipient: e.recipient, subject: e.subject, text: e.text_body });
    } catch (err) {
      error = ((err as Error)?.message ?? String(err)).slice(0, ERROR_MAX_CHARS);
    }
    try {
      await this.record(e, error);
    } catch (err) {
      this.s.log.error('email outcome could not be recorded', { email_id: e.id, err });
    }
  }

  private async record(e: ClaimedEmail, error: string | null): Promise<void> {
    const now = this.s.now();
    if (error === null) {
      await this.s.db.none('UPDATE emails SET attempts = attempts + 1, sent_at = $2, last_error = NULL WHERE id = $1', [e.id, now]);
      this.s.log.info('email sent', { email_id: e.id, kind: e.kind });
      return;
    }
    const attempts = await this.s.db.tx(async (t) => {
      const n = await t.one<{ attempts: number }>('UPDATE emails SET attempts = attempts + 1, last_error = $2 WHERE id = $1 RETURNING attempts', [e.id, error]);
      const delay = EMAIL_BACKOFF_MS[n.attempts - 1];
      if (delay === undefined) await t.none('UPDATE emails SET gave_up_at = $2 WHERE id = $1', [e.id, now]);
      else await t.none('UPDATE emails SET next_attempt_at = $2 WHERE id = $1', [e.id, new Date(now.getTime() + delay)]);
      return n.attempts;
    });
    this.s.log.warn('email attempt failed', { email_id: e.id, kind: e.kind, attempt: attempts, error, gave_up: attempts >= EMAIL_MAX_ATTEMPTS });
  }
}
