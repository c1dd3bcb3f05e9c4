// Collections: request-to-pay, routing, provider reports, state changes, queries.
import { createHash, randomBytes } from 'node:crypto';
import type { Tx } from '../db';
import { maskPan } from '../domain/card';
import { STATUS_MESSAGES, isFinal } from '../domain/collection';
import type { CollectionRow, FinalStatus, PaymentMethod, Status } from '../domain/collection';
import { customerPaysMinor } from '../domain/fees';
import { formatMinor, MoneyFormatError, toMinor } from '../domain/money';
import { choose, phoneCountry, shortlist } from '../domain/routing';
import type { MidInfo } from '../domain/routing';
import { AppError, validationError } from '../errors';
import type { Principal } from '../http/context';
import type { Page } from '../http/paging';
import { sandboxProcessor } from '../processors/sandbox';
import type { Processor } from '../processors/types';
import type { WorkerSpec } from '../workers';
import { recordCertification } from './certification';
import type { PostingRow } from './collection-view';
import type { Services } from './index';

export interface RequestToPayBody {
  currency: string;
  amount: number;
  payment_method: PaymentMethod;
  account_number?: string;
  merchant_reference: string;
  narration: string;
  redirect_url?: string;
  account_name?: string;
  account_email?: string;
  encrypted_card?: string;
}

export interface CollectionFilters {
  status?: Status;
  payment_method?: PaymentMethod;
  currency?: string;
  merchant_reference?: string;
  /** inclusive bounds on created_at */
  from?: Date;
  to?: Date;
  business_id?: number;
}

interface CardSeen {
  masked: string;
  fingerprint: string;
  country: string;
  firstSeenAt: Date | null;
}

/** Thrown inside the insert transaction when a concurrent request took the merchant_reference. */
class ReferenceTaken extends Error {}

const BATCH = 100;
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

export class CollectionService {
  private readonly processors: Map<string, Processor>;

  constructor(readonly s: Services) {
    const c = s.config;
    const sandbox = sandboxProcessor({ mmSuccess: c.sandboxMmSuccess, mmFailure: c.sandboxMmFailure, mmDelayMs: c.sandboxMmDelayMs });
    this.processors = new Map([[sandbox.serviceType, sandbox]]);
  }

  processor(serviceType: string): Processor {
    const p = this.processors.get(serviceType);
    if (!p) throw new Error(`no processor for service type ${serviceType}`);
    return p;
  }

  knownServiceTypes(): string[] {
    return [...this.processors.keys()];
  }

