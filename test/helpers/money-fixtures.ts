// Money fixtures by SQL (no operator API): businesses, wallets, fees and rates; PENDING collections
// priced by PricingService; completion through the collections service's own move (applyOutcome).
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { openPostgres } from '../../src/db';
import type { Database, Db } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import type { CollectionRow, PaymentMethod } from '../../src/domain/collection';
import { seal } from '../../src/crypto/secretbox';
import { createLogger } from '../../src/log';
import { buildServices } from '../../src/wiring';
import type { Services } from '../../src/wiring';
import { hashSecret } from '../../src/merchants/access-tokens';
import { createRealDatabase, freshDatabase } from './db';
import type { Client, TestService } from './service';

export interface BusinessOptions {
  defaultCurrency?: string;
  /** wallet currencies; the default currency's wallet is always made and flagged default */
  wallets?: string[];
  feeBearer?: 'merchant' | 'customer';
  reservePercent?: string;
  reserveMonths?: number;
  cardSettlementDays?: number;
  fees?: { method: PaymentMethod; percent: string; fixedMinor: bigint }[];
  /** the business's FX markup in percent ("2.50"), 0 by default */
  fxMarkupPercent?: string;
}

export interface BusinessFixture {
  businessId: number;
  walletIds: Record<string, number>;
}

export async function createBusiness(db: Db, o: BusinessOptions = {}): Promise<BusinessFixture> {
  const def = o.defaultCurrency ?? 'UGX';
  const { id } = await db.one<{ id: number }>(
    `INSERT INTO businesses (name, default_currency, fee_bearer, rolling_reserve_percent, rolling_reserve_months, card_settlement_days, fx_markup_percent)
     VALUES ('Money Test Shop', $1, $2, $3, $4, $5, $6) RETURNING id`,
    [def, o.feeBearer ?? 'merchant', o.reservePercent ?? '0', o.reserveMonths ?? 0, o.cardSettlementDays ?? 0, o.fxMarkupPercent ?? '0'],
  );
  const walletIds: Record<string, number> = {};
  for (const currency of new Set([def, ...(o.wallets ?? [])])) {
    const w = await db.one<{ id: number }>('INSERT INTO wallets (business_id, currency, is_default) VALUES ($1, $2, $3) RETURNING id', [
      id,
      currency,
      currency === def,
    ]);
    walletIds[currency] = w.id;
  }
  for (const f of o.fees ?? []) {
    await db.none('INSERT INTO business_fees (business_id, payment_method, percent, fixed_minor) VALUES ($1, $2, $3, $4)', [
      id,
      f.method,
      f.percent,
      f.fixedMinor,
    ]);
  }
  return { businessId: id, walletIds };
}

export async function setRate(db: Db, base: string, quote: string, rate: string): Promise<void> {
  await db.none(
    'INSERT INTO fx_rates (base, quote, rate) VALUES ($1, $2, $3) ON CONFLICT (base, quote) DO UPDATE SET rate = EXCLUDED.rate',
    [base, quote, rate],
  );
}

export interface PendingOptions {
  method?: PaymentMethod;
  currency?: string;
  amountMinor: bigint;
}

/** A PENDING collection priced as request-to-pay prices it (the configuration cache's inputs, priceFrom), with the rate, reference rate, markup, source and as-of it records, inserted by SQL. */
export async function insertPending(s: Services, businessId: number, o: PendingOptions): Promise<CollectionRow> {
  const ref = `mref_${randomBytes(8).toString('hex')}`;
  const method = o.method ?? 'MOBILE_MONEY';
  const currency = o.currency ?? 'UGX';
  const { pricing } = await s.configCache.forRequest(0, businessId, method, currency);
  const p = s.pricing.priceFrom(pricing, { businessId, paymentMethod: method, requestCurrency: currency, requestAmountMinor: o.amountMinor, now: s.now() });
  return s.db.one<CollectionRow>(
    `INSERT INTO collections (business_id, gateway_reference, merchant_reference, request_hash, payment_method, message,
       request_amount_minor, request_currency, account_amount_minor, account_currency, fx_rate, fx_reference_rate, fx_markup,
       fx_source, fx_as_of, fee_minor, total_credit_minor, customer_charged, narration, expires_at)
     VALUES ($1, $2, $3, 'hash', $4, 'Awaiting payment by the customer', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
       'money fixture order', now() + interval '30 minutes')
     RETURNING *`,
    [
      businessId, `gw_${ref}`, ref, method, o.amountMinor, currency, p.accountAmountMinor, p.accountCurrency,
      p.fxRate, p.fxReferenceRate, p.fxMarkup, p.fxSource, p.fxAsOf, p.feeMinor, p.totalCreditMinor, p.customerCharged,
    ],
  );
}

