// Collections: request-to-pay, routing, provider reports, state changes, queries.
import { createHash, randomUUID } from 'node:crypto';
import type { Base } from '../base';
import type { CardService } from '../cards/card-keys';
import { bound, hotSqlFile, sqlFile } from '../db';
import type { Queryable, Tx } from '../db';
import { listPage } from '../db/keyset';
import type { KeyColumn, ListPage, PageRequest } from '../db/keyset';
import { maskPan } from '../domain/card';
import type { CardDetails } from '../domain/card';
import { STATUS_MESSAGES, isFinal } from '../domain/collection';
import type { CollectionRow, FinalStatus, PaymentMethod, Status } from '../domain/collection';
import { groupedIn } from '../domain/currencies';
import { customerPaysMinor } from '../domain/fees';
import { MoneyFormatError, toMinor } from '../domain/money';
import { choose, phoneCountry, shortlist } from '../domain/routing';
import { pooledRandomBytes } from '../crypto/random-pool';
import { AppError, validationError } from '../errors';
import type { AccessTokenService, Principal } from '../merchants/access-tokens';
import { checkAmount } from '../processors/amounts';
import { hasOwnCheckout } from '../processors/checkout';
import type { Processor } from '../processors/types';
import type { WorkerSpec } from '../workers/loops';
import { scenarioRecorded } from '../sandbox/certification';
import { ConfigChanged } from '../merchants/config-cache';
import type { ConfigCache, RequestConfig } from '../merchants/config-cache';
import type { PricingService } from '../merchants/pricing';
import type { Processors } from '../processors';
import { countCollections, filterWhere, foldPastCounts } from './counts';
import { CreateBatches } from './create-batch';
import { MISSED, MoveBatches } from './move-batch';
import type { MoveAsk, MoveFrom, MoveTry } from './move-batch';
import type { RoutingTurns } from './routing-turns';
import type { PostingRow } from '../api-records/collection';
import { NO_CREDIT } from '../ledger/ledger';
import type { CreditContext, CreditValues, LedgerService } from '../ledger/ledger';
import type { NotificationService, Recipients } from '../notifications/notifications';
import type { components } from '../../generated/merchant-api';
import { currentTraceParent } from '../telemetry';

/** The request body as the contract defines it: one form per payment method. */
export type RequestToPayBody = components['schemas']['RequestToPay'];

/** How often the per-session count slots of past days are folded into one row (counts.ts). */
const FOLD_COUNTS_INTERVAL_MS = 10 * 60_000;

export interface CollectionFilters {
  status?: Status;
  payment_method?: PaymentMethod;
  currency?: string;
  merchant_reference?: string;
  /** the operator's search: one collection by its gateway_reference, a customer's by account_number */
  gateway_reference?: string;
  account_number?: string;
  /** inclusive bounds on created_at */
  from?: Date;
  to?: Date;
  business_id?: number;
}

interface CardSeen {
  /** the decrypted card, in this request's memory only: never written anywhere */
  details: CardDetails;
  masked: string;
  fingerprint: string;
  country: string;
  firstSeenAt: Date | null;
}

/** What a move reads with the row (sql/read-for-move.sql): what its writes need. */
interface MoveExtras {
  credit_context: CreditContext | null;
  outbox_recipients: Recipients | null;
}

/** What a move reads (readForMoves): the row with what its writes need, and its place in the batch. */
type MoveRead = CollectionRow & MoveExtras & { n_: string | number | bigint };

export type { MoveFrom } from './move-batch';

/** A collection before its insert: everything but the id. */
type NewCollection = Omit<CollectionRow, 'id'>;

/** What a real processor is asked to charge, written with the collection (processor_requests). */
interface Charge {
  serviceType: string;
  midId: number;
  amountMinor: bigint;
  currency: string;
  /** the amount as the processor takes it, for the instructions */
  text: string;
  /** a hosted checkout: started when the customer opens payment_url, never queued to send */
  onPage: boolean;
}

/**
 * create.sql's values of one request: the configuration version its inputs were read at, the new
 * collection (JSON columns as text, for the driver), its scheduled provider report and its request to a
 * processor (chargeValues), in one object.
 */
