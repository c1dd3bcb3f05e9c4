// Configuration from the environment (docs/contract/configuration.md), read and checked in one place.
// A bad value stops start-up with one line naming the variable, never a stack trace.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type AppEnv = 'sandbox' | 'live';
/** What a process runs: the HTTP API, the background workers, or both (one process, the default). */
export type Role = 'api' | 'worker' | 'both';

/** Days each kind of deletable history is kept (0 = for ever): src/workers/retention.ts deletes it. */
export interface RetentionDays {
  /** webhook delivery attempts of finished notifications */
  deliveryAttempts: number;
  /** sent or given-up emails */
  emails: number;
  /** audit log entries */
  audit: number;
  /** FX quotes, counted from their expiry */
  quotes: number;
}

export interface Config {
  port: number;
  appEnv: AppEnv;
  role: Role;
  databaseUrl: string | null;
  /** APP_ENV=live on the embedded database, asked for explicitly (ALLOW_EMBEDDED_LIVE) for a demo */
  allowEmbeddedLive: boolean;
  /** after SIGTERM, /readyz fails this long while requests are still served, before the process stops */
  shutdownDrainMs: number;
  /** the Prometheus endpoint's port (METRICS_PORT; null = metrics off) and address */
  metricsPort: number | null;
  metricsHost: string;
  /** spans exported over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set) */
  otlpTraces: boolean;
  /** connections to a real PostgreSQL server (the embedded one has a single session) */
  databasePoolMax: number;
  /** group-commit batches (request-to-pay, state changes) written at once at most, each on a connection of the pool */
  databaseBatchLanes: number;
  /** how far V8 lets the old generation grow past what survived its last full collection, in percent (0: V8's own rule) */
  heapGrowingPercent: number;
  dataDir: string;
  publicBaseUrl: string;
  operatorApiKey: string;
  jwtSecret: string;
  /** earlier JWT_SECRETs, still accepted for verifying tokens they signed (JWT_PREVIOUS_SECRETS) */
  jwtPreviousSecrets: string[];
  masterKey: Buffer;
  /** earlier MASTER_KEYs, still accepted for opening what they sealed (MASTER_KEY_PREVIOUS) */
  masterKeyPrevious: Buffer[];
  smtpUrl: string | null;
  webhookAllowPrivate: boolean;
  rateLimitRps: number;
  /** submissions of a payment link's page per minute, per link and per client address (docs/contract/payment-links.md) */
  paymentLinkAttemptsPerMinute: number;
  paymentLinkClientAttemptsPerMinute: number;
  seedDemo: boolean;
  sandboxMmDelayMs: number;
  pendingTtlSeconds: number;
  webhookRetryScheduleMs: number[];
  sandboxMmSuccess: string[];
  sandboxMmFailure: string[];
  sandboxCard3dsSuccess: string;
  sandboxCard3dsFailure: string;
  /** dashboard sessions end after this long without a request, and this long after sign-in whatever happens */
  sessionIdleMinutes: number;
  sessionAbsoluteHours: number;
  /** email of the first operator account, created on the first start */
  adminEmail: string;
  /**
   * the reverse proxies in front (TRUST_PROXY: addresses or CIDR blocks; none by default): a request whose
   * peer is one of them is from the address it forwarded in X-Forwarded-For
   */
  trustProxy: string[];
  /** hours after becoming an owner before a person may approve a disbursement (OWNER_APPROVAL_WAIT_HOURS) */
  ownerApprovalWaitHours: number;
  /** hours before a loosened guard of money out takes effect, every owner told (DISBURSEMENT_GUARD_NOTICE_HOURS) */
  disbursementGuardNoticeHours: number;
  /** days kept before deletion (0 = for ever): see src/workers/retention.ts */
  retentionDays: RetentionDays;
  /** live processors (src/processors/): vendor hosts, timeouts and the request/reconciliation schedules */
  processors: ProcessorSettings;
  /** market rates: the daily feeds, their refresh, and how old a rate may be (src/rates/) */
  rates: RateSettings;
  /** secrets created on this start, to be printed once */
  generated: { operatorApiKey: boolean };
}