/** A provider's success report, applied as the collections service applies it: null when not PENDING. */
export function complete(s: Services, id: bigint): Promise<CollectionRow | null> {
  return s.collections.applyOutcome(id, 'COMPLETED');
}

export async function fail(s: Services, id: bigint): Promise<boolean> {
  const r = await s.db.result("UPDATE collections SET status = 'FAILED', updated_at = now() WHERE id = $1 AND status = 'PENDING'", [id]);
  return r.rowCount === 1;
}

export interface LedgerCounts {
  journals: number;
  postings: number;
  holds: number;
}

export async function ledgerCounts(db: Db): Promise<LedgerCounts> {
  return db.one<LedgerCounts>(
    `SELECT (SELECT count(*)::int FROM journals) AS journals, (SELECT count(*)::int FROM postings) AS postings,
       (SELECT count(*)::int FROM ledger_holds) AS holds`,
  );
}

/** Sum of postings per currency over the whole ledger: always zero. */
export async function sumsPerCurrency(db: Db): Promise<Record<string, bigint>> {
  const rows = await db.any<{ currency: string; sum: bigint }>('SELECT currency, SUM(amount_minor)::bigint AS sum FROM postings GROUP BY currency');
  return Object.fromEntries(rows.map((r) => [r.currency, r.sum]));
}

export interface ServicesFixture {
  services: Services;
  database: Database;
  /** the database URL, for a real-server database (a second pool or process can join it) */
  url?: string;
  close(): Promise<void>;
}

function testConfig() {
  return loadConfig({
    PORT: '0',
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'paycollect-money-')),
    APP_ENV: 'sandbox',
    OPERATOR_API_KEY: 'op_test_operator_key_0123456789',
    SEED_DEMO: 'false',
  });
}

export function servicesOn(database: Database, now?: () => Date): Services {
  return buildServices({ config: testConfig(), db: database.db, log: createLogger(() => undefined), now: now ?? (() => new Date()) });
}

/** Services over a fresh, migrated database of this run (embedded or TEST_DATABASE_URL); no HTTP, no workers. */
export async function moneyServices(now?: () => Date): Promise<ServicesFixture> {
  const database = await freshDatabase();
  await migrate(database.db);
  return { services: servicesOn(database, now), database, close: () => database.close() };
}

/** Services over a new database on the real server, with a pool wide enough for concurrency tests. */
export async function realMoneyServices(serverUrl: string, poolMax: number): Promise<ServicesFixture> {
  const created = await createRealDatabase(serverUrl);
  const database = await openPostgres(created.url, poolMax);
  await migrate(database.db);
  return {
    services: servicesOn(database),
    database,
    url: created.url,
    close: async () => {
      await database.close();
      await created.drop();
    },
  };
}

/** Another pool on the same real-server database: a second process as far as PostgreSQL can tell. */
export async function secondPool(fx: ServicesFixture, poolMax: number): Promise<ServicesFixture> {
  if (!fx.url) throw new Error('a second pool needs a real-server database');
  const database = await openPostgres(fx.url, poolMax);
  return { services: servicesOn(database), database, url: fx.url, close: () => database.close() };
}

/** An API token inserted by SQL, exchanged for a merchant client through POST /v1/auth/token. */
export async function merchantClient(svc: TestService, businessId: number): Promise<Client> {
  const apiKey = `pk_sandbox_money_${randomBytes(6).toString('hex')}`;
  const secret = `sk_sandbox_money_${randomBytes(16).toString('hex')}`;
  await svc.services.db.none(
    `INSERT INTO api_tokens (business_id, api_key, secret_hash, notification_email, webhook_url, webhook_hash_enc)
     VALUES ($1, $2, $3, 'merchant@example.org', 'http://127.0.0.1:9/webhook', $4)`,
    [businessId, apiKey, await hashSecret(secret), seal(svc.config.masterKey, 'whsec-money-fixture-0123456789')],
  );
  const res = await svc.anon.post('/v1/auth/token', { api_key: apiKey }, { headers: { 'Secret-Key': secret } });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
  return svc.merchant(res.body.data.token);
}
