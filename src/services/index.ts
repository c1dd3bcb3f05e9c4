// The service container: everything a handler or worker may call, built once at start-up. Services
// reach each other through it at call time, so construction order does not matter.
import type { Config } from '../config';
import type { Db } from '../db';
import { dbOf } from '../db/change';
import type { Logger } from '../log';
import { telemetryOff } from '../telemetry';
import { Figures } from '../telemetry/figures';
import { buildProcessors } from '../processors';
import type { Processors } from '../processors';
import type { WorkerSpec, Workers } from '../workers';
import { AuditService } from './audit';
import { AuthService } from './auth';
import { CardService } from './cards';
import { CheckoutService } from './checkouts';
import { CollectionService } from './collections';
import { ConfigCache } from './config-cache';
import { GoLiveService } from './go-live';
import { LedgerService } from './ledger';
import { LivenessService } from './liveness';
import { MerchantService } from './merchants';
import { NotificationService } from './notifications';
import { PricingService } from './pricing';
import { SessionService } from './sessions';
import { TotpService } from './totp';
import { UserService } from './users';
import { ProcessorRequestService } from './processor-requests';
import { SharedRateLimit } from './rate-limit';
import { RetentionService } from './retention';
import { RoutingTurns } from './routing-turns';
import { ReportService } from '../reports';

/** What every service is built from. */
export interface Base {
  config: Config;
  db: Db;
  log: Logger;
  /** the clock; tests and workers pass time in rather than reading it deep inside */
  now: () => Date;
  /** metrics and traces (off when not given) */
  figures?: Figures;
}

export interface Services extends Base {
  figures: Figures;
  auth: AuthService;
  merchants: MerchantService;
  pricing: PricingService;
  ledger: LedgerService;
  cards: CardService;
  collections: CollectionService;
  notifications: NotificationService;
  users: UserService;
  sessions: SessionService;
  totp: TotpService;
  audit: AuditService;
  goLive: GoLiveService;
  /** the processors by service type, and the queue of requests to the real ones */
  processors: Processors;
  processorRequests: ProcessorRequestService;
  /** hosted checkouts of processors with their own payment pages (Paystack, BTCPay) */
  checkouts: CheckoutService;
  liveness: LivenessService;
  /** API token state, MIDs and pricing inputs in memory, exact across processes (config-cache.ts) */
  configCache: ConfigCache;
  /** round-robin turns among MIDs of equal rank, reserved in blocks (routing-turns.ts) */
  routingTurns: RoutingTurns;
  /** deletes delivery logs, emails and audit entries past their retention period (retention.ts) */
  retention: RetentionService;
  /** RATE_LIMIT_RPS per API token, shared by every process through leases of the budget (rate-limit.ts) */
  rateLimit: SharedRateLimit;
  /** statements, exports and the settlement report (src/reports/) */
  reports: ReportService;
  /** set once the workers run; kick() wakes one after a commit that gave it work */
  workers: Workers | null;
}

export function buildServices(base: Base): Services {
  const s = { ...base, figures: base.figures ?? new Figures(telemetryOff()), workers: null } as Services;
  // inside an audited change, every service reads and writes in the change's transaction
  Object.defineProperty(s, 'db', { get: () => dbOf(base.db), enumerable: true });
  s.auth = new AuthService(s);
  s.merchants = new MerchantService(s);
  s.pricing = new PricingService(s);
  s.ledger = new LedgerService(s);
  s.cards = new CardService(s);
  s.collections = new CollectionService(s);
  s.notifications = new NotificationService(s);
  s.users = new UserService(s);
  s.sessions = new SessionService(s);
  s.totp = new TotpService(s);
  s.audit = new AuditService(s);
  s.goLive = new GoLiveService(s);
  s.processors = buildProcessors(base.config);
  s.processorRequests = new ProcessorRequestService(s);
  s.checkouts = new CheckoutService(s);
  s.liveness = new LivenessService(s);
  s.configCache = new ConfigCache(base.db, base.log);
  s.routingTurns = new RoutingTurns(base.db);
  s.rateLimit = new SharedRateLimit(base.db, () => base.config.rateLimitRps, base.now);
  s.retention = new RetentionService(base.db, base.config.retentionDays, base.now);
  s.reports = new ReportService(() => s.db, base.now);
  return s;
}

export function workerSpecs(s: Services): WorkerSpec[] {
  const rateLeases: WorkerSpec = { name: 'rate-leases', intervalMs: 60_000, run: () => s.rateLimit.forgetPast() };
  return [rateLeases, ...s.collections.workers(), ...s.ledger.workers(), ...s.notifications.workers(), ...s.liveness.workers(), ...s.processorRequests.workers(), ...s.retention.workers()];
}
