// What the operator's set-up flows share (businesses.ts, mids.ts, api-tokens.ts, fx-rates.ts): the inputs
// as the contract defines them, the checks a schema cannot state, the page mapper, the partial UPDATE, and
// the business row lock every wallet, MID and token change takes first.
import { pgp } from '../db';
import type { Tx } from '../db';
import type { ListPage } from '../db/keyset';
import { AppError, validationError } from '../errors';
import type { FieldError } from '../errors';
import type { BusinessRow } from '../api-records/merchant';
import type { components } from '../../generated/admin-api';

/** Processors a MID may name; each has an implementation under src/processors/. */
export const MAX_API_TOKENS_PER_BUSINESS = 2;
/** Fixed fee ceiling in major units: far above any real fee, far below BIGINT. */
const MAX_FIXED_FEE = 1_000_000_000;
/** fx_rates.rate is NUMERIC(30, 12). */
export const RATE_DECIMALS = 12;
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
export function mapPage<R, T>(page: ListPage<R>, toRecord: (r: R) => T): ListPage<T> {
  return { ...page, rows: page.rows.map(toRecord) };
}

export function notFound(what: string): AppError {
  return new AppError('NOT_FOUND', `No ${what} with this id`);
}

export function checkId(id: number, what: string): number {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) throw notFound(what);
  return id;
}

export function feeErrors(fees: FeeInput[] | undefined): FieldError[] {
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
export function serviceTypeErrors(serviceType: string | undefined, known: string[]): FieldError[] {
  if (serviceType === undefined || known.includes(serviceType)) return [];
  return [{ field: 'service_type', message: `must be a known processor: ${known.join(', ')}` }];
}

export function rateErrors(base: string, quote: string, rate: number): FieldError[] {
  const errors: FieldError[] = [];
  if (base === quote) errors.push({ field: 'quote', message: 'must differ from base' });
  if (!(rate >= MIN_RATE && rate <= MAX_RATE)) errors.push({ field: 'rate', message: `must be between ${MIN_RATE} and ${MAX_RATE}` });
  else if (Number(rate.toFixed(RATE_DECIMALS)) !== rate) errors.push({ field: 'rate', message: `must have at most ${RATE_DECIMALS} decimal places` });
  return errors;
}

export function throwIfAny(errors: FieldError[]): void {
  if (errors.length > 0) throw validationError(errors);
}

/** An UPDATE of the given columns only; JSONB columns are serialised, never sent as arrays. */
export function updateSql(table: string, patch: Record<string, unknown>, jsonColumns: string[] = [], cidrColumns: string[] = []): string {
  const columns = Object.keys(patch).map((name) =>
    jsonColumns.includes(name) ? { name, mod: ':json', cast: 'jsonb' } : cidrColumns.includes(name) ? { name, cast: 'cidr[]' } : { name },
  );
  return pgp.helpers.update(patch, new pgp.helpers.ColumnSet(columns, { table }));
}

/** CIDR[] is sent as text[] and cast; an empty list is no list (NULL: in live, no disbursements). */
export function storedAllowlist(list: string[] | null | undefined): string[] | null {
  return list === null || list === undefined || list.length === 0 ? null : list;
}

export function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The business row, locked for the rest of the transaction (serialises wallet and token changes). The
 * configuration version row is locked first, as every change to a configuration table does before its
 * own row locks (migration 0070), so a change holding a business row never waits for it in a cycle.
 */
export async function lockBusiness(t: Tx, id: number): Promise<BusinessRow> {
  await t.one('SELECT version FROM config_version FOR UPDATE');
  const row = await t.oneOrNone<BusinessRow>('SELECT * FROM businesses WHERE id = $1 FOR UPDATE', [id]);
  if (!row) throw notFound('business');
  return row;
}
