// Database rows of the merchant set-up tables and the API records built from them (admin.yaml's
// Business, Wallet, Mid, ApiToken, FxRate). Secrets (MID password, secret hash, webhook hash) have
// no field here, so no record can leak them.
import { toApi } from '../domain/money';
import { apiTime, apiTimeOrNull } from '../domain/time';
import type { components } from '../../generated/admin-api';

export const PAYMENT_METHODS = ['MOBILE_MONEY', 'CARD', 'BANK', 'CRYPTO'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export type FeeBearer = 'merchant' | 'customer';
export type AllowedTraffic = 'ALL' | string[];

export interface BusinessRow {
  id: number;
  name: string;
  default_currency: string;
  rolling_reserve_percent: string;
  rolling_reserve_months: number;
  card_settlement_days: number;
  fee_bearer: FeeBearer;
  /** NUMERIC(5, 2) */
  disbursement_fee_percent: string;
  /** NUMERIC(5, 2) */
  fx_markup_percent: string;
  disbursement_fee_fixed_minor: bigint;
  disbursements_frozen: boolean;
  disbursement_approval_hours: number;
  verified_at: Date | null;
  verified_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface FeeRow {
  business_id: number;
  payment_method: PaymentMethod;
  percent: string;
  fixed_minor: bigint;
}

export interface WalletRow {
  id: number;
  business_id: number;
  currency: string;
  is_default: boolean;
  disbursement_limit_minor: bigint | null;
  disbursement_daily_limit_minor: bigint | null;
  disbursement_approval_threshold_minor: bigint | null;
  created_at: Date;
}

export interface MidRow {
  id: number;
  business_id: number;
  business_name: string;
  service_type: string;
  payment_method: PaymentMethod;
  currency: string;
  allowed_traffic: AllowedTraffic;
  merchant_operator: string | null;
  merchant_username: string | null;
  merchant_password_enc: string | null;
  /** the processor credentials, sealed (never in a record); credential_names says which are set */
  credentials_enc: string | null;
  credential_names: string[];
  processing_rank: number;
  reject_first_time_depositors: boolean;
  active: boolean;
  /** what the MID is for: collections, disbursements, or both */
  collects: boolean;
  disburses: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface ApiTokenRow {
  id: number;
  business_id: number;
  api_key: string;
  notification_email: string;
  webhook_url: string;
  email_merchant: boolean;
  email_user: boolean;
  /** CIDR blocks as PostgreSQL writes them; null when the token has no allowlist */
  ip_allowlist: string[] | null;
  created_at: Date;
  updated_at: Date;
}

/** The api_tokens columns a record may show: never secret_hash nor webhook_hash_enc. */
export const API_TOKEN_COLUMNS =
  'id, business_id, api_key, notification_email, webhook_url, email_merchant, email_user, ip_allowlist::text[] AS ip_allowlist, created_at, updated_at';

export interface FxRateRow {
  base: string;
  quote: string;
  rate: string;
  source: FxRateRecord['source'];
  as_of: Date;
  updated_at: Date;
}

export function businessRecord(b: BusinessRow, fees: FeeRow[], wallets: WalletRow[]): BusinessRecord {
  return {
    id: b.id,
    name: b.name,
    default_currency: b.default_currency,
    rolling_reserve_percent: Number(b.rolling_reserve_percent),
    rolling_reserve_months: b.rolling_reserve_months,
    card_settlement_days: b.card_settlement_days,
    fee_bearer: b.fee_bearer,
    fees: fees.map((f) => ({ payment_method: f.payment_method, percent: Number(f.percent), fixed: toApi(f.fixed_minor) })),
    wallets: wallets.map((w) => w.currency),
    verified: b.verified_at !== null,
    disbursement_fee_percent: Number(b.disbursement_fee_percent),
    fx_markup_percent: Number(b.fx_markup_percent),
    disbursement_fee_fixed: toApi(b.disbursement_fee_fixed_minor),
    disbursements_frozen: b.disbursements_frozen,
    disbursement_approval_hours: b.disbursement_approval_hours,
    verified_at: apiTimeOrNull(b.verified_at),
    verified_by: b.verified_by,
    created_at: apiTime(b.created_at),
    updated_at: apiTime(b.updated_at),
  };
}

/** A loosening of a guard of money out that waits for its notice (merchants/guard-changes.ts). */
export type ScheduledGuardChange = components['schemas']['ScheduledGuardChange'];

export function walletRecord(w: WalletRow, scheduled: ScheduledGuardChange[] = []): WalletRecord {
  const amount = (v: bigint | null) => (v === null ? null : toApi(v));
  return {
    id: w.id,
    business_id: w.business_id,
    currency: w.currency,
    is_default: w.is_default,
    disbursement_limit: amount(w.disbursement_limit_minor),
    disbursement_daily_limit: amount(w.disbursement_daily_limit_minor),
    disbursement_approval_threshold: amount(w.disbursement_approval_threshold_minor),
    scheduled_changes: scheduled,
    created_at: apiTime(w.created_at),
  };
}

export function midRecord(m: MidRow): MidRecord {
  return {
    id: m.id,
    business_id: m.business_id,
    business_name: m.business_name,
    service_type: m.service_type,
    payment_method: m.payment_method,
    currency: m.currency,
    allowed_traffic: m.allowed_traffic,
    merchant_operator: m.merchant_operator,
    merchant_username: m.merchant_username,
    has_password: m.merchant_password_enc !== null,
    credentials_set: m.credential_names,
    processing_rank: m.processing_rank,
    reject_first_time_depositors: m.reject_first_time_depositors,
    active: m.active,
    collects: m.collects,
    disburses: m.disburses,
    created_at: apiTime(m.created_at),
    updated_at: apiTime(m.updated_at),
  };
}

export function apiTokenRecord(t: ApiTokenRow, scheduled: ScheduledGuardChange[] = []): ApiTokenRecord {
  return {
    id: t.id,
    business_id: t.business_id,
    api_key: t.api_key,
    notification_email: t.notification_email,
    webhook_url: t.webhook_url,
    email_merchant: t.email_merchant,
    email_user: t.email_user,
    ip_allowlist: t.ip_allowlist,
    scheduled_changes: scheduled,
    created_at: apiTime(t.created_at),
    updated_at: apiTime(t.updated_at),
  };
}

export function fxRateRecord(r: FxRateRow): FxRateRecord {
  return { base: r.base, quote: r.quote, rate: Number(r.rate), source: r.source, as_of: apiTime(r.as_of), updated_at: apiTime(r.updated_at) };
}

/** The records of the operator API, as the contract defines them. */
export type BusinessRecord = components['schemas']['Business'];
export type WalletRecord = components['schemas']['Wallet'];
export type MidRecord = components['schemas']['Mid'];
export type ApiTokenRecord = components['schemas']['ApiToken'];
export type FxRateRecord = components['schemas']['FxRate'];
