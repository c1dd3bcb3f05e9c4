// The composition root: builds each service once at start-up from Base plus exactly the services it
// names, in dependency order (a service is built after those it calls), and hands the finished record
// to the HTTP layer (ctx.services) and to the workers. Nothing under src/ but this file and http/ sees
// the whole record. The one cycle (a collection's card charge runs in the checkouts of processor-requests/,
// which call back into collections) is broken with a callback.
import type { Base } from './base';
import type { Config } from './config';
import type { Db, Queryable, Tx } from './db';
import type { MoveFrom } from './collections/move-batch';
import { dbOf } from './db/change';
import type { Logger } from './log';
import { telemetryOff } from './telemetry';
import { Figures } from './telemetry/figures';
import { buildProcessors } from './processors';
import type { Processors } from './processors';
import type { WorkerSpec, Workers } from './workers/loops';
import { AuditService } from './people/audit';
import { AccessTokenService } from './merchants/access-tokens';
import type { Principal } from './merchants/access-tokens';
import { CardService } from './cards/card-keys';
import { CheckoutService } from './processor-requests/checkouts';
import { CollectionService } from './collections';
import type { RequestToPayBody } from './collections/request-to-pay';
import { ConfigCache } from './merchants/config-cache';
import { GoLiveService } from './merchants/go-live';
import { LedgerService } from './ledger/ledger';
import { LivenessService } from './workers/liveness';
import { ApiTokenService } from './merchants/api-tokens';
import { BusinessService } from './merchants/businesses';
import { DemoMerchant } from './merchants/demo-merchant';
import { FxRateService } from './merchants/fx-rates';
import { GuardChanges } from './merchants/guard-changes';
import type { AppliedEntry } from './merchants/guard-changes';
import { MidService } from './merchants/mids';
import { NotificationService } from './notifications/notifications';
import type { OwnersEmail } from './notifications/notifications';
import { PricingService } from './merchants/pricing';
import { QuoteService } from './merchants/quotes';
import { SessionService } from './people/sessions';
import { TotpService } from './people/totp';
import { UserService } from './people/users';
import { ProcessorRequestService } from './processor-requests';
import { SharedRateLimit } from './merchants/rate-limit';
import { LINK_COMPLETION_CTES, PaymentLinkService } from './payment-links/index';
import { LinkAttempts } from './payment-links/attempts';
import { RetentionService } from './workers/retention';
import { RateJumps } from './rates/jumps';
import { RateRefresh } from './rates/refresh';
import { RoutingTurns } from './collections/routing-turns';
import { masterKeys } from './crypto/secretbox';
import { openCredentials } from './processors/credentials';
import { checkAmount } from './processors/amounts';
import { AdminDisbursementService } from './disbursements/admin';
import { DisbursementService } from './disbursements';
import { payoutConnectorOf } from './processors/sandbox/payouts';
import { RefundService } from './refunds';
import { DisputeService } from './disputes';
import { SandboxDisputes } from './sandbox/disputes';
import { SandboxStatements } from './sandbox/statements';
import { refundConnectorOf } from './processors/sandbox/refunds';
import { ReportService } from './reports';
import { ReconciliationService } from './reconciliation';

/** What the caller gives: Base less what is built here (the db getter, kick; figures when none are given). */
export interface BaseInput {
  config: Config;
  db: Db;
  log: Logger;
  now: () => Date;
  figures?: Figures;
}

export interface Services extends Base {
  accessTokens: AccessTokenService;
  /** business accounts with their wallets and fees (merchants/businesses.ts) */
  businesses: BusinessService;
  /** MIDs, API tokens, market rates (merchants/mids.ts, api-tokens.ts, fx-rates.ts) */
  mids: MidService;
  apiTokens: ApiTokenService;
  fxRates: FxRateService;
  /** the sandbox demo merchant, seeded on first start (merchants/demo-merchant.ts) */
  demoMerchant: DemoMerchant;
  /** loosened guards of money out waiting for their notice (merchants/guard-changes.ts) */
  guards: GuardChanges;
  pricing: PricingService;
  /** FX quotes: a price held for a request-to-pay naming it (merchants/quotes.ts) */
  quotes: QuoteService;
  /** market rates from the daily feeds, refreshed by a worker (src/rates/) */
  rates: RateRefresh;
  /** what the operator watches of market rates, and their decisions on held jumps (rates/jumps.ts) */
  rateJumps: RateJumps;
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
  /** checkouts on the pages of processors that have their own (Paystack, BTCPay) */
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
  /** refunds of completed collections (src/refunds/) */
  refunds: RefundService;
  /** card disputes reported by processors (src/disputes/) */
  disputes: DisputeService;
  /** the sandbox's disputing cards and its clock (src/sandbox/disputes.ts) */
  sandboxDisputes: SandboxDisputes;
  /** the sandbox processor's statements and the reversals a developer asks of it (src/sandbox/statements.ts) */
  sandboxStatements: SandboxStatements;
  /** money paid out of wallets to phones and bank accounts (src/disbursements/) */
  disbursements: DisbursementService;
  /** disbursements as the dashboard reads them: every business's, with their timeline (src/disbursements/admin.ts) */
  adminDisbursements: AdminDisbursementService;
  /** statements, exports and the settlement report (src/reports/) */
  reports: ReportService;
  /** the processors' statements set against our records, and the operators' resolutions (src/reconciliation/) */
  reconciliation: ReconciliationService;
  /** payment links merchants share (src/payment-links/) */
  paymentLinks: PaymentLinkService;
  /** customers' attempts on a payment link's page, each an ordinary collection (src/payment-links/attempts.ts) */
  linkAttempts: LinkAttempts;
  /** set once the workers run (server.ts); until then Base.kick wakes nothing */
  workers: Workers | null;
}

