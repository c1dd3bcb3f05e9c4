// Collections: request-to-pay, routing, provider reports, state changes, queries.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Base } from '../base';
import type { CardService } from '../cards/card-keys';
import { bound, hotSqlFile, pgp, sqlFile, statement } from '../db';
import type { Tx } from '../db';
import { listPage } from '../db/keyset';
import type { KeyColumn, ListPage, PageRequest } from '../db/keyset';
import { maskPan } from '../domain/card';
import type { CardDetails } from '../domain/card';
import { STATUS_MESSAGES, isFinal } from '../domain/collection';
import type { CollectionRow, FinalStatus, PaymentMethod, Status } from '../domain/collection';
import { customerPaysMinor } from '../domain/fees';
import { formatMinor, MoneyFormatError, toMinor } from '../domain/money';
import { choose, phoneCountry, shortlist } from '../domain/routing';
import { AppError, validationError } from '../errors';
import type { AccessTokenService, Principal } from '../merchants/access-tokens';
import { amountText } from '../processors/amounts';
import { hasOwnCheckout } from '../processors/checkout';
import type { Processor } from '../processors/types';
import type { WorkerSpec } from '../workers/loops';
import { certificationCte } from '../sandbox/certification';
import { ConfigChanged } from '../merchants/config-cache';
import type { ConfigCache, RequestConfig } from '../merchants/config-cache';
import type { PricingService } from '../merchants/pricing';
import type { Processors } from '../processors';
import { countCollections, filterWhere, foldPastCounts } from './counts';
import type { RoutingTurns } from './routing-turns';
import type { PostingRow } from '../api-records/collection';
import { CREDIT_JOURNAL, creditContextSql } from '../ledger/ledger';
import type { CreditContext, LedgerService } from '../ledger/ledger';
import { recipientsSql } from '../notifications/notifications';
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

/** Read with the state change (applyOutcomeIn). */
interface MoveExtras {
  credit_context: CreditContext | null;
  outbox_recipients: Recipients | null;
}

/** What a standalone move reads (readForMove): the row with what its writes need. */
type MoveRead = CollectionRow & MoveExtras;

/**
 * The state a move starts from: PENDING, or a final state for a late completion, which only moves to
 * COMPLETED: EXPIRED when a processor confirmed payment after our own deadline (our clock, not its
 * word), FAILED or CANCELLED when an operator credits a success held because it came after that word
 * (docs/contract/states.md).
 */
export type MoveFrom = 'PENDING' | 'EXPIRED' | 'FAILED' | 'CANCELLED';

/** moveAlone's answer when its guarded statement moved nothing while the row may still be PENDING. */
const RETRY_IN_TX = Symbol('retry in a transaction');

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

/** The request-to-pay write (sql/create.sql): one constant text, prepared on a real server. */
const CREATE_SQL = hotSqlFile(__dirname, 'create.sql');

/** create.sql's values of the new collection (JSON columns as text, for the driver). */
function collectionValues(c: NewCollection): Record<string, unknown> {
  return {
    business_id: c.business_id, api_token_id: c.api_token_id, gateway_reference: c.gateway_reference, merchant_reference: c.merchant_reference,
    request_hash: c.request_hash, payment_method: c.payment_method, status: c.status, message: c.message,
    request_amount_minor: c.request_amount_minor, request_currency: c.request_currency, account_amount_minor: c.account_amount_minor,
    account_currency: c.account_currency, fx_rate: c.fx_rate, fee_minor: c.fee_minor, total_credit_minor: c.total_credit_minor,
    customer_charged: c.customer_charged, account_number: c.account_number, account_name: c.account_name, account_email: c.account_email,
    narration: c.narration, redirect_url: c.redirect_url, institution_name: c.institution_name, payment_url: c.payment_url,
    instructions: c.instructions === null ? null : JSON.stringify(c.instructions), mid_id: c.mid_id, routing: JSON.stringify(c.routing),
    card_masked: c.card_masked, card_fingerprint: c.card_fingerprint, page_token: c.page_token, expires_at: c.expires_at,
    created_at: c.created_at,
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
  const decimals = processor.amountDecimals(currency);
  if (decimals === null) throw validationError([{ field: 'currency', message: `the chosen processor does not take ${currency}` }]);
  const text = amountText(amountMinor, decimals);
  if (text === null) {
    const rule = decimals === 0 ? 'whole units, without decimals' : `at most ${decimals} decimal places`;
    throw validationError([{ field: 'amount', message: `the processor takes ${currency} in ${rule}${price.customerCharged ? ' (fee included)' : ''}` }]);
  }
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
    charge_callback_token: c ? randomBytes(24).toString('base64url') : null,
    charge_amount_minor: c?.amountMinor ?? null,
    charge_currency: c?.currency ?? null,
    charge_send_at: c && !c.onPage ? now : null,
    trace_parent: c ? currentTraceParent() : null,
  };
}