function createValues(c: NewCollection, version: bigint, report: { outcome: string; at: Date } | null, charge: Charge | null): Record<string, unknown> {
  return {
    config_version: version,
    business_id: c.business_id, api_token_id: c.api_token_id, gateway_reference: c.gateway_reference, merchant_reference: c.merchant_reference,
    request_hash: c.request_hash, payment_method: c.payment_method, status: c.status, message: c.message,
    request_amount_minor: c.request_amount_minor, request_currency: c.request_currency, account_amount_minor: c.account_amount_minor,
    account_currency: c.account_currency, fx_rate: c.fx_rate, fee_minor: c.fee_minor, total_credit_minor: c.total_credit_minor,
    customer_charged: c.customer_charged, account_number: c.account_number, account_name: c.account_name, account_email: c.account_email,
    narration: c.narration, redirect_url: c.redirect_url, institution_name: c.institution_name, payment_url: c.payment_url,
    instructions: c.instructions === null ? null : JSON.stringify(c.instructions), mid_id: c.mid_id, routing: JSON.stringify(c.routing),
    card_masked: c.card_masked, card_fingerprint: c.card_fingerprint, page_token: c.page_token, expires_at: c.expires_at,
    created_at: c.created_at,
    report_outcome: report?.outcome ?? null,
    report_at: report?.at ?? null,
    ...chargeValues(charge, c.created_at),
  };
}

/**
 * What a real processor is asked to charge: the request amount in the request currency (the MID's),
 * plus the fee when the customer bears it. Refused, never rounded, when the processor cannot take it
 * exactly (M-Pesa whole shillings, zero-decimal currencies).
 */
function chargeOf(processor: Processor, midId: number, currency: string, requestMinor: bigint, price: { customerCharged: boolean; feeMinor: bigint; accountCurrency: string }): Charge {
  if (price.customerCharged && price.accountCurrency !== currency) {
    throw validationError([{ field: 'currency', message: `the customer bears the fee in ${price.accountCurrency}, which this processor cannot charge with ${currency}` }]);
  }
  const amountMinor = requestMinor + (price.customerCharged ? price.feeMinor : 0n);
  const { text, refused } = checkAmount(processor, { kind: 'collection', amountMinor, currency, feeIncluded: price.customerCharged });
  if (refused) throw validationError([refused]);
  return { serviceType: processor.serviceType, midId, amountMinor, currency, text, onPage: hasOwnCheckout(processor) };
}

/**
 * create.sql's values of the collection's request to its processor (all NULL when it has none: nothing is
 * written), due to be sent at once (a hosted checkout's: not queued).
 */
function chargeValues(c: Charge | null, now: Date): Record<string, unknown> {
  return {
    charge_service_type: c?.serviceType ?? null,
    charge_reference: c ? randomUUID() : null,
    charge_callback_token: c ? pooledRandomBytes(24).toString('base64url') : null,
    charge_amount_minor: c?.amountMinor ?? null,
    charge_currency: c?.currency ?? null,
    charge_send_at: c && !c.onPage ? now : null,
    trace_parent: c ? currentTraceParent() : null,
  };
}

/** How many times a request-to-pay is priced and routed again when the configuration changed under it. */
const CONFIG_ATTEMPTS = 3;

/** A move's read and its write (sql/read-for-move.sql, sql/move.sql): constant texts, prepared on a real server. */
const READ_FOR_MOVE_SQL = hotSqlFile(__dirname, 'read-for-move.sql');
const MOVE_SQL = hotSqlFile(__dirname, 'move.sql');

/** Thrown when a concurrent request took the merchant_reference first. */
class ReferenceTaken extends Error {}

const BATCH = 100;
/** provider reports applied per transaction by the report worker */
const REPORT_BATCH = 200;
const EXPIRY_DUE_SQL = sqlFile(__dirname, 'expiry-due.sql');
const POSTINGS_OF_SQL = sqlFile(__dirname, 'postings-of.sql');
/** The report worker's claim (sql/claim-reports.sql): a constant text, prepared on a real server. */
const CLAIM_REPORTS_SQL = hotSqlFile(__dirname, 'claim-reports.sql');

/** Connections in the database pool (1 on the embedded database). */
function poolSize(db: Base['db']): number {
  return (db.$pool as unknown as { options: { max: number } }).options.max;
}