/** Base plus a service's own parts; the db getter is carried over as a getter, never read once. */
function using<T extends object>(base: Base, parts: T): Base & T {
  const o = { ...parts } as Base & T;
  for (const key of Object.keys(base)) Object.defineProperty(o, key, Object.getOwnPropertyDescriptor(base, key) as PropertyDescriptor);
  return o;
}

export function buildServices(input: BaseInput): Services {
  let workers: Workers | null = null;
  const base = { config: input.config, log: input.log, now: input.now, figures: input.figures ?? new Figures(telemetryOff()), kick: (name: string) => workers?.kick(name) } as Base;
  // inside an audited change, every service reads and writes in the change's transaction
  Object.defineProperty(base, 'db', { get: () => dbOf(input.db), enumerable: true });

  const processors = buildProcessors(input.config);
  const configCache = new ConfigCache(input.db, input.log);
  const routingTurns = new RoutingTurns(input.db);
  const rateLimit = new SharedRateLimit(input.db, () => input.config.rateLimitRps, input.now);
  const liveness = new LivenessService(base);
  const cards = new CardService(base);
  const notifications = new NotificationService(using(base, { liveness }));
  liveness.onBeat((self, staleBefore, now) => notifications.freeDeadClaims(self, staleBefore, now));
  const ledger = new LedgerService(base);
  const pricing = new PricingService(input.config.rates.maxAges);
  const quotes = new QuoteService(using(base, { configCache, pricing }));
  const accessTokens = new AccessTokenService(using(base, { configCache, rateLimit }));
  const audit = new AuditService(base);
  const guards = new GuardChanges(using(base, { emailOwners: (t: Tx, e: OwnersEmail) => notifications.emailOwners(t, e), audit: (t: Tx, e: AppliedEntry) => audit.record(e, t) }));
  const businesses = new BusinessService(using(base, { guards }));
  const mids = new MidService(using(base, { processors, paysOut: (serviceType: string) => payoutConnectorOf(processors, serviceType) !== null }));
  const apiTokens = new ApiTokenService(using(base, { notifications, guards }));
  const fxRates = new FxRateService(base);
  const rates = new RateRefresh(using(base, { changed: () => configCache.invalidate() }));
  const rateJumps = new RateJumps(base);
  const demoMerchant = new DemoMerchant(using(base, { businesses, mids, apiTokens }));
  const goLive = new GoLiveService(using(base, { ledger }));
  const retention = new RetentionService(
    {
      deliveryAttempts: (before, limit) => notifications.deleteOldAttempts(before, limit),
      emails: (before, limit) => notifications.deleteOldEmails(before, limit),
      audit: (before, limit) => audit.deleteOld(before, limit),
      quotes: (before, limit) => quotes.deleteExpired(before, limit),
    },
    input.config.retentionDays,
    input.now,
  );
  const sessions = new SessionService(using(base, { audit }));
  const totp = new TotpService(using(base, { sessions, audit }));
  const users = new UserService(using(base, { audit, notifications }));
  // the card charge is the checkouts', built after collections: called only once requests arrive
  let checkouts: CheckoutService | null = null;
  const chargeCard: CheckoutService['chargeCard'] = (...args) => (checkouts as CheckoutService).chargeCard(...args);
  const collections = new CollectionService(using(base, { accessTokens, cards, chargeCard, configCache, ledger, notifications, pricing, processors, quotes, routingTurns, linkCompletionCtes: LINK_COMPLETION_CTES }));
  const refunds = new RefundService({
    db: () => base.db,
    config: input.config,
    log: input.log,
    now: input.now,
    refundsOf: (serviceType) => refundConnectorOf(processors, serviceType),
    amountCheck: (serviceType, asked) => checkAmount(processors.get(serviceType), asked),
    openCredentials: (sealed) => openCredentials(masterKeys(input.config), sealed),
    kick: base.kick,
    ledger,
    notifications,
    audit,
  });
  const disbursements = new DisbursementService({
    db: () => base.db,
    config: input.config,
    log: input.log,
    now: input.now,
    payoutsOf: (serviceType) => payoutConnectorOf(processors, serviceType),
    amountCheck: (serviceType, asked) => checkAmount(processors.get(serviceType), asked),
    openCredentials: (sealed) => openCredentials(masterKeys(input.config), sealed),
    // the rotation is shared with collections of the same method, currency and rank: it only shifts the turns
    takeTurn: (businessId, method, currency, rank) => routingTurns.take(businessId, method, currency, rank),
    kick: base.kick,
    ledger,
    notifications,
    audit,
  });
  // the sandbox's simulated issuer answers for the sandbox's MIDs, in the sandbox only (src/sandbox/disputes.ts)
  const sandboxDisputes = new SandboxDisputes(() => base.db, input.now, (pan) => cards.testCardFingerprint(pan));
  // and its simulated processor's statements, for reconciliation (src/sandbox/statements.ts)
  const sandboxStatements = new SandboxStatements(() => base.db, input.now);
  const disputes = new DisputeService({
    db: () => base.db,
    log: input.log,
    now: input.now,
    kick: base.kick,
    disputesOf: (serviceType) =>
      serviceType === 'sandbox' && input.config.appEnv === 'sandbox' ? sandboxDisputes : processors.has(serviceType) ? (processors.get(serviceType).connector?.disputes ?? null) : null,
    openCredentials: (sealed) => openCredentials(masterKeys(input.config), sealed),
    ledger,
    notifications,
  });
  const adminDisbursements = new AdminDisbursementService({ db: () => base.db, namesOf: (ids) => businesses.namesOf(ids) });
  const processorRequests = new ProcessorRequestService(using(base, { collections, processors, refunds, disbursements, processId: liveness.processId }));
  checkouts = new CheckoutService(using(base, { collections, processorRequests, processors, refunds, disbursements, disputes }));
  const reports = new ReportService(() => base.db, input.now);
  const reconciliation = new ReconciliationService(
    using(base, {
      ledger,
      moveCollection: (q: Queryable, id: bigint, outcome: 'REVERSED', message: string, from: MoveFrom) => collections.move(q, id, outcome, message, from),
      settlementsOf: (serviceType: string) =>
        serviceType === 'sandbox' && input.config.appEnv === 'sandbox' ? sandboxStatements : processors.has(serviceType) ? (processors.get(serviceType).connector?.settlements ?? null) : null,
      openCredentials: (sealed: string | null) => openCredentials(masterKeys(input.config), sealed),
    }),
  );
  const paymentLinks = new PaymentLinkService(base);
  const linkAttempts = new LinkAttempts(using(base, { requestToPay: (p: Principal, body: RequestToPayBody) => collections.requestToPay(p, body) }));

  const services: Services = {
    ...base,
    accessTokens,
    businesses,
    mids,
    apiTokens,
    fxRates,
    demoMerchant,
    guards,
    pricing,
    quotes,
    rates,
    rateJumps,
    ledger,
    cards,
    collections,
    notifications,
    users,
    sessions,
    totp,
    audit,
    goLive,
    processors,
    processorRequests,
    checkouts,
    liveness,
    configCache,
    routingTurns,
    retention,
    rateLimit,
    refunds,
    disputes,
    sandboxDisputes,
    sandboxStatements,
    disbursements,
    adminDisbursements,
    reports,
    reconciliation,
    paymentLinks,
    linkAttempts,
    get workers() {
      return workers;
    },
    set workers(w: Workers | null) {
      workers = w;
    },
  };
  Object.defineProperty(services, 'db', Object.getOwnPropertyDescriptor(base, 'db') as PropertyDescriptor);
  return services;
}

export function workerSpecs(s: Services): WorkerSpec[] {
  const rateLeases: WorkerSpec = { name: 'rate-leases', intervalMs: 60_000, run: () => s.rateLimit.forgetPast() };
  return [rateLeases, ...s.collections.workers(), ...s.ledger.workers(), ...s.notifications.workers(), ...s.liveness.workers(), ...s.processorRequests.workers(), ...s.retention.workers(), ...s.disbursements.workers(), ...s.disputes.workers(), ...s.guards.workers(), ...s.rates.workers(), ...s.reconciliation.workers(), ...s.paymentLinks.workers()];
}