export interface ProcessorSettings {
  /** vendor API base URLs, by service type */
  baseUrls: { mtn_momo: string; mpesa: string; paystack: string };
  /** one HTTP call to a vendor, connect to last byte */
  timeoutMs: number;
  /** a cached vendor token is replaced this long before it expires */
  tokenMarginSeconds: number;
  /** delay before each send attempt of a request (the last one repeats) */
  sendScheduleMs: number[];
  /** delay before each status query of a PENDING collection (the last one repeats) */
  checkScheduleMs: number[];
  /** how long after expiry a processor is still asked, for a late success */
  lateCheckSeconds: number;
}

export type RateFeed = 'ecb' | 'frankfurter';

/** How old a market rate may be before a conversion refuses it (src/domain/rate-age.ts). */
export interface RateMaxAges {
  /** business days a daily feed's rate stays current, per feed */
  ecbBusinessDays: number;
  frankfurterBusinessDays: number;
  /** hours an operator-set rate stays current; 0 = no limit */
  operatorHours: number;
}

export interface RateSettings {
  /** the daily feeds refreshed (RATE_FEEDS; none by default) */
  feeds: RateFeed[];
  /** each feed's base URL: ECB's `{ecb}/eurofxref-daily.xml`, Frankfurter's `{frankfurter}/latest?base=EUR` */
  baseUrls: Record<RateFeed, string>;
  /** one HTTP call to a feed, connect to last byte */
  timeoutMs: number;
  /** a feed is asked again this long after its last attempt */
  refreshMinutes: number;
  /** business days a feed's rate stays current; hours an operator's does (0 = no limit) */
  maxAges: RateMaxAges;
  /** how long an FX quote holds its price for a request-to-pay naming it (src/merchants/quotes.ts) */
  quoteTtlSeconds: number;
  /** a feed's rate moving more than this percentage from the rate in use is held for the operator (src/rates/jumps.ts) */
  jumpPercent: number;
}

/** The feeds' published homes: the ECB's reference rates page, and Frankfurter's public API (version 1). */
const FEED_HOSTS: Record<RateFeed, string> = {
  ecb: 'https://www.ecb.europa.eu/stats/eurofxref',
  frankfurter: 'https://api.frankfurter.dev/v1',
};

/** Each vendor's documented hosts: its own sandbox for our sandbox, production for live. */
const VENDOR_HOSTS = {
  mtn_momo: { sandbox: 'https://sandbox.momodeveloper.mtn.com', live: 'https://proxy.momoapi.mtn.com' },
  mpesa: { sandbox: 'https://sandbox.safaricom.co.ke', live: 'https://api.safaricom.co.ke' },
  // one host for both: Paystack's test and live modes differ by key (PaystackOSS/openapi `servers`)
  paystack: { sandbox: 'https://api.paystack.co', live: 'https://api.paystack.co' },
} as const;

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const MAX_PORT = 65535;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw;
}

function list(env: Env, name: string, fallback: string[], pattern: RegExp): string[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const items = raw.split(',').map((s) => s.trim());
  for (const item of items) {
    if (!pattern.test(item)) throw new ConfigError(`${name} has an invalid entry "${item}"`);
  }
  return items;
}

/** Addresses or CIDR blocks (`203.0.113.7`, `10.1.0.0/16`, `2001:db8::/32`), comma-separated. */
function blocks(env: Env, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  const items = raw.split(',').map((s) => s.trim());
  for (const item of items) {
    const [address, prefix, extra] = item.split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    if (family === 0 || extra !== undefined || (prefix !== undefined && !(/^(0|[1-9]\d{0,2})$/.test(prefix) && Number(prefix) <= max))) {
      throw new ConfigError(`${name} has an entry "${item}" that is not an IP address or a CIDR block such as 10.1.0.0/16`);
    }
  }
  return items;
}

