// Business accounts, wallets, MIDs, API tokens, market rates, verification and the demo merchant
// (docs/contract/authentication.md, docs/contract/operator.md). The OpenAPI layer has already checked
// shapes and ranges; the rules here are the ones a schema cannot say (one wallet per currency, known
// processors, two tokens).
import { randomBytes } from 'node:crypto';
import { masterKeys, seal } from '../crypto/secretbox';
import { pgp } from '../db';
import type { Tx } from '../db';
import { BY_ID, listPage } from '../db/keyset';
import type { KeyColumn, ListPage, ListQuery, PageRequest } from '../db/keyset';
import { toMinor } from '../domain/money';
import { AppError, validationError } from '../errors';
import type { FieldError } from '../errors';
import { hashSecret, newCredentials } from './access-tokens';
import { curlLine, DEMO_BUSINESS, DEMO_EXTRA_WALLETS, DEMO_RATES, demoMids, demoToken, SEED_LOCK, writeDemoFile } from './demo-merchant';
import type { Base } from '../base';
import type { NotificationService } from '../notifications/notifications';
import type { Processors } from '../processors';
import type { components } from '../../generated/admin-api';
import { allowlistErrors } from '../domain/ip-allowlist';
import { credentialErrors, openCredentials, sealCredentials } from '../processors/credentials';
import {
  API_TOKEN_COLUMNS,
  apiTokenRecord,
  businessRecord,
  fxRateRecord,
  midRecord,
  PAYMENT_METHODS,
  walletRecord,
} from '../api-records/merchant';
import type {
  ApiTokenRecord,
  PaymentMethod,
  ApiTokenRow,
  BusinessRecord,
  BusinessRow,
  FeeRow,
  FxRateRecord,
  FxRateRow,
  MidRecord,
  MidRow,
  WalletRecord,
  WalletRow,
} from '../api-records/merchant';

export interface DemoCredentials {
  api_key: string;
  api_secret: string;
  business_id: number;
  /** where the credentials were written: DATA_DIR/demo-credentials.json */
  file: string;
  /** a ready curl line that obtains an access token */
  curl: string;
}

/** Processors a MID may name; each has an implementation under src/processors/. */
export const MAX_API_TOKENS_PER_BUSINESS = 2;
/** Fixed fee ceiling in major units: far above any real fee, far below BIGINT. */
const MAX_FIXED_FEE = 1_000_000_000;
/** fx_rates.rate is NUMERIC(30, 12). */
const RATE_DECIMALS = 12;
const MIN_RATE = 1e-12;
const MAX_RATE = 1e15;
/** Ids are SERIAL (INTEGER): a larger path id cannot exist, and must not reach SQL as an overflow. */
const MAX_ID = 2_147_483_647;

/** The operator's inputs as the contract defines them. */
type AdminSchemas = components['schemas'];
export type FeeInput = AdminSchemas['FeeRule'];
export type BusinessInput = AdminSchemas['BusinessCreate'];
export type BusinessPatch = AdminSchemas['BusinessUpdate'];
export type MidInput = AdminSchemas['MidCreate'];
export type MidPatch = AdminSchemas['MidUpdate'];
export type ApiTokenInput = AdminSchemas['ApiTokenCreate'];
export type ApiTokenPatch = AdminSchemas['ApiTokenUpdate'];
export type WalletPatch = AdminSchemas['WalletUpdate'];

/** The same page with its rows turned into records. */
function mapPage<R, T>(page: ListPage<R>, toRecord: (r: R) => T): ListPage<T> {
  return { ...page, rows: page.rows.map(toRecord) };
}

function notFound(what: string): AppError {
  return new AppError('NOT_FOUND', `No ${what} with this id`);
}

function checkId(id: number, what: string): number {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) throw notFound(what);
  return id;
}

function feeErrors(fees: FeeInput[] | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  (fees ?? []).forEach((f, i) => {
    if (seen.has(f.payment_method)) errors.push({ field: `fees.${i}.payment_method`, message: `has a second rule for ${f.payment_method}` });
    seen.add(f.payment_method);
    if (f.fixed > MAX_FIXED_FEE) errors.push({ field: `fees.${i}.fixed`, message: `must be at most ${MAX_FIXED_FEE}` });
  });
  return errors;
}

