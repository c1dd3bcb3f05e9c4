// request-to-pay (docs/contract/collections.md): the request priced, routed and written in one round trip
// (with group commit, create-batch.ts) from the configuration cache's inputs: the collection, its card's
// first sighting, its scheduled provider report or its request to a real processor, and its start notice.
// A replay answers the row that holds the merchant_reference.
import { createHash, randomUUID } from 'node:crypto';
import type { Base } from '../base';
import { pooledRandomBytes } from '../crypto/random-pool';
import { maskPan } from '../domain/card';
import type { CardDetails } from '../domain/card';
import { STATUS_MESSAGES } from '../domain/collection';
import type { CollectionRow } from '../domain/collection';
import { groupedIn } from '../domain/currencies';
import { customerPaysMinor } from '../domain/fees';
import { requestedMinor } from '../domain/money';
import { choose, phoneCountry, shortlist } from '../domain/routing';
import { AppError, validationError } from '../errors';
import type { Principal } from '../merchants/access-tokens';
import { ConfigChanged } from '../merchants/config-cache';
import type { RequestConfig } from '../merchants/config-cache';
import type { Recipients } from '../notifications/notifications';
import { checkAmount } from '../processors/amounts';
import { hasOwnCheckout } from '../processors/checkout';
import type { Processor } from '../processors/types';
import { currentTraceParent } from '../telemetry';
import type { components } from '../../generated/merchant-api';
import type { CreateBatches } from './create-batch';
import type { CollectionParts } from './parts';
import type { CollectionQueries } from './queries';

/** The request body as the contract defines it: one form per payment method. */
export type RequestToPayBody = components['schemas']['RequestToPay'];

interface CardSeen {
  /** the decrypted card, in this request's memory only: never written anywhere */
  details: CardDetails;
  masked: string;
  fingerprint: string;
  country: string;
  firstSeenAt: Date | null;
}

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
    account_currency: c.account_currency, fx_rate: c.fx_rate, fx_reference_rate: c.fx_reference_rate, fx_markup: c.fx_markup,
    fx_source: c.fx_source, fx_as_of: c.fx_as_of, fee_minor: c.fee_minor, total_credit_minor: c.total_credit_minor,
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

/** Thrown when a concurrent request took the merchant_reference first. */
class ReferenceTaken extends Error {}

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

export class RequestToPay {
  constructor(
    private readonly s: Base & CollectionParts,
    private readonly creates: CreateBatches,
    private readonly queries: CollectionQueries,
  ) {}

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
        const winner = await this.queries.byMerchantReference(p.businessId, body.merchant_reference);
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
    const amountMinor = requestedMinor(body.amount);
    const card = body.payment_method === 'CARD' && body.encrypted_card ? await this.seeCard(body.encrypted_card) : null;
    const now = this.s.now();
    const method = body.payment_method;
    // a named quote's price is the quote's, whatever the rate did since; else the rate now
    const price = body.quote_id
      ? await this.s.quotes.priceOfQuote(body.quote_id, {
          businessId: p.businessId,
          paymentMethod: method,
          requestAmountMinor: amountMinor,
          requestCurrency: body.currency,
          accountCurrency: config.pricing?.currency ?? null,
          now,
        })
      : this.s.pricing.priceFrom(config.pricing, {
          businessId: p.businessId,
          paymentMethod: method,
          requestCurrency: body.currency,
          requestAmountMinor: amountMinor,
          now,
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
      account_currency: price.accountCurrency, fx_rate: price.fxRate, fee_minor: price.feeMinor,
      fx_reference_rate: price.fxReferenceRate, fx_markup: price.fxMarkup, fx_source: price.fxSource, fx_as_of: price.fxAsOf, total_credit_minor: price.totalCreditMinor,
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
    if (charge && !charge.onPage) this.s.kick('collection-sends');
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
}