/** How many times a request-to-pay is priced and routed again when the configuration changed under it. */
const CONFIG_ATTEMPTS = 3;

/** readForMove's statements (name, text): a move to COMPLETED also reads what the ledger credit needs. */
const readForMoveSql = (credit: string) =>
  `SELECT c.*, ${credit} AS credit_context, ${recipientsSql('c.api_token_id')} AS outbox_recipients FROM collections c WHERE c.id = $1`;
const READ_FOR_COMPLETION = ['read-for-completion', readForMoveSql(creditContextSql('c.business_id', 'c.account_currency'))] as const;
const READ_FOR_MOVE = ['read-for-move', readForMoveSql('NULL')] as const;

/** Thrown when a concurrent request took the merchant_reference first. */
class ReferenceTaken extends Error {}

const BATCH = 100;
/** provider reports applied per transaction by the report worker */
const REPORT_BATCH = 200;
const EXPIRY_DUE_SQL = sqlFile(__dirname, 'expiry-due.sql');

/** Connections in the database pool (1 on the embedded database). */
function poolSize(db: Base['db']): number {
  return (db.$pool as unknown as { options: { max: number } }).options.max;
}

interface DueReport {
  id: bigint;
  collection_id: bigint;
  outcome: FinalStatus;
  message: string | null;
}
const REF_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function newGatewayReference(): string {
  const bytes = randomBytes(20);
  return 'PC' + Array.from(bytes, (b) => REF_ALPHABET[b % REF_ALPHABET.length]).join('');
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
  constructor(readonly s: Base & CollectionParts) {}

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
    const pageToken = randomBytes(18).toString('base64url');
    const processor = this.s.processors.get(mid.service_type);
    const charge = processor.connector ? chargeOf(processor, mid.id, body.currency, amountMinor, price) : null;
    const refused = hasOwnCheckout(processor) ? processor.hosted.requestErrors({ paymentMethod: method, accountEmail: body.account_email ?? null }) : [];
    if (refused.length > 0) throw validationError(refused);
    const initiated = processor.plan({
      paymentMethod: method,
      accountNumber: body.account_number ?? null,
      amountText: charge?.text ?? formatMinor(customerPaysMinor(price.accountAmountMinor, price.feeMinor, price.customerCharged)),
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
   * One statement, so atomic without a transaction: the collection, its card's first sighting, its
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
    const r = await this.s.db.one<CollectionRow & { current_: boolean; created_: boolean | null }>(
      bound(this.s.db, CREATE_SQL, {
        config_version: version,
        ...collectionValues(draft),
        report_outcome: report?.outcome ?? null,
        report_at: report?.at ?? null,
        ...chargeValues(charge, draft.created_at),
        email_kinds: emails.map((e) => e.kind),
        email_recipients: emails.map((e) => e.recipient),
        email_subjects: emails.map((e) => e.subject),
        email_texts: emails.map((e) => e.text),
      }),
    );
    const { current_, created_, ...row } = r;
    if (!current_) throw new ConfigChanged();
    if (created_ === null) throw new ReferenceTaken();
    return created_ ? { row } : { existing: row };
  }

  /**
   * A provider's report (or the customer's answer on a hosted page): PENDING -> final, with its ledger
   * postings and notification rows, all or nothing. A repeat or a late report changes nothing and
   * returns null. Two round trips and no transaction (moveAlone); when the row changed between the
   * read and the write, the transactional path (applyOutcomeIn) decides instead.
   */
  async applyOutcome(collectionId: bigint, outcome: FinalStatus, message?: string, from: MoveFrom = 'PENDING'): Promise<CollectionRow | null> {
    let row = await this.moveAlone(collectionId, outcome, message, from);
    if (row === RETRY_IN_TX) row = await this.s.db.tx((t) => this.applyOutcomeIn(t, collectionId, outcome, message, from));
    if (row) {
      this.finished([row]);
      this.s.kick('webhooks');
      this.s.kick('emails');
    }
    return row;
  }

  /** Counts collections that reached a final state, once their change has committed. */
  finished(rows: CollectionRow[]): void {
    for (const row of rows) this.s.figures.collectionFinished(row, this.s.db);
  }

  /**
   * Two statements: the state change, which also takes the notification's sequence and reads what the
   * ledger and the outbox need; then every write (journal, postings, holds, notification, emails,
   * certification) as one statement of data-modifying CTEs.
   */
  async applyOutcomeIn(t: Tx, collectionId: bigint, outcome: FinalStatus, message?: string, from: MoveFrom = 'PENDING'): Promise<CollectionRow | null> {
    const credit = outcome === 'COMPLETED' ? creditContextSql('c.business_id', 'c.account_currency') : 'NULL';
    const moved = await t.oneOrNone<CollectionRow & MoveExtras>(
      `UPDATE collections c SET status = $2, message = $3, updated_at = $4,
         notification_seq = c.notification_seq + CASE WHEN c.api_token_id IS NULL THEN 0 ELSE 1 END,
         late_completed_at = CASE WHEN $5 <> 'PENDING' THEN $4::timestamptz END
       WHERE c.id = $1 AND c.status = $5
       RETURNING c.*, ${credit} AS credit_context, ${recipientsSql('c.api_token_id')} AS outbox_recipients`,
      [collectionId, outcome, message ?? STATUS_MESSAGES[outcome], this.s.now(), from],
    );
    if (!moved) return null;
    const { credit_context: creditContext, outbox_recipients: recipients, ...row } = moved;
    let sequence: number | null = null;
    if (row.api_token_id !== null) {
      sequence = row.notification_seq;
      // The row as the state change left it, before its notification took a sequence number.
      row.notification_seq -= 1;
    }
    const ctes: string[] = [];
    if (outcome === 'COMPLETED') ctes.push(...(await this.s.ledger.completionWrites(t, row, creditContext, 'moved')));
    ctes.push(...this.s.notifications.statusChangeWrites(row, sequence, recipients, 'moved'));
    const certification = this.s.config.appEnv === 'sandbox' ? certificationCte(this.s.config, row, 'moved') : null;
    if (certification) ctes.push(certification);
    if (ctes.length > 0) {
      const source = pgp.as.format('moved AS (SELECT $1::bigint AS id)', [row.id]);
      const credited = outcome === 'COMPLETED' ? `EXISTS (SELECT 1 FROM ${CREDIT_JOURNAL})` : 'true';
      // Made of formatted parts: sent as is, never formatted again.
      const done = await t.one<{ credited: boolean }>(`WITH ${[source, ...ctes].join(', ')} SELECT ${credited} AS credited`);
      if (!done.credited) this.s.ledger.creditSkipped(row);
    }
    return row;
  }

  /**
   * applyOutcome in two statements, atomic without a transaction: a read (no lock) of the row and of
   * everything its writes need; then one statement whose first CTE is the state change, guarded to
   * apply only to the row as read (still PENDING, same notification_seq and API token), and whose
   * other CTEs (journal, postings, holds, notification, emails, certification) write only from it.
   * The writes are planned from the read row: amounts, fee, currency and method never change after
   * creation, and the guard pins what else they depend on. Not PENDING when read: null at once.
   * The guarded change found nothing: RETRY_IN_TX (moved meanwhile, or its sequence or token changed).
   */
  private async moveAlone(collectionId: bigint, outcome: FinalStatus, message: string | undefined, from: MoveFrom): Promise<CollectionRow | null | typeof RETRY_IN_TX> {
    const read = await this.readForMove(collectionId, outcome);
    if (!read || read.status !== from) return null;
    const { credit_context: creditContext, outbox_recipients: recipients, ...before } = read;
    // The row as the state change will leave it, before its notification takes a sequence number.
    const now = this.s.now();
    const row: CollectionRow = {
      ...before, status: outcome, message: message ?? STATUS_MESSAGES[outcome], updated_at: now, late_completed_at: from === 'PENDING' ? null : now,
    };
    const taken = row.api_token_id === null ? 0 : 1;
    const sequence = taken ? row.notification_seq + 1 : null;
    const ctes = [
      pgp.as.format(
        `moved AS (UPDATE collections SET status = $2, message = $3, updated_at = $4::timestamptz, notification_seq = notification_seq + $5::int,
           late_completed_at = $9::timestamptz
         WHERE id = $1 AND status = $8 AND notification_seq = $6::int AND api_token_id IS NOT DISTINCT FROM $7::int
         RETURNING *)`,
        [row.id, row.status, row.message, row.updated_at, taken, row.notification_seq, row.api_token_id, from, row.late_completed_at],
      ),
    ];
    if (outcome === 'COMPLETED') ctes.push(...(await this.s.ledger.completionWrites(this.s.db, row, creditContext, 'moved')));
    ctes.push(...this.s.notifications.statusChangeWrites(row, sequence, recipients, 'moved'));
    const certification = this.s.config.appEnv === 'sandbox' ? certificationCte(this.s.config, row, 'moved') : null;
    if (certification) ctes.push(certification);
    const credited = outcome === 'COMPLETED' ? `EXISTS (SELECT 1 FROM ${CREDIT_JOURNAL})` : 'true';
    // Made of formatted parts: sent as is, never formatted again.
    const done = await this.s.db.oneOrNone<CollectionRow & { credited_: boolean }>(
      `WITH ${ctes.join(', ')} SELECT m.*, ${credited} AS credited_ FROM moved m`,
    );
    if (!done) return RETRY_IN_TX;
    const { credited_: creditedNow, ...moved } = done;
    // As applyOutcomeIn returns it: the row before its notification took the sequence.
    moved.notification_seq -= taken;
    if (!creditedNow) this.s.ledger.creditSkipped(moved);
    return moved;
  }

  /** A collection with what a move of it to `outcome` needs to write (no lock); null when none. A prepared statement. */
  private readForMove(collectionId: bigint, outcome: FinalStatus): Promise<MoveRead | null> {
    const [name, text] = outcome === 'COMPLETED' ? READ_FOR_COMPLETION : READ_FOR_MOVE;
    return this.s.db.oneOrNone<MoveRead>(statement(this.s.db, name, text, [collectionId]));
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
  async postingsOf(collectionId: bigint): Promise<PostingRow[]> {
    return this.s.db.any<PostingRow>(
      `SELECT p.id, p.journal_id, c.gateway_reference, a.kind AS account, p.amount_minor, p.currency, p.kind, p.created_at
       FROM postings p JOIN journals j ON j.id = p.journal_id JOIN collections c ON c.id = j.collection_id
       JOIN ledger_accounts a ON a.id = p.account_id
       WHERE j.collection_id = $1 ORDER BY p.id`,
      [collectionId],
    );
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
      const reports = await t.any<DueReport>(
        `SELECT id, collection_id, outcome, message FROM provider_events
         WHERE processed_at IS NULL AND due_at <= $1 ORDER BY due_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [this.s.now(), limit],
      );
      return { count: reports.length, moved: await this.applyReportsIn(t, reports) };
    });
    this.finished(moved);
    return count;
  }

  /** The one path by which stored provider reports change state: applied in order, then marked processed. */
  private async applyReportsIn(t: Tx, reports: DueReport[]): Promise<CollectionRow[]> {
    const moved: CollectionRow[] = [];
    if (reports.length === 0) return moved;
    // Collections locked in id order in every batch, so two batches never wait on each other in a cycle;
    // one collection's reports keep their order (only the first can move it).
    const ordered = [...reports].sort((a, b) => (a.collection_id === b.collection_id ? 0 : a.collection_id < b.collection_id ? -1 : 1));
    for (const r of ordered) {
      const row = await this.applyOutcomeIn(t, r.collection_id, r.outcome, r.message ?? undefined);
      if (row) {
        moved.push(row);
        this.kickAfterCommit = true;
      }
    }
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
          const row = await this.applyOutcomeIn(t, c.id, 'EXPIRED');
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