/** One move's values for move.sql: its element of each per-move array, and its postings, holds and emails. */
interface PlannedMove {
  values: Record<string, unknown> & { taken: number };
  credit: CreditValues;
  emails: { email_kinds: string[]; email_recipients: string[]; email_subjects: string[]; email_texts: string[] };
}

/** move.sql's values for a batch: each per-move parameter as an array in the batch's order, the rest flattened with their owner's place. */
function moveValues(batch: readonly PlannedMove[]): Record<string, unknown[]> {
  const values: Record<string, unknown[]> = {};
  for (const name of Object.keys(batch[0].values)) values[name] = batch.map((m) => m.values[name]);
  const owned = <T>(of: (m: PlannedMove) => T[]) => batch.flatMap((m, i) => of(m).map(() => i + 1));
  values.posting_owners = owned((m) => m.credit.posting_amounts);
  values.posting_accounts = batch.flatMap((m) => m.credit.posting_accounts);
  values.posting_amounts = batch.flatMap((m) => m.credit.posting_amounts);
  values.posting_currencies = batch.flatMap((m) => m.credit.posting_currencies);
  values.posting_kinds = batch.flatMap((m) => m.credit.posting_kinds);
  values.hold_owners = owned((m) => m.credit.hold_amounts);
  values.hold_wallet_ids = batch.flatMap((m) => m.credit.hold_amounts.map(() => m.credit.hold_wallet_id));
  values.hold_buckets = batch.flatMap((m) => m.credit.hold_buckets);
  values.hold_amounts = batch.flatMap((m) => m.credit.hold_amounts);
  values.hold_release_ats = batch.flatMap((m) => m.credit.hold_release_ats);
  values.email_owners = owned((m) => m.emails.email_kinds);
  values.email_kinds = batch.flatMap((m) => m.emails.email_kinds);
  values.email_recipients = batch.flatMap((m) => m.emails.email_recipients);
  values.email_subjects = batch.flatMap((m) => m.emails.email_subjects);
  values.email_texts = batch.flatMap((m) => m.emails.email_texts);
  return values;
}

interface DueReport {
  id: bigint;
  collection_id: bigint;
  outcome: FinalStatus;
  message: string | null;
}
const REF_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

const GATEWAY_REFERENCE_RANDOM_CHARS = 20;

function newGatewayReference(): string {
  const bytes = pooledRandomBytes(GATEWAY_REFERENCE_RANDOM_CHARS);
  let ref = 'PC';
  for (const b of bytes) ref += REF_ALPHABET[b % REF_ALPHABET.length];
  return ref;
}

