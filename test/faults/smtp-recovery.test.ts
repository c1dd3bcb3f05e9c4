// Proves that emails queued while the SMTP server is down go out soon after it returns, well before their backoff, and that payments never wait for them.
import { EMAIL_BACKOFF_MS } from '../../src/notifications/email-worker';
import { createNotifyMerchant, createPendingCollection, eventually, finishCollection, freePort, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import { startSmtp } from '../helpers/smtp';
import type { TestSmtp } from '../helpers/smtp';
import type { TestService } from '../helpers/service';

describe('SMTP down, then up', () => {
  let svc: TestService;
  let receiver: Receiver;
  let smtpPort: number;
  let smtp: TestSmtp | null = null;

  beforeAll(async () => {
    smtpPort = await freePort();
    receiver = await startReceiver();
    svc = await startTestService({ env: { SMTP_URL: `smtp://127.0.0.1:${smtpPort}` } });
  }, 120_000);
  afterAll(async () => {
    await svc?.close();
    await smtp?.close();
    await receiver?.close();
  });

  it('sends the queued emails once the server is back, not after their backoff', async () => {
    const s = svc.services;
    const m = await createNotifyMerchant(s, { webhookUrl: receiver.url, emailMerchant: true, notificationEmail: 'owner@shop.example' });
    const ids: bigint[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await createPendingCollection(s, m);
      await finishCollection(s, c.id);
      ids.push(c.id);
    }
    // every email failed once for want of a server, and waits for its backoff; the payments went on
    const waiting = await eventually(async () => {
      const rows = await s.db.any<{ attempts: number; next_attempt_at: Date; smtp_unreachable: boolean; last_error: string }>(
        'SELECT attempts, next_attempt_at, smtp_unreachable, last_error FROM emails WHERE collection_id = ANY($1::bigint[])',
        [ids],
      );
      return rows.length === 6 && rows.every((r) => r.attempts === 1 && r.smtp_unreachable) ? rows : undefined;
    }, 20_000, 'a failed attempt of each email');
    const backoffEnds = Math.min(...waiting.map((r) => r.next_attempt_at.getTime()));
    expect(backoffEnds).toBeGreaterThan(Date.now() + EMAIL_BACKOFF_MS[0] / 2);
    const statuses = await s.db.any<{ status: string }>('SELECT status FROM collections WHERE id = ANY($1::bigint[])', [ids]);
    expect(statuses.every((r) => r.status === 'COMPLETED')).toBe(true);

    smtp = await startSmtp({ port: smtpPort });
    const sent = await eventually(async () => {
      const rows = await s.db.any<{ sent_at: Date | null; attempts: number }>('SELECT sent_at, attempts FROM emails WHERE collection_id = ANY($1::bigint[])', [ids]);
      return rows.every((r) => r.sent_at !== null) ? rows : undefined;
    }, 30_000, 'the queued emails to go out');
    for (const r of sent) {
      expect(r.attempts).toBe(2);
      expect(r.sent_at!.getTime()).toBeLessThan(backoffEnds);
    }
    expect(smtp.mails.flatMap((m) => m.to).filter((r) => r === 'owner@shop.example')).toHaveLength(6);
  }, 90_000);
});