/** `known`: the processors this deployment has (Processors.serviceTypes). */
function serviceTypeErrors(serviceType: string | undefined, known: string[]): FieldError[] {
  if (serviceType === undefined || known.includes(serviceType)) return [];
  return [{ field: 'service_type', message: `must be a known processor: ${known.join(', ')}` }];
}

function rateErrors(base: string, quote: string, rate: number): FieldError[] {
  const errors: FieldError[] = [];
  if (base === quote) errors.push({ field: 'quote', message: 'must differ from base' });
  if (!(rate >= MIN_RATE && rate <= MAX_RATE)) errors.push({ field: 'rate', message: `must be between ${MIN_RATE} and ${MAX_RATE}` });
  else if (Number(rate.toFixed(RATE_DECIMALS)) !== rate) errors.push({ field: 'rate', message: `must have at most ${RATE_DECIMALS} decimal places` });
  return errors;
}

function throwIfAny(errors: FieldError[]): void {
  if (errors.length > 0) throw validationError(errors);
}

/** An UPDATE of the given columns only; JSONB columns are serialised, never sent as arrays. */
function updateSql(table: string, patch: Record<string, unknown>, jsonColumns: string[] = [], cidrColumns: string[] = []): string {
  const columns = Object.keys(patch).map((name) =>
    jsonColumns.includes(name) ? { name, mod: ':json', cast: 'jsonb' } : cidrColumns.includes(name) ? { name, cast: 'cidr[]' } : { name },
  );
  return pgp.helpers.update(patch, new pgp.helpers.ColumnSet(columns, { table }));
}

/** CIDR[] is sent as text[] and cast; an empty list is no list (NULL: in live, no disbursements). */
function storedAllowlist(list: string[] | null | undefined): string[] | null {
  return list === null || list === undefined || list.length === 0 ? null : list;
}