  async requestToPay(p: Principal, body: RequestToPayBody): Promise<{ row: CollectionRow; replayed: boolean }> {
    const hash = requestHash(body);
    const existing = await this.byMerchantReference(p.businessId, body.merchant_reference);
    if (existing) return this.replay(existing, hash);
    let amountMinor: bigint;
    try {
      amountMinor = toMinor(body.amount);
    } catch (e) {
      if (e instanceof MoneyFormatError) throw validationError([{ field: 'amount', message: e.message }]);
      throw e;
    }
    const card = body.encrypted_card ? await this.seeCard(body.encrypted_card) : null;
    try {
      const row = await this.create(p, body, hash, amountMinor, card);
      this.s.workers?.kick('emails');
      return { row, replayed: false };
    } catch (e) {
      if (!(e instanceof ReferenceTaken)) throw e;
      const winner = await this.byMerchantReference(p.businessId, body.merchant_reference);
      if (!winner) throw new Error('merchant_reference conflict without a row');
      return this.replay(winner, hash);
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
    return { masked: maskPan(card.card_number), fingerprint, country: card.billing_country.toUpperCase(), firstSeenAt: seen?.first_seen_at ?? null };
  }

  private async create(p: Principal, body: RequestToPayBody, hash: string, amountMinor: bigint, card: CardSeen | null): Promise<CollectionRow> {
    const now = this.s.now();
    const method = body.payment_method;
    const { price, decision, mid } = await this.s.db.task(async (t) => {
      const price = await this.s.pricing.price(t, {
        businessId: p.businessId,
        paymentMethod: method,
        requestCurrency: body.currency,
        requestAmountMinor: amountMinor,
      });
      const mids = await t.any<MidInfo & { service_type: string }>(
        `SELECT id, payment_method, currency, allowed_traffic, processing_rank, reject_first_time_depositors, active, service_type
         FROM mids WHERE business_id = $1`,
        [p.businessId],
      );
      const payerCountry = card?.country ?? (method === 'MOBILE_MONEY' && body.account_number ? phoneCountry(body.account_number) : null);
      const list = shortlist({ paymentMethod: method, currency: body.currency, payerCountry, cardFirstSeenAt: card?.firstSeenAt ?? null, now }, mids);
      if (list.rank === null) throw new AppError('NO_ROUTE');
      // The turn is taken outside the insert's transaction: a failed insert only skips a turn.
      const { turn } = await t.one<{ turn: bigint }>(
        `INSERT INTO routing_cursors (business_id, payment_method, currency, processing_rank, turn) VALUES ($1, $2, $3, $4, 1)
         ON CONFLICT (business_id, payment_method, currency, processing_rank) DO UPDATE SET turn = routing_cursors.turn + 1
         RETURNING turn`,
        [p.businessId, method, body.currency, list.rank],
      );
      const decision = choose(list, Number(turn));
      return { price, decision, mid: mids.find((m) => m.id === decision.mid_id)! };
    });

    const gatewayReference = newGatewayReference();
    const pageToken = randomBytes(18).toString('base64url');
    const initiated = this.processor(mid.service_type).initiate({
      paymentMethod: method,
      accountNumber: body.account_number ?? null,
      amountText: formatMinor(customerPaysMinor(price.accountAmountMinor, price.feeMinor, price.customerCharged)),
      currency: price.accountCurrency,
      gatewayReference,
      cardMasked: card?.masked ?? null,
    });
    const paymentUrl = initiated.needsPaymentPage ? `${this.s.config.publicBaseUrl}/pay/${gatewayReference}?token=${pageToken}` : null;
    const instructions = initiated.instructions ?? (paymentUrl ? null : [{ step: '1', description: 'Wait for the customer to complete the payment.' }]);

    return this.s.db.tx(async (t) => {
      const row = await t.oneOrNone<CollectionRow>(
        `INSERT INTO collections (business_id, api_token_id, gateway_reference, merchant_reference, request_hash, payment_method,
           status, message, request_amount_minor, request_currency, account_amount_minor, account_currency, fx_rate, fee_minor,
           total_credit_minor, customer_charged, account_number, account_name, account_email, narration, redirect_url,
           institution_name, payment_url, instructions, mid_id, routing, card_masked, card_fingerprint, page_token, expires_at,
           created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'PENDING', $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
           $23:json, $24, $25:json, $26, $27, $28, $29, $30, $30)
         ON CONFLICT (business_id, merchant_reference) DO NOTHING
         RETURNING *`,
        [
          p.businessId, p.apiTokenId, gatewayReference, body.merchant_reference, hash, method, STATUS_MESSAGES.PENDING,
          amountMinor, body.currency, price.accountAmountMinor, price.accountCurrency, price.fxRate, price.feeMinor,
          price.totalCreditMinor, price.customerCharged, body.account_number ?? null, body.account_name ?? null,
          body.account_email ?? null, body.narration, body.redirect_url ?? null, initiated.institutionName, paymentUrl,
          instructions, mid.id, decision, card?.masked ?? null, card?.fingerprint ?? null, pageToken,
          new Date(now.getTime() + this.s.config.pendingTtlSeconds * 1000), now,
        ],
      );
      if (!row) throw new ReferenceTaken();
      if (card) {
        await t.none('INSERT INTO card_fingerprints (fingerprint, first_seen_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [card.fingerprint, now]);
      }
      const report = initiated.scheduledReport;
      const outcome = report ? this.processor(mid.service_type).mapStatus(report.vendorStatus) : null;
      if (report && outcome) {
        await t.none('INSERT INTO provider_events (collection_id, outcome, due_at) VALUES ($1, $2, $3)', [
          row.id,
          outcome,
          new Date(now.getTime() + report.delayMs),
        ]);
      }
      await this.s.notifications.enqueueStarted(t, row);
      return row;
    });
  }

  /**
   * A provider's report (or the customer's answer on a hosted page, or expiry): PENDING -> final, with
   * its ledger postings and notification rows in one transaction. A repeat or a late report changes
   * nothing and returns null.
   */
  async applyOutcome(collectionId: bigint, outcome: FinalStatus, message?: string): Promise<CollectionRow | null> {
    const row = await this.s.db.tx((t) => this.applyOutcomeIn(t, collectionId, outcome, message));
    if (row) {
      this.s.workers?.kick('webhooks');
      this.s.workers?.kick('emails');
    }
    return row;
  }

  async applyOutcomeIn(t: Tx, collectionId: bigint, outcome: FinalStatus, message?: string): Promise<CollectionRow | null> {
    const row = await t.oneOrNone<CollectionRow>(
      `UPDATE collections SET status = $2, message = $3, updated_at = $4 WHERE id = $1 AND status = 'PENDING' RETURNING *`,
      [collectionId, outcome, message ?? STATUS_MESSAGES[outcome], this.s.now()],
    );
    if (!row) return null;
    if (outcome === 'COMPLETED') await this.s.ledger.postCompletion(t, row);
    await this.s.notifications.enqueueStatusChange(t, row);
    if (this.s.config.appEnv === 'sandbox') await recordCertification(t, this.s.config, row);
    return row;
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

  async list(f: CollectionFilters, page: Page): Promise<{ rows: CollectionRow[]; total: number }> {
    const where: string[] = [];
    const values: unknown[] = [];
    const add = (sql: string, v: unknown) => {
      values.push(v);
      where.push(sql.replace('?', `$${values.length}`));
    };
    if (f.business_id !== undefined) add('business_id = ?', f.business_id);
    if (f.status) add('status = ?', f.status);
    if (f.payment_method) add('payment_method = ?', f.payment_method);
    if (f.currency) add('request_currency = ?', f.currency);
    if (f.merchant_reference) add('merchant_reference = ?', f.merchant_reference);
    if (f.from) add('created_at >= ?', f.from);
    if (f.to) add('created_at <= ?', f.to);
    const clause = where.length ? 'WHERE ' + where.join(' AND ') : '';
    const { count } = await this.s.db.one<{ count: bigint }>(`SELECT count(*) AS count FROM collections ${clause}`, values);
    const rows = await this.s.db.any<CollectionRow>(
      `SELECT * FROM collections ${clause} ORDER BY created_at DESC, id DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, page.perPage, page.offset],
    );
    return { rows, total: Number(count) };
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

  /** Due provider reports, each in its own transaction, each applied once. */
  async processProviderEvents(): Promise<number> {
    let handled = 0;
    for (; handled < BATCH; handled++) {
      const moved = await this.s.db.tx(async (t) => {
        const ev = await t.oneOrNone<{ id: bigint; collection_id: bigint; outcome: FinalStatus; message: string | null }>(
          `SELECT id, collection_id, outcome, message FROM provider_events
           WHERE processed_at IS NULL AND due_at <= $1 ORDER BY due_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
          [this.s.now()],
        );
        if (!ev) return false;
        const row = await this.applyOutcomeIn(t, ev.collection_id, ev.outcome, ev.message ?? undefined);
        await t.none('UPDATE provider_events SET processed_at = $2 WHERE id = $1', [ev.id, this.s.now()]);
        if (row) this.kickAfterCommit = true;
        return true;
      });
      if (!moved) break;
    }
    this.flushKicks();
    return handled;
  }

  /** PENDING past PENDING_TTL_SECONDS becomes EXPIRED. */
  async expireDue(): Promise<number> {
    let handled = 0;
    for (; handled < BATCH; handled++) {
      const moved = await this.s.db.tx(async (t) => {
        const due = await t.oneOrNone<{ id: bigint }>(
          `SELECT id FROM collections WHERE status = 'PENDING' AND expires_at <= $1 ORDER BY expires_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
          [this.s.now()],
        );
        if (!due) return false;
        if (await this.applyOutcomeIn(t, due.id, 'EXPIRED')) this.kickAfterCommit = true;
        return true;
      });
      if (!moved) break;
    }
    this.flushKicks();
    return handled;
  }

  private kickAfterCommit = false;

  private flushKicks() {
    if (!this.kickAfterCommit) return;
    this.kickAfterCommit = false;
    this.s.workers?.kick('webhooks');
    this.s.workers?.kick('emails');
  }

  workers(): WorkerSpec[] {
    return [
      { name: 'provider-events', intervalMs: 250, run: () => this.processProviderEvents() },
      { name: 'expiry', intervalMs: 1000, run: () => this.expireDue() },
    ];
  }
}
