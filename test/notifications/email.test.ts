// Proves the email notices: a real SMTP server receives the start notice, the final summary and the
// customer's receipt, none with card data; failures are retried without touching the payment; without
// SMTP_URL the messages are written as .eml files under DATA_DIR/mail.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EMAIL_BACKOFF_MS, EMAIL_MAX_ATTEMPTS } from '../../src/notifications/email-worker';
import { createNotifyMerchant, createPendingCollection, eventually, finishCollection, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import { readable, startSmtp } from '../helpers/smtp';
import type { TestSmtp } from '../helpers/smtp';
import type { TestService } from '../helpers/service';

const CARD_NUMBER = '4000000000003006';
const CARD_MASKED = '400000******3006';
/** A time as every email prints it: `2026-11-27 07:07:52 UTC`, no `T`, no `Z`. */
const printed = (d: Date) => `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

describe('email over SMTP', () => {
  let svc: TestService;
  let smtp: TestSmtp;
  let receiver: Receiver;
  let refuse = false;

  beforeAll(async () => {
    smtp = await startSmtp({ answer: () => (refuse ? 'refuse' : 'accept') });
    receiver = await startReceiver();
    svc = await startTestService({ env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}` } });
  });
  afterAll(async () => {
    await svc?.close();
    await smtp?.close();
    await receiver?.close();
  });

  it('sends the start notice, the final summary and the receipt, with no card data', async () => {
    const m = await createNotifyMerchant(svc.services, {
      webhookUrl: receiver.url,
      name: 'Kampala Books',
      notificationEmail: 'owner@kampalabooks.example',
      emailMerchant: true,
      emailUser: true,
    });
    const pending = await createPendingCollection(svc.services, m, {
      paymentMethod: 'CARD',
      accountEmail: 'customer@example.org',
      accountName: 'Jane Customer',
      cardMasked: CARD_MASKED,
      amountMinor: 5_000_050n,
      feeMinor: 150_001n,
    });
    const start = await eventually(() => smtp.mails.find((x) => /X-PayCollect-Kind: start/i.test(x.text)), 10_000, 'start notice');
    expect(start.to).toEqual(['owner@kampalabooks.example']);
    expect(start.text).toContain(`Subject: Collection ${pending.gateway_reference} started: 50,000.50 UGX`);
    expect(start.text).toContain(`Merchant reference: ${pending.merchant_reference}`);
    expect(start.text).toContain('Status:             PENDING');
    expect(start.text).toContain(`Time:               ${printed(pending.created_at)}`);

    const finished = await finishCollection(svc.services, pending.id);
    const summary = await eventually(() => smtp.mails.find((x) => /X-PayCollect-Kind: summary/i.test(x.text)), 10_000, 'summary');
    const receipt = await eventually(() => smtp.mails.find((x) => /X-PayCollect-Kind: receipt/i.test(x.text)), 10_000, 'receipt');
    expect(summary.to).toEqual(['owner@kampalabooks.example']);
    expect(summary.text).toContain(`Subject: Collection ${pending.gateway_reference} COMPLETED: 50,000.50 UGX`);
    expect(summary.text).toContain('Fee:                1,500.01 UGX');
    expect(summary.text).toContain('Total credit:       48,500.49 UGX');
    expect(summary.text).toContain(`Time:               ${printed(finished.updated_at)}`);
    expect(receipt.to).toEqual(['customer@example.org']);
    expect(receipt.text).toContain('Subject: Your payment to Kampala Books: COMPLETED');
    expect(receipt.text).toContain('Amount:     50,000.50 UGX');
    expect(receipt.text).toContain(pending.merchant_reference);
    expect(receipt.text).toContain(`Time:       ${printed(finished.updated_at)}`);
    for (const mail of [start, summary, receipt]) {
      expect(mail.from).toMatch(/^notifications@/);
      expect(mail.text).not.toContain(CARD_NUMBER);
      expect(mail.text).not.toContain(CARD_MASKED);
      expect(mail.text).not.toMatch(/\b\d{6}\*+\d{4}\b/);
      expect(mail.text).not.toMatch(/cvv|expiry/i);
      expect(mail.text).not.toContain('Z UTC');
    }
    // the SMTP server has the message a moment before the worker records it as sent
    const sent = () => svc.services.db.any('SELECT kind, attempts, sent_at FROM emails WHERE collection_id = $1 ORDER BY id', [pending.id]);
    const rows = await eventually(async () => {
      const r = await sent();
      return r.length === 3 && r.every((x) => x.sent_at !== null) ? r : undefined;
    }, 10_000, 'three emails recorded as sent');
    expect(rows.map((r) => [r.kind, r.attempts, r.sent_at !== null])).toEqual([
      ['start', 1, true],
      ['summary', 1, true],
      ['receipt', 1, true],
    ]);
  });

  it('sends nothing when neither flag is set, and no receipt without a customer email', async () => {
    const quiet = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url });
    const a = await createPendingCollection(svc.services, quiet, { accountEmail: 'someone@example.org' });
    await finishCollection(svc.services, a.id);
    const userOnly = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url, emailMerchant: false, emailUser: true });
    const b = await createPendingCollection(svc.services, userOnly, { accountEmail: null });
    await finishCollection(svc.services, b.id, 'EXPIRED');
    const count = await svc.services.db.one('SELECT count(*)::int AS n FROM emails WHERE collection_id IN ($1, $2)', [a.id, b.id]);
    expect(count.n).toBe(0);
  });

  it('retries a refused email with backoff and leaves the payment alone', async () => {
    refuse = true;
    try {
      const m = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url, emailMerchant: true });
      const before = Date.now();
      const pending = await createPendingCollection(svc.services, m);
      const row = await eventually(
        () => svc.services.db.oneOrNone("SELECT * FROM emails WHERE collection_id = $1 AND kind = 'start' AND attempts = 1", [pending.id]),
        10_000,
        'a failed attempt',
      );
      expect(row.sent_at).toBeNull();
      expect(row.gave_up_at).toBeNull();
      expect(row.last_error).toMatch(/451|mailbox unavailable/);
      expect(row.next_attempt_at.getTime()).toBeGreaterThanOrEqual(before + EMAIL_BACKOFF_MS[0] - 1000);
      const collection = await svc.services.db.one('SELECT status FROM collections WHERE id = $1', [pending.id]);
      expect(collection.status).toBe('PENDING');
      expect(EMAIL_MAX_ATTEMPTS).toBe(6);

      // due again: the next attempt goes out and succeeds once the server accepts
      refuse = false;
      await svc.services.db.none('UPDATE emails SET next_attempt_at = now() WHERE id = $1', [row.id]);
      svc.services.workers?.kick('emails');
      const sent = await eventually(() => svc.services.db.oneOrNone('SELECT * FROM emails WHERE id = $1 AND sent_at IS NOT NULL', [row.id]), 10_000, 'sent');
      expect(sent.attempts).toBe(2);
      expect(sent.last_error).toBeNull();
    } finally {
      refuse = false;
    }
  });

  it('gives up after the last attempt', async () => {
    refuse = true;
    try {
      const m = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url, emailMerchant: true });
      const pending = await createPendingCollection(svc.services, m);
      await svc.services.db.none("UPDATE emails SET attempts = $2 - 1, next_attempt_at = now() WHERE collection_id = $1 AND kind = 'start'", [
        pending.id,
        EMAIL_MAX_ATTEMPTS,
      ]);
      svc.services.workers?.kick('emails');
      const row = await eventually(
        () => svc.services.db.oneOrNone('SELECT * FROM emails WHERE collection_id = $1 AND gave_up_at IS NOT NULL', [pending.id]),
        10_000,
        'give-up',
      );
      expect(row.attempts).toBe(EMAIL_MAX_ATTEMPTS);
      expect(row.sent_at).toBeNull();
    } finally {
      refuse = false;
    }
  });
});