function email(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[^\s@]+@[^\s@]+$/.test(raw) || raw.length > 254) throw new ConfigError(`${name} must be an email address, got "${raw}"`);
  return raw.toLowerCase();
}

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_RETRY_STEPS = 50;

/** "0s,10s,1m" -> [0, 10000, 60000] */
export function parseSchedule(raw: string, name = 'WEBHOOK_RETRY_SCHEDULE'): number[] {
  const parts = raw.split(',').map((s) => s.trim());
  if (parts.length === 0 || parts.length > MAX_RETRY_STEPS) {
    throw new ConfigError(`${name} must list 1 to ${MAX_RETRY_STEPS} delays`);
  }
  return parts.map((part) => {
    const m = DURATION.exec(part);
    if (!m) throw new ConfigError(`${name} has an unparsable delay "${part}" (use e.g. 0s,10s,1m,2h)`);
    return Number(m[1]) * UNIT_MS[m[2]];
  });
}

function processorSettings(env: Env, appEnv: AppEnv): ProcessorSettings {
  const host = (name: string, fallback: string) => (url(env, name, ['http:', 'https:']) ?? fallback).replace(/\/+$/, '');
  return {
    baseUrls: {
      mtn_momo: host('MTN_MOMO_BASE_URL', VENDOR_HOSTS.mtn_momo[appEnv]),
      mpesa: host('MPESA_BASE_URL', VENDOR_HOSTS.mpesa[appEnv]),
      paystack: host('PAYSTACK_BASE_URL', VENDOR_HOSTS.paystack[appEnv]),
    },
    timeoutMs: int(env, 'PROCESSOR_TIMEOUT_MS', 10_000, 100, 120_000),
    tokenMarginSeconds: int(env, 'PROCESSOR_TOKEN_MARGIN_SECONDS', 60, 0, 3600),
    sendScheduleMs: parseSchedule(env.PROCESSOR_SEND_SCHEDULE || '0s,5s,30s,1m,2m,5m,10m', 'PROCESSOR_SEND_SCHEDULE'),
    checkScheduleMs: parseSchedule(env.PROCESSOR_CHECK_SCHEDULE || '30s,1m,2m,5m,10m', 'PROCESSOR_CHECK_SCHEDULE'),
    lateCheckSeconds: int(env, 'PROCESSOR_LATE_CHECK_SECONDS', 86_400, 0, 30 * 86400),
  };
}

function rateSettings(env: Env): RateSettings {
  const host = (name: string, fallback: string) => (url(env, name, ['http:', 'https:']) ?? fallback).replace(/\/+$/, '');
  const feeds = list(env, 'RATE_FEEDS', [], /^(ecb|frankfurter)$/) as RateFeed[];
  return {
    feeds: [...new Set(feeds)],
    baseUrls: { ecb: host('ECB_RATES_BASE_URL', FEED_HOSTS.ecb), frankfurter: host('FRANKFURTER_BASE_URL', FEED_HOSTS.frankfurter) },
    timeoutMs: int(env, 'RATE_FEED_TIMEOUT_MS', 10_000, 100, 120_000),
    refreshMinutes: int(env, 'RATE_REFRESH_MINUTES', 60, 1, 24 * 60),
    maxAges: {
      ecbBusinessDays: int(env, 'ECB_RATE_MAX_AGE_BUSINESS_DAYS', 2, 0, 30),
      frankfurterBusinessDays: int(env, 'FRANKFURTER_RATE_MAX_AGE_BUSINESS_DAYS', 2, 0, 30),
      operatorHours: int(env, 'OPERATOR_RATE_MAX_AGE_HOURS', 0, 0, 365 * 24),
    },
    quoteTtlSeconds: int(env, 'FX_QUOTE_TTL_SECONDS', 300, 10, 3600),
    jumpPercent: int(env, 'RATE_JUMP_PERCENT', 10, 1, 1000),
  };
}