/** A stable digest of the request body: keys sorted, so field order does not matter. */
export function requestHash(body: RequestToPayBody): string {
  const sorted = Object.fromEntries(Object.entries(body).sort(([a], [b]) => a.localeCompare(b)));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

const NEWEST_FIRST: KeyColumn[] = [
  { column: 'created_at', type: 'timestamptz' },
  { column: 'id', type: 'bigint' },
];

/**
 * The services a collection's life calls. The card charge is a callback: it runs in the checkouts of
 * processor-requests/, which are built after this service and call back into it.
 */
export interface CollectionParts {
  accessTokens: AccessTokenService;
  cards: CardService;
  chargeCard: (row: CollectionRow, card: CardDetails) => Promise<CollectionRow>;
  configCache: ConfigCache;
  ledger: LedgerService;
  notifications: NotificationService;
  pricing: PricingService;
  processors: Processors;
  routingTurns: RoutingTurns;
}

export class CollectionService {
  /** the request-to-pay write, with group commit (create-batch.ts) */
  private readonly creates: CreateBatches;
  /** state changes outside a caller's transaction, with group commit (move-batch.ts) */
  private readonly moves: MoveBatches;

  constructor(readonly s: Base & CollectionParts) {
    // at most half the pool, so the batches leave connections to every other statement
    const lanes = Math.max(1, Math.min(s.config.databaseBatchLanes, Math.floor(poolSize(s.db) / 2)));
    this.creates = new CreateBatches(s, lanes);
    this.moves = new MoveBatches(s, lanes, (q, asks) => this.moveOnce(q, asks));
  }

  /**
   * One database round trip when the configuration cache holds the merchant's token state, pricing inputs
   * and MIDs and the routing turn is in hand (config-cache.ts, routing-turns.ts): the write, guarded by the
   * configuration version its inputs were read at, which also answers a replay with the row holding the
   * merchant_reference. When the configuration moved on meanwhile, nothing is written: the inputs are read
   * again (and the token checked again) and the request priced and routed anew.
   */
  async requestToPay(p: Principal, body: RequestToPayBody): Promise<{ row: CollectionRow; replayed: boolean }> {
    const hash = requestHash(body);
    for (let attempt = 1; ; attempt += 1) {
      const config = await this.s.configCache.forRequest(p.apiTokenId, p.businessId, body.payment_method, body.currency);
      if (!config.token || (p.generation !== undefined && !this.s.accessTokens.accepts(config.token, p.generation))) {
        throw new AppError('UNAUTHORIZED', 'A valid access token is required: Authorization: JWT <token>');
      }
      try {
        const outcome = await this.create(p, body, hash, config);
        if ('existing' in outcome) return this.replay(outcome.existing, hash);
        this.s.kick('emails');
        return { row: outcome.row, replayed: false };
      } catch (e) {
        if (e instanceof ConfigChanged && attempt < CONFIG_ATTEMPTS) {
          this.s.configCache.invalidate();
          continue;
        }
        if (!(e instanceof ReferenceTaken) && !(e instanceof AppError)) throw e;
        // taken by a request not yet visible to the write, or refused under today's configuration: a replay
        // answers with the row it created whatever the configuration says now
        const winner = await this.byMerchantReference(p.businessId, body.merchant_reference);
        if (winner) return this.replay(winner, hash);
        if (e instanceof ReferenceTaken) throw new Error('merchant_reference conflict without a row');
        throw e;
      }
    }
  }

  private replay(row: CollectionRow, hash: string): { row: CollectionRow; replayed: boolean } {
    if (row.request_hash !== hash) throw new AppError('DUPLICATE_MERCHANT_REFERENCE');
    return { row, replayed: true };
  }

  private async seeCard(encrypted: string): Promise<CardSeen> {
    const { card } = await this.s.cards.decryptCard(encrypted);
    const fingerprint = this.s.cards.fingerprint(card.card_number);
    const seen = await this.s.db.oneOrNone<{ first_seen_at: Date }>('SELECT first_seen_at FROM card_fingerprints WHERE fingerprint = $1', [fingerprint]);
    return { details: card, masked: maskPan(card.card_number), fingerprint, country: card.billing_country.toUpperCase(), firstSeenAt: seen?.first_seen_at ?? null };
  }

  private async create(p: Principal, body: RequestToPayBody, hash: string, config: RequestConfig): Promise<{ row: CollectionRow } | { existing: CollectionRow }> {
    let amountMinor: bigint;
    try {
      amountMinor = toMinor(body.amount);
    } catch (e) {
      if (e instanceof MoneyFormatError) throw validationError([{ field: 'amount', message: e.message }]);
      throw e;
    }
    const card = body.payment_method === 'CARD' && body.encrypted_card ? await this.seeCard(body.encrypted_card) : null;
    const now = this.s.now();
    const method = body.payment_method;
    const price = this.s.pricing.priceFrom(config.pricing, {
      businessId: p.businessId,
      paymentMethod: method,
      requestCurrency: body.currency,
      requestAmountMinor: amountMinor,
    });
    const payerCountry = card?.country ?? (method === 'MOBILE_MONEY' && body.account_number ? phoneCountry(body.account_number) : null);
    const list = shortlist({ paymentMethod: method, currency: body.currency, payerCountry, cardFirstSeenAt: card?.firstSeenAt ?? null, now }, config.mids);
    if (list.rank === null) throw new AppError('NO_ROUTE');
    const decision = choose(list, list.top.length > 1 ? await this.s.routingTurns.take(p.businessId, method, body.currency, list.rank) : 1);
    const mid = config.mids.find((m) => m.id === decision.mid_id)!;

    const gatewayReference = newGatewayReference();
    const pageToken = pooledRandomBytes(18).toString('base64url');
    const processor = this.s.processors.get(mid.service_type);
    const charge = processor.connector ? chargeOf(processor, mid.id, body.currency, amountMinor, price) : null;
    const refused = hasOwnCheckout(processor) ? processor.checkout.requestErrors({ paymentMethod: method, accountEmail: body.account_email ?? null }) : [];
    if (refused.length > 0) throw validationError(refused);
    const initiated = processor.plan({
      paymentMethod: method,
      accountNumber: body.account_number ?? null,
      // a processor's own text when it takes the amount; the sandbox's prompt reads as people read money
      amountText: charge?.text ?? groupedIn(customerPaysMinor(price.accountAmountMinor, price.feeMinor, price.customerCharged), price.accountCurrency),
      currency: charge?.currency ?? price.accountCurrency,
      gatewayReference,
      cardMasked: card?.masked ?? null,
    });
    const paymentUrl = initiated.needsPaymentPage ? `${this.s.config.publicBaseUrl}/pay/${gatewayReference}?token=${pageToken}` : null;
    const instructions = initiated.instructions ?? (paymentUrl ? null : [{ step: '1', description: 'Wait for the customer to complete the payment.' }]);
    const draft: NewCollection = {
      business_id: p.businessId, api_token_id: p.apiTokenId, gateway_reference: gatewayReference, merchant_reference: body.merchant_reference,
      request_hash: hash, payment_method: method, status: 'PENDING', message: STATUS_MESSAGES.PENDING,
      request_amount_minor: amountMinor, request_currency: body.currency, account_amount_minor: price.accountAmountMinor,
      account_currency: price.accountCurrency, fx_rate: price.fxRate, fee_minor: price.feeMinor, total_credit_minor: price.totalCreditMinor,
      customer_charged: price.customerCharged, account_number: body.account_number ?? null, account_name: body.account_name ?? null,
      account_email: body.account_email ?? null, narration: body.narration, redirect_url: body.redirect_url ?? null,
      institution_name: initiated.institutionName, payment_url: paymentUrl, instructions, mid_id: mid.id, routing: decision,
      card_masked: card?.masked ?? null, card_fingerprint: card?.fingerprint ?? null, page_token: pageToken, notification_seq: 0,
      expires_at: new Date(now.getTime() + this.s.config.pendingTtlSeconds * 1000), created_at: now, updated_at: now, late_completed_at: null,
      refunded_minor: 0n,
    };
    const report = initiated.scheduledReport;
    const due = report ? { outcome: report.outcome, at: new Date(now.getTime() + report.delayMs) } : null;
    const written = await this.insertNew(draft, due, charge, config.token!.recipients, config.version);
    if ('existing' in written) return written;
    const row = written.row;
    this.s.figures.collectionStarted(row, mid.service_type);
    if (charge && !charge.onPage) this.s.kick('processor-sends');
    // A direct card to a hosted processor is charged now, while its details are in this request's memory.
    if (charge?.onPage && card) return { row: await this.s.chargeCard(row, card.details) };
    return { row };
  }

  /**
   * One statement, so atomic without a transaction, shared with the requests written at the same moment
   * (create-batch.ts) and answered once it committed: the collection, its card's first sighting, its
   * scheduled provider report or its request to a real processor, and its start notice; none of them
   * when the reference is taken (then the row holding it, when this statement sees it: a replay) or when
   * the configuration is no longer at `version` (ConfigChanged).
   */
  private async insertNew(
    draft: NewCollection,
    report: { outcome: string; at: Date } | null,
    charge: Charge | null,
    who: Recipients | null,
    version: bigint,
  ): Promise<{ row: CollectionRow } | { existing: CollectionRow }> {
    const emails = this.s.notifications.startEmails(draft, who);
    const r = await this.creates.write({ row: createValues(draft, version, report, charge), emails });
    const { n_: _place, current_, created_, ...row } = r;
    if (!current_) throw new ConfigChanged();
    if (created_ === null) throw new ReferenceTaken();
    return created_ ? { row } : { existing: row };
  }

  /**
   * A provider's report (or the customer's answer on a hosted page): PENDING -> final, with its ledger
   * postings and notification rows, all or nothing, written with the other changes asked for at the same
   * moment (move-batch.ts). A repeat or a late report changes nothing and returns null.
   */
  async applyOutcome(collectionId: bigint, outcome: FinalStatus, message?: string, from: MoveFrom = 'PENDING'): Promise<CollectionRow | null> {
    for (;;) {
      const row = await this.moves.write({ collectionId, outcome, message, from });
      if (row === MISSED) continue;
      if (row) {
        this.finished([row]);
        this.s.kick('webhooks');
        this.s.kick('emails');
      }
      return row;
    }
  }

  /** Counts collections that reached a final state, once their change has committed. */
  finished(rows: CollectionRow[]): void {
    for (const row of rows) this.s.figures.collectionFinished(row, this.s.db);
  }

  /**
   * A collection's state change through the caller's transaction `q` (applyOutcome writes the others): the
   * same read and write as a batch's, for a batch of one (moveOnce). Not `from` when read: null. The guard
   * found the row changed since the read: read again, and so on until it moves or is no longer `from`.
   * Returns the row as the change left it, before its notification took a sequence number.
   */
  async move(q: Queryable, collectionId: bigint, outcome: FinalStatus, message?: string, from: MoveFrom = 'PENDING'): Promise<CollectionRow | null> {
    for (;;) {
      const [row] = await this.moveOnce(q, [{ collectionId, outcome, message, from }]);
      if (row !== MISSED) return row;
    }
  }

  /**
   * The one path by which collections change state: two statements, through `q` (the database, each
   * statement on its own, atomic without a transaction; or the caller's transaction), for any number of
   * moves. A read (no lock) of the rows and of everything their writes need (sql/read-for-move.sql); then
   * one write (sql/move.sql) whose first CTE is the state changes, each guarded to apply only to its row as
   * read (still `from`, same notification_seq and API token), and whose other CTEs (journals, postings,
   * holds, notifications, emails, certification) write only from the moved rows. The writes are planned from
   * the read rows: amounts, fee, currency and method never change after creation, and the guard pins what
   * else they depend on. One answer per ask, in their order: the row as the change left it (before its
   * notification took a sequence number), null (not `from` when read), or MISSED (its guard found the row
   * changed since the read; a collection asked twice in one batch moves once, the other ask misses).
   */
  private async moveOnce(q: Queryable, asks: readonly MoveAsk[]): Promise<MoveTry[]> {
    // in id order, so the write locks the batch's rows as every other batch does
    const order = asks.map((_, i) => i).sort((a, b) => (asks[a].collectionId < asks[b].collectionId ? -1 : asks[a].collectionId > asks[b].collectionId ? 1 : a - b));
    const sorted = order.map((i) => asks[i]);
    const reads = await this.readForMoves(q, sorted);
    const writes: { ask: MoveAsk; place: number; read: MoveRead }[] = [];
    reads.forEach((read, place) => {
      if (read && read.status === sorted[place].from) writes.push({ ask: sorted[place], place, read });
    });
    const moved = writes.length === 0 ? [] : await this.writeMoves(q, writes);
    const answers: MoveTry[] = asks.map(() => null);
    writes.forEach((w, k) => {
      answers[order[w.place]] = moved[k];
    });
    return answers;
  }

  /** The collections of `asks` with what a move of each to its outcome needs (no lock); null where none, in their order. */
  private async readForMoves(q: Queryable, asks: readonly MoveAsk[]): Promise<(MoveRead | null)[]> {
    const rows = await q.any<MoveRead>(
      bound(q, READ_FOR_MOVE_SQL, { ids: asks.map((a) => a.collectionId), credits: asks.map((a) => a.outcome === 'COMPLETED') }),
    );
    const reads: (MoveRead | null)[] = asks.map(() => null);
    for (const r of rows) reads[Number(r.n_) - 1] = r;
    return reads;
  }

  /** The moves' write from what was read: one answer each, in their order, the moved row or MISSED. */
  private async writeMoves(q: Queryable, writes: readonly { ask: MoveAsk; read: MoveRead }[]): Promise<MoveTry[]> {
    const now = this.s.now();
    const planned = await Promise.all(writes.map(({ ask, read }) => this.planMove(q, read, ask, now)));
    const done = await q.any<CollectionRow & { credited_: boolean; n_: string | number | bigint }>(bound(q, MOVE_SQL, moveValues(planned)));
    const answers: MoveTry[] = writes.map(() => MISSED);
    for (const { credited_: credited, n_: place, ...moved } of done) {
      const p = planned[Number(place) - 1];
      moved.notification_seq -= p.values.taken;
      if (!credited) this.s.ledger.creditSkipped(moved);
      answers[Number(place) - 1] = moved;
    }
    return answers;
  }

  /** One move's values for move.sql, from its read row. */
  private async planMove(q: Queryable, read: MoveRead, ask: MoveAsk, now: Date): Promise<PlannedMove> {
    const { credit_context: creditContext, outbox_recipients: recipients, n_: _place, ...before } = read;
    // The row as the state change will leave it, before its notification takes a sequence number.
    const row: CollectionRow = {
      ...before, status: ask.outcome, message: ask.message ?? STATUS_MESSAGES[ask.outcome], updated_at: now,
      late_completed_at: ask.from === 'PENDING' ? null : now,
    };
    const taken = row.api_token_id === null ? 0 : 1;
    const credit = ask.outcome === 'COMPLETED' ? await this.s.ledger.creditValues(q, row, creditContext) : NO_CREDIT;
    const { email_kinds, email_recipients, email_subjects, email_texts, ...notice } = this.s.notifications.statusChangeValues(
      row, taken ? row.notification_seq + 1 : null, recipients,
    );
    return {
      values: {
        id: row.id, from: ask.from, notification_seq: row.notification_seq, api_token_id: row.api_token_id,
        status: row.status, message: row.message, updated_at: row.updated_at, taken, late_completed_at: row.late_completed_at,
        credit: credit.credit, credited_at: credit.credited_at, ...notice, scenario: scenarioRecorded(this.s.config, row),
      },
      credit,
      emails: { email_kinds, email_recipients, email_subjects, email_texts },
    };
  }

  async byMerchantReference(businessId: number, merchantReference: string): Promise<CollectionRow | null> {
    return this.s.db.oneOrNone<CollectionRow>('SELECT * FROM collections WHERE business_id = $1 AND merchant_reference = $2', [
      businessId,
      merchantReference,
    ]);
  }

  /** A merchant sees only its own business's collections: another's is NOT_FOUND. */
  async get(gatewayReference: string, businessId: number | null): Promise<CollectionRow> {
    const row = await this.s.db.oneOrNone<CollectionRow>(
      'SELECT * FROM collections WHERE gateway_reference = $1 AND ($2::int IS NULL OR business_id = $2)',
      [gatewayReference, businessId],
    );
    if (!row) throw new AppError('NOT_FOUND', 'No collection with this gateway_reference');
    return row;
  }

  /** Newest first (created_at, then id for equal times); the count is perf's exact counter (counts.ts). */
  async list(f: CollectionFilters, page: PageRequest): Promise<ListPage<CollectionRow>> {
    const sql = `SELECT * FROM collections WHERE ${filterWhere(f)}`;
    const q = { sql, values: [], key: NEWEST_FIRST, direction: 'DESC' as const, count: () => countCollections(this.s.db, f) };
    return listPage<CollectionRow>(this.s.db, q, page);
  }

  /** Ledger postings of one collection, oldest first; the account is the ledger account's kind. */
  /** The postings of these collections, each one's in the order written (one read for a whole page). */
  async postingsOf(collectionIds: bigint[]): Promise<Map<bigint, PostingRow[]>> {
    const found = new Map<bigint, PostingRow[]>(collectionIds.map((id) => [id, []]));
    if (collectionIds.length === 0) return found;
    const rows = await this.s.db.any<PostingRow & { collection_id: bigint }>(POSTINGS_OF_SQL, { ids: collectionIds });
    for (const { collection_id, ...posting } of rows) found.get(collection_id)?.push(posting);
    return found;
  }

  /** Sandbox only: drive a PENDING collection as its provider would. */
  async simulate(p: Principal, gatewayReference: string, outcome: FinalStatus): Promise<CollectionRow> {
    const row = await this.get(gatewayReference, p.businessId);
    if (isFinal(row.status)) throw new AppError('INVALID_STATE', `The collection is already ${row.status}`);
    const moved = await this.applyOutcome(row.id, outcome, `${STATUS_MESSAGES[outcome]} (simulated)`);
    if (!moved) throw new AppError('INVALID_STATE', 'The collection changed state meanwhile');
    return moved;
  }

  /**
   * Due provider reports in batches, each batch one transaction: claimed with SKIP LOCKED (so batches
   * and processes share the work), applied, marked processed together. Several batches run at once, on
   * half the database pool (one on the embedded database's single session): one commit per batch and
   * parallel lanes keep the worker ahead of the accepted rate (measured by `npm run bench`).
   */
  async processProviderEvents(): Promise<number> {
    const lanes = Math.max(1, Math.floor(poolSize(this.s.db) / 2));
    const per = Math.ceil(REPORT_BATCH / lanes);
    const counts = await Promise.all(Array.from({ length: lanes }, () => this.applyDueReports(per)));
    this.flushKicks();
    return counts.reduce((a, b) => a + b, 0);
  }

  private async applyDueReports(limit: number): Promise<number> {
    const { count, moved } = await this.s.db.tx(async (t) => {
      const reports = await t.any<DueReport>(bound(t, CLAIM_REPORTS_SQL, { now: this.s.now(), limit }));
      return { count: reports.length, moved: await this.applyReportsIn(t, reports) };
    });
    this.finished(moved);
    return count;
  }

  /** The one path by which stored provider reports change state: applied in order, then marked processed. */
  private async applyReportsIn(t: Tx, reports: DueReport[]): Promise<CollectionRow[]> {
    const moved: CollectionRow[] = [];
    if (reports.length === 0) return moved;
    // Each report moves its collection from PENDING, so only a collection's first report (in the claim's
    // order) can move it: the others find it moved, or not PENDING as the first did. The firsts go as one
    // batch through the one move path (it locks the rows in id order, as every batch does); a move whose
    // guard missed is read and tried again.
    const firsts = new Map<bigint, MoveAsk>();
    for (const r of reports) {
      if (!firsts.has(r.collection_id)) firsts.set(r.collection_id, { collectionId: r.collection_id, outcome: r.outcome, message: r.message ?? undefined, from: 'PENDING' });
    }
    for (let asks = [...firsts.values()]; asks.length > 0; ) {
      const answers = await this.moveOnce(t, asks);
      for (const row of answers) if (row && row !== MISSED) moved.push(row);
      asks = asks.filter((_, i) => answers[i] === MISSED);
    }
    if (moved.length > 0) this.kickAfterCommit = true;
    await t.none('UPDATE provider_events SET processed_at = $2 WHERE id = ANY($1::bigint[])', [reports.map((r) => r.id), this.s.now()]);
    return moved;
  }

  /**
   * PENDING past PENDING_TTL_SECONDS becomes EXPIRED, unless it holds a provider report received before
   * its deadline: that report is applied instead (docs/contract/states.md), whatever the report worker's lag. A
   * report the report worker holds right now is left to it (it applies it once this commits). Where a
   * real processor holds the request, reconciliation asks it once more first (ProcessorRequestService).
   * Returns how many collections left PENDING.
   */
  async expireDue(): Promise<number> {
    const finished: CollectionRow[] = [];
    const handled = await this.s.db.tx(async (t) => {
      const due = await t.any<{ id: bigint; report_id: bigint | null }>(EXPIRY_DUE_SQL, { now: this.s.now(), limit: BATCH });
      let moved = 0;
      for (const c of due) {
        if (c.report_id === null) {
          const row = await this.move(t, c.id, 'EXPIRED');
          if (row) {
            finished.push(row);
            this.kickAfterCommit = true;
          }
          moved += 1;
          continue;
        }
        const report = await t.oneOrNone<DueReport>(
          'SELECT id, collection_id, outcome, message FROM provider_events WHERE id = $1 AND processed_at IS NULL FOR UPDATE SKIP LOCKED',
          [c.report_id],
        );
        if (!report) continue;
        finished.push(...(await this.applyReportsIn(t, [report])));
        moved += 1;
      }
      return moved;
    });
    this.finished(finished);
    this.flushKicks();
    return handled;
  }

  private kickAfterCommit = false;

  private flushKicks() {
    if (!this.kickAfterCommit) return;
    this.kickAfterCommit = false;
    this.s.kick('webhooks');
    this.s.kick('emails');
  }

  workers(): WorkerSpec[] {
    return [
      { name: 'provider-events', intervalMs: 250, run: () => this.processProviderEvents() },
      { name: 'expiry', intervalMs: 1000, run: () => this.expireDue() },
      { name: 'fold-counts', intervalMs: FOLD_COUNTS_INTERVAL_MS, run: () => foldPastCounts(this.s.db, this.s.now()) },
    ];
  }
}