function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export class BusinessService {
  /** `paysOut`: whether a service type's processor pays out (the simulator's payouts included), for MIDs that disburse */
  constructor(readonly s: Base & { processors: Processors; notifications: NotificationService; paysOut: (serviceType: string) => boolean }) {}

  // ---- business accounts -------------------------------------------------------------------

  async createBusiness(input: BusinessInput): Promise<BusinessRecord> {
    throwIfAny(feeErrors(input.fees));
    return this.s.db.tx(async (t) => {
      const id = await this.insertBusiness(t, input);
      return this.loadBusiness(t, id);
    });
  }

  async listBusinesses(page: PageRequest): Promise<ListPage<BusinessRecord>> {
    return this.s.db.task(async (t) => {
      const q: ListQuery = { sql: 'SELECT * FROM businesses', values: [], key: BY_ID, direction: 'DESC' };
      const found = await listPage<BusinessRow>(t, q, page);
      return { ...found, rows: await this.withDetails(t, found.rows) };
    });
  }

  /** The names of these businesses by id, in one statement (a page of collections names them). */
  async namesOf(ids: number[]): Promise<Map<number, string>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows = await this.s.db.any<{ id: number; name: string }>('SELECT id, name FROM businesses WHERE id = ANY($1::int[])', [unique]);
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  async getBusiness(id: number): Promise<BusinessRecord> {
    checkId(id, 'business');
    return this.s.db.task((t) => this.loadBusiness(t, id));
  }

  async updateBusiness(id: number, patch: BusinessPatch): Promise<BusinessRecord> {
    checkId(id, 'business');
    throwIfAny(feeErrors(patch.fees));
    return this.s.db.tx(async (t) => {
      await this.lockBusiness(t, id);
      const { fees, default_currency, disbursement_fee_fixed, disbursement_fee_percent, ...columns } = patch;
      if (default_currency !== undefined) await this.moveDefaultWallet(t, id, default_currency);
      if (fees !== undefined) await this.replaceFees(t, id, fees);
      const disbursementFee = defined({
        disbursement_fee_percent: disbursement_fee_percent === undefined ? undefined : String(disbursement_fee_percent),
        disbursement_fee_fixed_minor: disbursement_fee_fixed === undefined ? undefined : toMinor(disbursement_fee_fixed),
      });
      await t.none(updateSql('businesses', { ...defined(columns), ...disbursementFee, updated_at: this.s.now() }) + ' WHERE id = $1', [id]);
      return this.loadBusiness(t, id);
    });
  }

  async verifyBusiness(id: number, verifiedBy: string, note: string | undefined): Promise<BusinessRecord> {
    checkId(id, 'business');
    return this.s.db.tx(async (t) => {
      const now = this.s.now();
      const updated = await t.result(
        'UPDATE businesses SET verified_at = $2, verified_by = $3, verification_note = $4, updated_at = $2 WHERE id = $1',
        [id, now, verifiedBy, note ?? null],
      );
      if (updated.rowCount === 0) throw notFound('business');
      return this.loadBusiness(t, id);
    });
  }

  private async insertBusiness(t: Tx, input: BusinessInput): Promise<number> {
    const now = this.s.now();
    const { id } = await t.one<{ id: number }>(
      `INSERT INTO businesses (name, default_currency, rolling_reserve_percent, rolling_reserve_months,
         card_settlement_days, fee_bearer, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`,
      [
        input.name,
        input.default_currency,
        String(input.rolling_reserve_percent ?? 0),
        input.rolling_reserve_months ?? 0,
        input.card_settlement_days ?? 0,
        input.fee_bearer ?? 'merchant',
        now,
      ],
    );
    await this.replaceFees(t, id, input.fees ?? []);
    await this.insertWallet(t, id, input.default_currency, true);
    return id;
  }

  private async replaceFees(t: Tx, businessId: number, fees: FeeInput[]): Promise<void> {
    await t.none('DELETE FROM business_fees WHERE business_id = $1', [businessId]);
    for (const f of fees) {
      await t.none('INSERT INTO business_fees (business_id, payment_method, percent, fixed_minor) VALUES ($1, $2, $3, $4)', [
        businessId,
        f.payment_method,
        String(f.percent),
        toMinor(f.fixed),
      ]);
    }
  }

  /**
   * The business row, locked for the rest of the transaction (serialises wallet and token changes). The
   * configuration version row is locked first, as every change to a configuration table does before its
   * own row locks (migration 0070), so a change holding a business row never waits for it in a cycle.
   */
  private async lockBusiness(t: Tx, id: number): Promise<BusinessRow> {
    await t.one('SELECT version FROM config_version FOR UPDATE');
    const row = await t.oneOrNone<BusinessRow>('SELECT * FROM businesses WHERE id = $1 FOR UPDATE', [id]);
    if (!row) throw notFound('business');
    return row;
  }

  private async loadBusiness(t: Tx, id: number): Promise<BusinessRecord> {
    const row = await t.oneOrNone<BusinessRow>('SELECT * FROM businesses WHERE id = $1', [id]);
    if (!row) throw notFound('business');
    return (await this.withDetails(t, [row]))[0];
  }

  private async withDetails(t: Tx, rows: BusinessRow[]): Promise<BusinessRecord[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const fees = await t.any<FeeRow>('SELECT * FROM business_fees WHERE business_id IN ($1:csv)', [ids]);
    fees.sort((a, b) => PAYMENT_METHODS.indexOf(a.payment_method) - PAYMENT_METHODS.indexOf(b.payment_method));
    const wallets = await t.any<WalletRow>(
      'SELECT * FROM wallets WHERE business_id IN ($1:csv) ORDER BY is_default DESC, currency',
      [ids],
    );
    return rows.map((b) =>
      businessRecord(
        b,
        fees.filter((f) => f.business_id === b.id),
        wallets.filter((w) => w.business_id === b.id),
      ),
    );
  }

  // ---- wallets -----------------------------------------------------------------------------

  async createWallet(businessId: number, currency: string, isDefault: boolean): Promise<WalletRecord> {
    checkId(businessId, 'business');
    return this.s.db.tx(async (t) => {
      await this.lockBusiness(t, businessId);
      const exists = await t.oneOrNone('SELECT 1 FROM wallets WHERE business_id = $1 AND currency = $2', [businessId, currency]);
      if (exists) throw validationError([{ field: 'currency', message: `the business already has a ${currency} wallet` }]);
      await this.insertWallet(t, businessId, currency, false);
      if (isDefault) await this.moveDefaultWallet(t, businessId, currency);
      return walletRecord(await t.one<WalletRow>('SELECT * FROM wallets WHERE business_id = $1 AND currency = $2', [businessId, currency]));
    });
  }

  /** A wallet's disbursement limits and approval threshold (null removes one); under the business lock, like every wallet change. */
  async updateWallet(businessId: number, currency: string, patch: WalletPatch): Promise<WalletRecord> {
    checkId(businessId, 'business');
    return this.s.db.tx(async (t) => {
      await this.lockBusiness(t, businessId);
      const minor = (v: number | null | undefined) => (v === undefined ? undefined : v === null ? null : toMinor(v));
      const columns = defined({
        disbursement_limit_minor: minor(patch.disbursement_limit),
        disbursement_daily_limit_minor: minor(patch.disbursement_daily_limit),
        disbursement_approval_threshold_minor: minor(patch.disbursement_approval_threshold),
      });
      const row = await t.oneOrNone<WalletRow>(updateSql('wallets', columns) + ' WHERE business_id = $1 AND currency = $2 RETURNING *', [businessId, currency]);
      if (!row) throw new AppError('NOT_FOUND', `The business has no ${currency} wallet`);
      return walletRecord(row);
    });
  }

  async listWallets(businessId: number, page: PageRequest): Promise<ListPage<WalletRecord>> {
    checkId(businessId, 'business');
    return this.s.db.task(async (t) => {
      await this.loadBusiness(t, businessId);
      const q: ListQuery = { sql: 'SELECT * FROM wallets WHERE business_id = $1', values: [businessId], key: BY_ID, direction: 'ASC' };
      return mapPage(await listPage<WalletRow>(t, q, page), walletRecord);
    });
  }

  private async insertWallet(t: Tx, businessId: number, currency: string, isDefault: boolean): Promise<void> {
    await t.none('INSERT INTO wallets (business_id, currency, is_default, created_at) VALUES ($1, $2, $3, $4)', [
      businessId,
      currency,
      isDefault,
      this.s.now(),
    ]);
  }

  /** One default per business (partial unique index): clear the old one before setting the new. */
  private async moveDefaultWallet(t: Tx, businessId: number, currency: string): Promise<void> {
    const exists = await t.oneOrNone('SELECT 1 FROM wallets WHERE business_id = $1 AND currency = $2', [businessId, currency]);
    if (!exists) throw validationError([{ field: 'default_currency', message: `the business has no ${currency} wallet; add it first` }]);
    await t.none('UPDATE wallets SET is_default = false WHERE business_id = $1 AND is_default AND currency <> $2', [businessId, currency]);
    await t.none('UPDATE wallets SET is_default = true WHERE business_id = $1 AND currency = $2', [businessId, currency]);
    await t.none('UPDATE businesses SET default_currency = $2, updated_at = $3 WHERE id = $1', [businessId, currency, this.s.now()]);
  }

  // ---- MIDs --------------------------------------------------------------------------------

  async createMid(businessId: number, input: MidInput): Promise<MidRecord> {
    checkId(businessId, 'business');
    throwIfAny(serviceTypeErrors(input.service_type, this.s.processors.serviceTypes()));
    throwIfAny([
      ...this.processorErrors(input.service_type, input.payment_method, input.currency, input.credentials ?? {}),
      ...this.roleErrors(input.service_type, input.payment_method, input.collects ?? true, input.disburses ?? false),
    ]);
    return this.s.db.tx(async (t) => {
      await this.lockBusiness(t, businessId);
      return midRecord(await this.insertMid(t, businessId, input));
    });
  }

  async listMids(businessId: number, page: PageRequest): Promise<ListPage<MidRecord>> {
    checkId(businessId, 'business');
    return this.s.db.task(async (t) => {
      await this.loadBusiness(t, businessId);
      const q: ListQuery = { sql: 'SELECT * FROM mids WHERE business_id = $1', values: [businessId], key: BY_ID, direction: 'ASC' };
      return mapPage(await listPage<MidRow>(t, q, page), midRecord);
    });
  }

  async updateMid(id: number, patch: MidPatch): Promise<MidRecord> {
    checkId(id, 'MID');
    throwIfAny(serviceTypeErrors(patch.service_type, this.s.processors.serviceTypes()));
    const { merchant_password, credentials, ...columns } = patch;
    const values: Record<string, unknown> = { ...defined(columns), updated_at: this.s.now() };
    if (merchant_password !== undefined) values.merchant_password_enc = seal(this.s.config.masterKey, merchant_password);
    const processorChanges = credentials !== undefined || patch.service_type !== undefined || patch.currency !== undefined || patch.payment_method !== undefined;
    const roleChanges = patch.collects !== undefined || patch.disburses !== undefined || patch.service_type !== undefined || patch.payment_method !== undefined;
    if (processorChanges || roleChanges) {
      // the MID as it is, read once for both checks
      const mid = await this.s.db.oneOrNone<MidRow>('SELECT * FROM mids WHERE id = $1', [id]);
      if (!mid) throw notFound('MID');
      if (processorChanges) Object.assign(values, this.checkedCredentials(mid, patch));
      if (roleChanges) {
        throwIfAny(this.roleErrors(patch.service_type ?? mid.service_type, patch.payment_method ?? mid.payment_method, patch.collects ?? mid.collects, patch.disburses ?? mid.disburses));
      }
    }
    const row = await this.s.db.oneOrNone<MidRow>(updateSql('mids', values, ['allowed_traffic']) + ' WHERE id = $1 RETURNING *', [id]);
    if (!row) throw notFound('MID');
    return midRecord(row);
  }

  /** What a processor cannot take: its methods, currencies and credentials (docs/contract/processors.md). */
  private processorErrors(serviceType: string, method: PaymentMethod, currency: string, credentials: Record<string, string>): FieldError[] {
    const processor = this.s.processors.get(serviceType);
    const errors: FieldError[] = [];
    if (!processor.paymentMethods.includes(method)) {
      errors.push({ field: 'payment_method', message: `${serviceType} takes ${processor.paymentMethods.join(', ')}` });
    }
    if (processor.amountDecimals(currency) === null) errors.push({ field: 'currency', message: `${serviceType} does not take ${currency}` });
    return [...errors, ...credentialErrors(processor, credentials)];
  }

  /**
   * What a MID is for (docs/contract/processors.md): it collects, disburses or both; it disburses only
   * through a processor that pays out, to a phone or a bank account.
   */
  private roleErrors(serviceType: string, method: PaymentMethod, collects: boolean, disburses: boolean): FieldError[] {
    if (!collects && !disburses) return [{ field: 'disburses', message: 'A MID collects, disburses or both: set collects or disburses to true' }];
    if (!disburses) return [];
    if (method !== 'MOBILE_MONEY' && method !== 'BANK') return [{ field: 'disburses', message: `Disbursements go to a phone or a bank account: a ${method} MID cannot disburse` }];
    if (!this.s.paysOut(serviceType)) return [{ field: 'disburses', message: `${serviceType} pays nothing out: its MIDs cannot disburse` }];
    return [];
  }

  /**
   * A MID update touching its processor: the credentials after the update (`mid`'s stored ones with the
   * new values over them; replaced outright when the service type changes) checked against the
   * processor it will have, then sealed.
   */
  private checkedCredentials(mid: MidRow, patch: MidPatch): { credentials_enc: string | null; credential_names: string[] } {
    const serviceType = patch.service_type ?? mid.service_type;
    const kept = serviceType === mid.service_type ? openCredentials(masterKeys(this.s.config), mid.credentials_enc) : {};
    const merged = { ...kept, ...patch.credentials };
    throwIfAny(this.processorErrors(serviceType, patch.payment_method ?? mid.payment_method, patch.currency ?? mid.currency, merged));
    return sealCredentials(this.s.config.masterKey, merged);
  }

  private async insertMid(t: Tx, businessId: number, m: MidInput): Promise<MidRow> {
    const now = this.s.now();
    const sealed = sealCredentials(this.s.config.masterKey, m.credentials ?? {});
    return t.one<MidRow>(
      `INSERT INTO mids (business_id, business_name, service_type, payment_method, currency, allowed_traffic,
         merchant_operator, merchant_username, merchant_password_enc, processing_rank,
         reject_first_time_depositors, active, created_at, updated_at, credentials_enc, credential_names, collects, disburses)
       VALUES ($1, $2, $3, $4, $5, $6:json::jsonb, $7, $8, $9, $10, $11, $12, $13, $13, $14, $15, $16, $17) RETURNING *`,
      [
        businessId,
        m.business_name,
        m.service_type,
        m.payment_method,
        m.currency,
        m.allowed_traffic ?? 'ALL',
        m.merchant_operator ?? null,
        m.merchant_username ?? null,
        m.merchant_password === undefined ? null : seal(this.s.config.masterKey, m.merchant_password),
        m.processing_rank ?? 1,
        m.reject_first_time_depositors ?? false,
        m.active ?? true,
        now,
        sealed.credentials_enc,
        sealed.credential_names,
        m.collects ?? true,
        m.disburses ?? false,
      ],
    );
  }

  // ---- API tokens --------------------------------------------------------------------------

  /** The secret is in this answer only; the database keeps its argon2id hash. */
  async createApiToken(businessId: number, input: ApiTokenInput): Promise<ApiTokenRecord & { api_secret: string }> {
    checkId(businessId, 'business');
    if (input.ip_allowlist) throwIfAny(allowlistErrors('ip_allowlist', input.ip_allowlist, this.s.config.appEnv === 'live'));
    await this.s.notifications.assertWebhookUrlAllowed(input.webhook_url);
    const creds = newCredentials(this.s.config.appEnv);
    const secretHash = await hashSecret(creds.apiSecret);
    const row = await this.s.db.tx(async (t) => {
      await this.lockBusiness(t, businessId);
      return this.insertApiToken(t, businessId, input, creds.apiKey, secretHash);
    });
    return { ...apiTokenRecord(row), api_secret: creds.apiSecret };
  }

  async listApiTokens(businessId: number, page: PageRequest): Promise<ListPage<ApiTokenRecord>> {
    checkId(businessId, 'business');
    return this.s.db.task(async (t) => {
      await this.loadBusiness(t, businessId);
      const sql = `SELECT ${API_TOKEN_COLUMNS} FROM api_tokens WHERE business_id = $1`;
      return mapPage(await listPage<ApiTokenRow>(t, { sql, values: [businessId], key: BY_ID, direction: 'ASC' }, page), apiTokenRecord);
    });
  }

  async updateApiToken(id: number, patch: ApiTokenPatch): Promise<ApiTokenRecord> {
    checkId(id, 'API token');
    if (patch.ip_allowlist) throwIfAny(allowlistErrors('ip_allowlist', patch.ip_allowlist, this.s.config.appEnv === 'live'));
    if (patch.webhook_url !== undefined) await this.s.notifications.assertWebhookUrlAllowed(patch.webhook_url);
    const { webhook_hash, ip_allowlist, ...columns } = patch;
    const values: Record<string, unknown> = { ...defined(columns), updated_at: this.s.now() };
    if (webhook_hash !== undefined) values.webhook_hash_enc = seal(this.s.config.masterKey, webhook_hash);
    if (ip_allowlist !== undefined) values.ip_allowlist = storedAllowlist(ip_allowlist);
    const row = await this.s.db.oneOrNone<ApiTokenRow>(updateSql('api_tokens', values, [], ['ip_allowlist']) + ` WHERE id = $1 RETURNING ${API_TOKEN_COLUMNS}`, [id]);
    if (!row) throw notFound('API token');
    return apiTokenRecord(row);
  }

  /** New key and secret; the generation moves on, so access tokens issued before stop at once. */
  async regenerateApiToken(id: number): Promise<ApiTokenRecord & { api_secret: string }> {
    checkId(id, 'API token');
    const creds = newCredentials(this.s.config.appEnv);
    const secretHash = await hashSecret(creds.apiSecret);
    const row = await this.s.db.oneOrNone<ApiTokenRow>(
      `UPDATE api_tokens SET api_key = $2, secret_hash = $3, generation = generation + 1, updated_at = $4
       WHERE id = $1 RETURNING ${API_TOKEN_COLUMNS}`,
      [id, creds.apiKey, secretHash, this.s.now()],
    );
    if (!row) throw notFound('API token');
    return { ...apiTokenRecord(row), api_secret: creds.apiSecret };
  }

  /** Access tokens find no row for their subject any more, so they stop at once. */
  async deleteApiToken(id: number): Promise<void> {
    checkId(id, 'API token');
    const deleted = await this.s.db.result('DELETE FROM api_tokens WHERE id = $1', [id]);
    if (deleted.rowCount === 0) throw notFound('API token');
  }

  /** The caller holds the business row lock, so two concurrent creates cannot both pass the count. */
  private async insertApiToken(t: Tx, businessId: number, input: ApiTokenInput, apiKey: string, secretHash: string): Promise<ApiTokenRow> {
    const { n } = await t.one<{ n: number }>('SELECT count(*)::int AS n FROM api_tokens WHERE business_id = $1', [businessId]);
    if (n >= MAX_API_TOKENS_PER_BUSINESS) throw new AppError('API_TOKEN_LIMIT');
    const now = this.s.now();
    return t.one<ApiTokenRow>(
      `INSERT INTO api_tokens (business_id, api_key, secret_hash, notification_email, webhook_url, webhook_hash_enc,
         email_merchant, email_user, created_at, updated_at, ip_allowlist)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10::cidr[]) RETURNING ${API_TOKEN_COLUMNS}`,
      [
        businessId,
        apiKey,
        secretHash,
        input.notification_email,
        input.webhook_url,
        seal(this.s.config.masterKey, input.webhook_hash),
        input.email_merchant ?? false,
        input.email_user ?? false,
        now,
        storedAllowlist(input.ip_allowlist),
      ],
    );
  }

  // ---- market rates ------------------------------------------------------------------------

  async setFxRate(base: string, quote: string, rate: number): Promise<FxRateRecord> {
    throwIfAny(rateErrors(base, quote, rate));
    return fxRateRecord(await this.upsertFxRate(this.s.db, base, quote, rate));
  }

  async listFxRates(page: PageRequest): Promise<ListPage<FxRateRecord>> {
    const key: KeyColumn[] = [
      { column: 'base', type: 'text' },
      { column: 'quote', type: 'text' },
    ];
    return mapPage(await listPage<FxRateRow>(this.s.db, { sql: 'SELECT * FROM fx_rates', values: [], key, direction: 'ASC' }, page), fxRateRecord);
  }

  private upsertFxRate(t: Pick<Tx, 'one'>, base: string, quote: string, rate: number): Promise<FxRateRow> {
    return t.one<FxRateRow>(
      `INSERT INTO fx_rates (base, quote, rate, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (base, quote) DO UPDATE SET rate = EXCLUDED.rate, updated_at = EXCLUDED.updated_at
       RETURNING *`,
      [base, quote, rate.toFixed(RATE_DECIMALS), this.s.now()],
    );
  }

  // ---- demo merchant -----------------------------------------------------------------------

  /**
   * On first start with an empty database (SEED_DEMO, sandbox only), create the demo merchant in one
   * transaction, the credentials file included; else null.
   */
  async seedDemoIfEmpty(): Promise<DemoCredentials | null> {
    if (this.s.config.appEnv !== 'sandbox') {
      this.s.log.warn('SEED_DEMO is ignored outside the sandbox');
      return null;
    }
    // Cheap answer on every later start, before the (deliberately slow) secret hashing.
    if (await this.s.db.oneOrNone('SELECT 1 FROM businesses LIMIT 1')) return null;
    const creds = newCredentials(this.s.config.appEnv);
    const secretHash = await hashSecret(creds.apiSecret);
    const webhookHash = randomBytes(24).toString('base64url');
    const baseUrl = this.s.config.publicBaseUrl;
    const curl = curlLine(baseUrl, creds.apiKey, creds.apiSecret);
    const created = await this.s.db.tx(async (t) => {
      await t.one('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK]);
      if (await t.oneOrNone('SELECT 1 FROM businesses LIMIT 1')) return null;
      const businessId = await this.insertBusiness(t, DEMO_BUSINESS);
      for (const currency of DEMO_EXTRA_WALLETS) await this.insertWallet(t, businessId, currency, false);
      for (const mid of demoMids([DEMO_BUSINESS.default_currency, ...DEMO_EXTRA_WALLETS])) await this.insertMid(t, businessId, mid);
      for (const [base, quote, rate] of DEMO_RATES) {
        await t.none('INSERT INTO fx_rates (base, quote, rate, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
          base,
          quote,
          rate.toFixed(RATE_DECIMALS),
          this.s.now(),
        ]);
      }
      const token = demoToken(webhookHash);
      await this.insertApiToken(t, businessId, token, creds.apiKey, secretHash);
      // Written before the commit: if the file cannot be written, nothing is created.
      const file = writeDemoFile(this.s.config.dataDir, {
        api_key: creds.apiKey,
        api_secret: creds.apiSecret,
        business_id: businessId,
        base_url: baseUrl,
        webhook_url: token.webhook_url,
        webhook_hash: webhookHash,
        curl,
      });
      return { businessId, file };
    });
    if (!created) return null;
    this.s.log.info('demo merchant created', { business_id: created.businessId, file: created.file });
    return { api_key: creds.apiKey, api_secret: creds.apiSecret, business_id: created.businessId, file: created.file, curl };
  }
}