/** Writes a file of secrets in DATA_DIR readable by the owner only (mode 600): text as is, else pretty JSON; returns its path. */
export function writeSecretFile(dataDir: string, name: string, content: string | object): string {
  const file = path.join(dataDir, name);
  writeFileSync(file, (typeof content === 'string' ? content : JSON.stringify(content, null, 2)) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/** A secret kept in DATA_DIR: read it, or create it on first start (mode 600). */
function persistedSecret(dataDir: string, file: string, make: () => string): { value: string; created: boolean } {
  const p = path.join(dataDir, file);
  if (existsSync(p)) return { value: readFileSync(p, 'utf8').trim(), created: false };
  const value = make();
  writeSecretFile(dataDir, file, value);
  return { value, created: true };
}

/**
 * A live deployment runs on a PostgreSQL server: the embedded database is one file in DATA_DIR, with no
 * replica and no point-in-time recovery. Checked by the process's entry point (tests start live services
 * on a database they hand in).
 */
export function refuseUnsafeLive(config: Config): void {
  if (config.appEnv === 'live' && !config.databaseUrl && !config.allowEmbeddedLive) {
    throw new ConfigError('APP_ENV=live needs DATABASE_URL (a PostgreSQL server); the embedded database is for the sandbox (ALLOW_EMBEDDED_LIVE=true runs a live demo on it anyway)');
  }
}

export function loadConfig(env: Env = process.env): Config {
  const appEnvRaw = env.APP_ENV || 'sandbox';
  if (appEnvRaw !== 'sandbox' && appEnvRaw !== 'live') {
    throw new ConfigError(`APP_ENV must be sandbox or live, got "${appEnvRaw}"`);
  }
  const appEnv: AppEnv = appEnvRaw;
  const port = int(env, 'PORT', 8080, 0, MAX_PORT);
  const dataDir = path.resolve(env.DATA_DIR || './data');
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (e) {
    throw new ConfigError(`DATA_DIR ${dataDir} cannot be created: ${(e as Error).message}`);
  }
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const role = env.ROLE || 'both';
  if (role !== 'api' && role !== 'worker' && role !== 'both') throw new ConfigError(`ROLE must be api, worker or both, got "${role}"`);
  if (role !== 'both' && !databaseUrl) throw new ConfigError(`ROLE=${role} needs DATABASE_URL: the embedded database belongs to one process, which must run both`);
  const publicBaseUrl = (url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const smtpUrl = url(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  const operator = env.OPERATOR_API_KEY
    ? { value: env.OPERATOR_API_KEY, created: false }
    : persistedSecret(dataDir, 'operator-key', () => 'op_' + randomBytes(24).toString('base64url'));
  const jwtSecret = env.JWT_SECRET || persistedSecret(dataDir, 'jwt-secret', () => randomBytes(32).toString('base64url')).value;
  const masterRaw = env.MASTER_KEY || persistedSecret(dataDir, 'master-key', () => randomBytes(32).toString('base64')).value;
  const masterKey = Buffer.from(masterRaw, 'base64');
  if (masterKey.length !== 32) throw new ConfigError('MASTER_KEY must be 32 bytes, base64-encoded');
  if (jwtSecret.length < 32) throw new ConfigError('JWT_SECRET must be at least 32 characters');
  const jwtPreviousSecrets = (env.JWT_PREVIOUS_SECRETS ?? '').split(',').map((v) => v.trim()).filter((v) => v !== '');
  if (jwtPreviousSecrets.some((v) => v.length < 32)) throw new ConfigError('JWT_PREVIOUS_SECRETS must list secrets of at least 32 characters');
  const masterKeyPrevious = (env.MASTER_KEY_PREVIOUS ?? '').split(',').map((v) => v.trim()).filter((v) => v !== '').map((v) => Buffer.from(v, 'base64'));
  if (masterKeyPrevious.some((k) => k.length !== 32)) throw new ConfigError('MASTER_KEY_PREVIOUS must list 32-byte keys, base64-encoded');
  const digits = /^\d{10,15}$/;
  const card = /^\d{12,19}$/;
  return {
    port,
    appEnv,
    role,
    databaseUrl,
    allowEmbeddedLive: bool(env, 'ALLOW_EMBEDDED_LIVE', false),
    metricsPort: env.METRICS_PORT ? int(env, 'METRICS_PORT', 0, 0, MAX_PORT) : null,
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    otlpTraces: Boolean(url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']) ?? url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:'])) && env.OTEL_TRACES_EXPORTER !== 'none',
    shutdownDrainMs: int(env, 'SHUTDOWN_DRAIN_SECONDS', appEnv === 'live' ? 5 : 0, 0, 300) * 1000,
    databasePoolMax: int(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    databaseBatchLanes: int(env, 'DATABASE_BATCH_LANES', 2, 1, 1000),
    heapGrowingPercent: int(env, 'HEAP_GROWING_PERCENT', 0, 0, 1000),
    dataDir,
    publicBaseUrl,
    operatorApiKey: operator.value,
    jwtSecret,
    jwtPreviousSecrets,
    masterKey,
    masterKeyPrevious,
    smtpUrl,
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', appEnv === 'sandbox'),
    rateLimitRps: int(env, 'RATE_LIMIT_RPS', 100, 0, 1_000_000),
    paymentLinkAttemptsPerMinute: int(env, 'PAYMENT_LINK_ATTEMPTS_PER_MINUTE', 120, 1, 1_000_000),
    paymentLinkClientAttemptsPerMinute: int(env, 'PAYMENT_LINK_CLIENT_ATTEMPTS_PER_MINUTE', 10, 1, 1_000_000),
    seedDemo: bool(env, 'SEED_DEMO', appEnv === 'sandbox'),
    sandboxMmDelayMs: int(env, 'SANDBOX_MM_DELAY_MS', 3000, 0, 3_600_000),
    pendingTtlSeconds: int(env, 'PENDING_TTL_SECONDS', 1800, 1, 30 * 86400),
    webhookRetryScheduleMs: parseSchedule(env.WEBHOOK_RETRY_SCHEDULE || '0s,10s,1m,5m,30m,1h,2h,6h,12h,24h'),
    sandboxMmSuccess: list(env, 'SANDBOX_MM_SUCCESS', ['256777000001', '256777000002'], digits),
    sandboxMmFailure: list(env, 'SANDBOX_MM_FAILURE', ['256777000003', '256777000004'], digits),
    sandboxCard3dsSuccess: list(env, 'SANDBOX_CARD_3DS_SUCCESS', ['4000000000003006'], card)[0],
    sandboxCard3dsFailure: list(env, 'SANDBOX_CARD_3DS_FAILURE', ['4000000000003014'], card)[0],
    sessionIdleMinutes: int(env, 'SESSION_IDLE_MINUTES', 30, 1, 24 * 60),
    sessionAbsoluteHours: int(env, 'SESSION_ABSOLUTE_HOURS', 12, 1, 7 * 24),
    adminEmail: email(env, 'ADMIN_EMAIL', 'admin@paycollect.local'),
    trustProxy: blocks(env, 'TRUST_PROXY'),
    ownerApprovalWaitHours: int(env, 'OWNER_APPROVAL_WAIT_HOURS', 72, 0, 90 * 24),
    disbursementGuardNoticeHours: int(env, 'DISBURSEMENT_GUARD_NOTICE_HOURS', 48, 1, 90 * 24),
    retentionDays: {
      deliveryAttempts: int(env, 'DELIVERY_LOG_RETENTION_DAYS', 90, 0, 36_500),
      emails: int(env, 'EMAIL_RETENTION_DAYS', 90, 0, 36_500),
      audit: int(env, 'AUDIT_RETENTION_DAYS', 730, 0, 36_500),
      quotes: int(env, 'FX_QUOTE_RETENTION_DAYS', 30, 0, 36_500),
    },
    processors: processorSettings(env, appEnv),
    rates: rateSettings(env),
    generated: { operatorApiKey: operator.created },
  };
}