describe('email without SMTP_URL', () => {
  let svc: TestService;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    svc = await startTestService();
  });
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  it('writes each message as an .eml file under DATA_DIR/mail', async () => {
    const m = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url, emailMerchant: true, emailUser: true, notificationEmail: 'ops@shop.example' });
    const pending = await createPendingCollection(svc.services, m, { accountEmail: 'payer@example.org', cardMasked: CARD_MASKED, paymentMethod: 'CARD' });
    await finishCollection(svc.services, pending.id, 'FAILED');
    const dir = path.join(svc.config.dataDir, 'mail');
    const files = await eventually(() => {
      try {
        const f = readdirSync(dir).filter((x) => x.endsWith('.eml'));
        return f.length === 3 ? f.sort() : null;
      } catch {
        return null;
      }
    }, 10_000, 'three .eml files');
    const texts = files.map((f) => readable(readFileSync(path.join(dir, f), 'utf8')));
    expect(files.map((f) => f.replace(/^\d+-/, ''))).toEqual(expect.arrayContaining(['start.eml', 'summary.eml', 'receipt.eml']));
    const receipt = texts.find((t) => /X-PayCollect-Kind: receipt/i.test(t))!;
    expect(receipt).toContain('To: payer@example.org');
    expect(receipt).toContain('Your payment did not go through; you were not charged.');
    for (const t of texts) {
      expect(t).toContain(pending.gateway_reference);
      expect(t).not.toContain(CARD_MASKED);
    }
  });
});
