// Business accounts with their wallets and fees, one aggregate (docs/contract/operator.md): created,
// listed, changed, verified for live; a wallet per currency, one of them the default. The OpenAPI layer has
// already checked shapes and ranges; the rules here are the ones a schema cannot say.
import type { Base } from '../base';
import type { Tx } from '../db';
import { BY_ID, listPage } from '../db/keyset';
import type { ListPage, ListQuery, PageRequest } from '../db/keyset';
import { toMinor } from '../domain/money';
import { AppError, validationError } from '../errors';
import { businessRecord, PAYMENT_METHODS, walletRecord } from '../api-records/merchant';
import type { BusinessRecord, BusinessRow, FeeRow, WalletRecord, WalletRow } from '../api-records/merchant';
import { checkId, defined, feeErrors, lockBusiness, mapPage, notFound, throwIfAny, updateSql } from './inputs';
import type { BusinessInput, BusinessPatch, FeeInput, WalletPatch } from './inputs';
import { amountLoosens } from '../domain/guards';
import type { GuardChanges, Requester, WalletGuard } from './guard-changes';

export class BusinessService {
  constructor(readonly s: Base & { guards: GuardChanges }) {}

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
      await lockBusiness(t, id);
      const { fees, default_currency, disbursement_fee_fixed, disbursement_fee_percent, fx_markup_percent, ...columns } = patch;
      if (default_currency !== undefined) await this.moveDefaultWallet(t, id, default_currency);
      if (fees !== undefined) await this.replaceFees(t, id, fees);
      const disbursementFee = defined({
        disbursement_fee_percent: disbursement_fee_percent === undefined ? undefined : String(disbursement_fee_percent),
        disbursement_fee_fixed_minor: disbursement_fee_fixed === undefined ? undefined : toMinor(disbursement_fee_fixed),
        // as decimal text: a JSON number's double never reaches the NUMERIC column
        fx_markup_percent: fx_markup_percent === undefined ? undefined : fx_markup_percent.toFixed(2),
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

  async insertBusiness(t: Tx, input: BusinessInput): Promise<number> {
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

  async createWallet(businessId: number, currency: string, isDefault: boolean): Promise<WalletRecord> {
    checkId(businessId, 'business');
    return this.s.db.tx(async (t) => {
      await lockBusiness(t, businessId);
      const exists = await t.oneOrNone('SELECT 1 FROM wallets WHERE business_id = $1 AND currency = $2', [businessId, currency]);
      if (exists) throw validationError([{ field: 'currency', message: `the business already has a ${currency} wallet` }]);
      await this.insertWallet(t, businessId, currency, false);
      if (isDefault) await this.moveDefaultWallet(t, businessId, currency);
      return walletRecord(await t.one<WalletRow>('SELECT * FROM wallets WHERE business_id = $1 AND currency = $2', [businessId, currency]));
    });
  }

  /**
   * A wallet's disbursement limits and approval threshold (null removes one), under the business lock
   * like every wallet change. Lowering one (or setting one where there was none) applies at once and
   * withdraws a loosening of it that waits; raising or removing one waits for its notice, every owner
   * told (guard-changes.ts). `by`: who asks.
   */
  async updateWallet(businessId: number, currency: string, patch: WalletPatch, by: Requester): Promise<{ wallet: WalletRecord; scheduled: WalletGuard[] }> {
    checkId(businessId, 'business');
    const minor = (v: number | null | undefined) => (v === undefined ? undefined : v === null ? null : toMinor(v));
    const asked = defined({
      disbursement_limit_minor: minor(patch.disbursement_limit),
      disbursement_daily_limit_minor: minor(patch.disbursement_daily_limit),
      disbursement_approval_threshold_minor: minor(patch.disbursement_approval_threshold),
    }) as Partial<Record<WalletGuard, bigint | null>>;
    return this.s.db.tx(async (t) => {
      const business = await lockBusiness(t, businessId);
      const current = await t.oneOrNone<WalletRow>('SELECT * FROM wallets WHERE business_id = $1 AND currency = $2 FOR UPDATE', [businessId, currency]);
      if (!current) throw new AppError('NOT_FOUND', `The business has no ${currency} wallet`);
      const now: Partial<Record<WalletGuard, bigint | null>> = {};
      const scheduled: WalletGuard[] = [];
      for (const [field, value] of Object.entries(asked) as [WalletGuard, bigint | null][]) {
        if (amountLoosens(current[field], value)) {
          await this.s.guards.schedule(t, { businessId, walletId: current.id, currency, field, valueMinor: value }, by, business.name);
          scheduled.push(field);
        } else {
          now[field] = value;
          await this.s.guards.withdraw(t, { walletId: current.id, field });
        }
      }
      const row = Object.keys(now).length === 0 ? current : await t.one<WalletRow>(updateSql('wallets', now) + ' WHERE id = $1 RETURNING *', [current.id]);
      const { wallets } = await this.s.guards.waiting(t, { walletIds: [row.id] });
      return { wallet: walletRecord(row, wallets.get(row.id)), scheduled };
    });
  }

  async listWallets(businessId: number, page: PageRequest): Promise<ListPage<WalletRecord>> {
    checkId(businessId, 'business');
    return this.s.db.task(async (t) => {
      await this.loadBusiness(t, businessId);
      const q: ListQuery = { sql: 'SELECT * FROM wallets WHERE business_id = $1', values: [businessId], key: BY_ID, direction: 'ASC' };
      const found = await listPage<WalletRow>(t, q, page);
      const { wallets } = await this.s.guards.waiting(t, { walletIds: found.rows.map((w) => w.id) });
      return mapPage(found, (w) => walletRecord(w, wallets.get(w.id)));
    });
  }

  async insertWallet(t: Tx, businessId: number, currency: string, isDefault: boolean): Promise<void> {
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
}
