// Proves the retention worker: past their period it deletes the delivery log of finished webhook
// notifications, sent or given-up emails, audit entries and expired FX quotes, oldest first and in bounded batches; it keeps
// what is younger, the attempts of a notification still being retried, emails still waiting to be sent,
// and never touches collections, notifications or the ledger; a period of 0 keeps everything; a bad
// period stops start-up with a clear error.
import { ConfigError, loadConfig } from '../../src/config';
import type { Db } from '../../src/db';
import { RetentionService } from '../../src/workers/retention';
import type { RetentionDays } from '../../src/config';
import { complete, createBusiness, insertPending, ledgerCounts, moneyServices } from '../helpers/money-fixtures';
import type { ServicesFixture } from '../helpers/money-fixtures';

const NOW = new Date('2030-06-01T12:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);
const PERIODS: RetentionDays = { deliveryAttempts: 90, emails: 90, audit: 730, quotes: 30 };

let fx: ServicesFixture;
beforeAll(async () => {
  fx = await moneyServices();
}, 180_000);
afterAll(() => fx.close());

const db = (): Db => fx.services.db;
/** The service's retention, built as src/wiring.ts builds it: each kind of history deleted by its own wing. */
const retention = (days: RetentionDays = PERIODS) => {
  const s = fx.services;
  return new RetentionService({
    deliveryAttempts: (before, limit) => s.notifications.deleteOldAttempts(before, limit),
    emails: (before, limit) => s.notifications.deleteOldEmails(before, limit),
    audit: (before, limit) => s.audit.deleteOld(before, limit),
    quotes: (before, limit) => s.quotes.deleteExpired(before, limit),
  }, days, () => NOW);
};

async function collection(): Promise<bigint> {
  const b = await createBusiness(db());
  const row = await insertPending(fx.services, b.businessId, { amountMinor: 1000n });
  await complete(fx.services, row.id);
  return row.id;
}

/** a notification in the given state with one attempt `ageDays` old; returns its id */
async function notification(collectionId: bigint, state: 'delivered' | 'gave_up' | 'retrying', ageDays: number): Promise<bigint> {
  const at = daysAgo(ageDays);
  const { id } = await db().one<{ id: bigint }>(
    `INSERT INTO notifications (collection_id, event_id, sequence, transaction_status, body, attempts, delivered_at, gave_up_at, next_attempt_at, created_at)
     VALUES ($1, gen_random_uuid()::text, 1, 'COMPLETED', '{}', 1, $2, $3, $4, $5) RETURNING id`,
    [collectionId, state === 'delivered' ? at : null, state === 'gave_up' ? at : null, state === 'retrying' ? NOW : null, at],
  );
  await db().none('INSERT INTO notification_attempts (notification_id, attempt, at, http_status, duration_ms) VALUES ($1, 1, $2, 500, 12)', [id, at]);
  return id;
}

async function email(state: 'sent' | 'gave_up' | 'waiting', ageDays: number): Promise<bigint> {
  const at = daysAgo(ageDays);
  return (
    await db().one<{ id: bigint }>(
      `INSERT INTO emails (kind, recipient, subject, text_body, sent_at, gave_up_at, created_at)
       VALUES ('summary', 'shop@example.com', 'Payment', 'text', $1, $2, $3) RETURNING id`,
      [state === 'sent' ? at : null, state === 'gave_up' ? at : null, at],
    )
  ).id;
}

async function auditEntries(count: number, ageDays: number): Promise<void> {
  await db().none(
    `INSERT INTO audit_log (at, actor_type, action) SELECT $1::timestamptz - make_interval(secs => g), 'operator_key', 'updateBusiness' FROM generate_series(1, $2) g`,
    [daysAgo(ageDays), count],
  );
}

const attemptsOf = async (ids: bigint[]) =>
  (await db().one<{ n: number }>('SELECT count(*)::int AS n FROM notification_attempts WHERE notification_id = ANY($1::bigint[])', [ids])).n;
const emailsLeft = async (ids: bigint[]) => (await db().any<{ id: bigint }>('SELECT id FROM emails WHERE id = ANY($1::bigint[]) ORDER BY id', [ids])).map((r) => r.id);
const auditCount = async () => (await db().one<{ n: number }>('SELECT count(*)::int AS n FROM audit_log')).n;

beforeEach(async () => {
  await db().none('TRUNCATE notification_attempts, emails, audit_log, fx_quotes');
});

describe('retention', () => {
  it('deletes the delivery log of finished notifications past the period, keeps the rest', async () => {
    const c = await collection();
    const oldDelivered = await notification(c, 'delivered', 91);
    const oldGivenUp = await notification(c, 'gave_up', 200);
    const oldRetrying = await notification(c, 'retrying', 120);
    const recent = await notification(c, 'delivered', 89);
    const notificationsBefore = (await db().one<{ n: number }>('SELECT count(*)::int AS n FROM notifications')).n;

    expect(await retention().prune()).toBe(2);
    expect(await attemptsOf([oldDelivered, oldGivenUp])).toBe(0);
    expect(await attemptsOf([oldRetrying])).toBe(1);
    expect(await attemptsOf([recent])).toBe(1);
    expect((await db().one<{ n: number }>('SELECT count(*)::int AS n FROM notifications')).n).toBe(notificationsBefore);
  });

  it('deletes sent and given-up emails past the period, never one still waiting to be sent', async () => {
    const sent = await email('sent', 100);
    const gaveUp = await email('gave_up', 91);
    const waiting = await email('waiting', 300);
    const recent = await email('sent', 10);
    expect(await retention().prune()).toBe(2);
    expect(await emailsLeft([sent, gaveUp, waiting, recent])).toEqual([waiting, recent]);
  });

  it('deletes audit entries past their period in bounded batches, oldest first, over as many runs as it takes', async () => {
    await auditEntries(25_000, 800);
    await auditEntries(3, 100);
    // one run deletes at most 20 batches of 1000 rows per table
    expect(await retention().prune()).toBe(20_000);
    // the 5000 youngest of the old entries are left (entry g is g seconds older than 800 days)
    const { oldest } = await db().one<{ oldest: Date }>('SELECT min(at) AS oldest FROM audit_log WHERE at < $1', [daysAgo(730)]);
    expect(oldest.getTime()).toBe(daysAgo(800).getTime() - 5000 * 1000);
    expect(await retention().prune()).toBe(5_000);
    expect(await auditCount()).toBe(3);
    expect(await retention().prune()).toBe(0);
  }, 60_000);

  it('deletes quotes that expired more than the period ago, oldest first, and keeps younger and valid ones', async () => {
    const b = await createBusiness(db());
    const quote = (id: string, expiredDaysAgo: number) =>
      db().none(
        `INSERT INTO fx_quotes (quote_id, business_id, payment_method, request_amount_minor, request_currency, account_currency, account_amount_minor,
           fx_rate, fx_reference_rate, fx_markup, fx_source, fee_minor, total_credit_minor, customer_charged, created_at, expires_at)
         VALUES ($1, $2, 'MOBILE_MONEY', 1000, 'KES', 'EUR', 7, 0.0069, 0.007, -0.0001, 'operator', 0, 7, false, $3::timestamptz - interval '5 minutes', $3)`,
        [id, b.businessId, daysAgo(expiredDaysAgo)],
      );
    await quote('qt_old', 31);
    await quote('qt_older', 400);
    await quote('qt_recent', 29);
    await quote('qt_valid', -1);
    expect(await retention().prune()).toBe(2);
    expect((await db().any<{ quote_id: string }>('SELECT quote_id FROM fx_quotes ORDER BY quote_id')).map((r) => r.quote_id)).toEqual(['qt_recent', 'qt_valid']);
    expect(await retention({ ...PERIODS, quotes: 0 }).prune()).toBe(0);
  });

  it('keeps everything when a period is 0, and never touches collections or the ledger', async () => {
    const c = await collection();
    const ledger = await ledgerCounts(db());
    const collections = (await db().one<{ n: number }>('SELECT count(*)::int AS n FROM collections')).n;
    const old = await notification(c, 'delivered', 5000);
    await email('sent', 5000);
    await auditEntries(2, 5000);
    expect(await retention({ deliveryAttempts: 0, emails: 0, audit: 0, quotes: 0 }).prune()).toBe(0);
    expect(await attemptsOf([old])).toBe(1);
    expect(await auditCount()).toBe(2);

    expect(await retention().prune()).toBe(4);
    expect(await ledgerCounts(db())).toEqual(ledger);
    expect((await db().one<{ n: number }>('SELECT count(*)::int AS n FROM collections')).n).toBe(collections);
  });
});

describe('retention settings', () => {
  it('default to 90 days of delivery log and emails and 730 days of audit entries', () => {
    expect(loadConfig({}).retentionDays).toEqual({ deliveryAttempts: 90, emails: 90, audit: 730, quotes: 30 });
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '0', EMAIL_RETENTION_DAYS: '30', FX_QUOTE_RETENTION_DAYS: '7' }).retentionDays).toEqual({ deliveryAttempts: 90, emails: 30, audit: 0, quotes: 7 });
  });

  it('refuse a period that is not a whole number of days, naming the setting', () => {
    expect(() => loadConfig({ DELIVERY_LOG_RETENTION_DAYS: '2 weeks' })).toThrow(ConfigError);
    expect(() => loadConfig({ DELIVERY_LOG_RETENTION_DAYS: '2 weeks' })).toThrow(/DELIVERY_LOG_RETENTION_DAYS/);
    expect(() => loadConfig({ AUDIT_RETENTION_DAYS: '-1' })).toThrow(/AUDIT_RETENTION_DAYS/);
    expect(() => loadConfig({ FX_QUOTE_RETENTION_DAYS: 'soon' })).toThrow(/FX_QUOTE_RETENTION_DAYS/);
  });
});
