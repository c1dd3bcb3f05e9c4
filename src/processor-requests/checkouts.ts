// Hosted checkouts (docs/contract/hosted-pages.md): a collection routed to a processor with its own payment pages
// (Paystack, BTCPay Server). payment_url stays ours; opening it starts the payment at the processor
// once (a lease lets one opening talk to it; later openings reuse what it answered) and sends the
// customer there. The processor sends the customer back to our return URL, where a status query
// (the reconciliation's own code path) decides; its signed webhooks are verified, then only prompt
// that query. A direct card is charged once, server to server, while request-to-pay runs: its
// details live in that request's memory only and are never sent again.
import type { CardDetails } from '../domain/card';
import type { CollectionRow } from '../domain/collection';
import { isFinal } from '../domain/collection';
import type { CheckoutView } from '../api-records/collection';
import { masterKeys } from '../crypto/secretbox';
import { AppError } from '../errors';
import { hasOwnCheckout } from '../processors/checkout';
import type { CheckoutOrder, CheckoutStart, CheckoutProcessor } from '../processors/checkout';
import type { CallContext } from '../processors/types';
import type { Base } from '../base';
import type { DisbursementService } from '../disbursements';
import type { DisputeService } from '../disputes';
import type { RefundService } from '../refunds';
import type { CollectionService } from '../collections';
import type { Processors } from '../processors';
import type { ProcessorRequestService } from './index';
import { openCredentials } from '../processors/credentials';
import { sqlFile } from '../db';

const CHECKOUT_VIEWS_OF_SQL = sqlFile(__dirname, 'checkout-views-of.sql');

interface Route {
  processor: CheckoutProcessor;
  ctx: CallContext;
  amountMinor: bigint;
  currency: string;
}

/** What opening payment_url leads to. */
export type Opened =
  | { kind: 'redirect'; url: string }
  /** another opening is talking to the processor right now */
  | { kind: 'busy' }
  /** the processor did not answer: nothing changed, the customer may retry */
  | { kind: 'unreachable' }
  /** the processor refused the payment, or it was decided meanwhile */
  | { kind: 'final'; row: CollectionRow }
  /** a direct card without a 3-D Secure page (decided at once, or its answer lost): ask the processor */
  | { kind: 'confirm' };

export class CheckoutService {
  constructor(private readonly s: Base & { collections: CollectionService; processorRequests: ProcessorRequestService; processors: Processors; refunds: Pick<RefundService, 'promptByPayment'>; disbursements: Pick<DisbursementService, 'promptByReference'>; disputes: Pick<DisputeService, 'prompt'> }) {}

  /** The hosted processor a collection's MID uses, with what to charge; null for every other processor. */
  async route(row: CollectionRow): Promise<Route | null> {
    if (row.mid_id === null) return null;
    const r = await this.s.db.oneOrNone<{ service_type: string; credentials_enc: string | null; amount_minor: bigint | null; currency: string | null }>(
      `SELECT m.service_type, m.credentials_enc, p.amount_minor, p.currency
       FROM mids m LEFT JOIN processor_requests p ON p.collection_id = $2 WHERE m.id = $1`,
      [row.mid_id, row.id],
    );
    if (!r || !this.s.processors.has(r.service_type)) return null;
    const processor = this.s.processors.get(r.service_type);
    if (!hasOwnCheckout(processor) || r.amount_minor === null || r.currency === null) return null;
    return { processor, ctx: { midId: row.mid_id, credentials: openCredentials(masterKeys(this.s.config), r.credentials_enc) }, amountMinor: r.amount_minor, currency: r.currency };
  }

  returnUrl(row: CollectionRow): string {
    return `${this.s.config.publicBaseUrl}/pay/${encodeURIComponent(row.gateway_reference)}/return?token=${encodeURIComponent(row.page_token ?? '')}`;
  }

  private order(row: CollectionRow, route: Route, attempt: number): CheckoutOrder {
    return {
      gatewayReference: row.gateway_reference, attempt, paymentMethod: row.payment_method, amountMinor: route.amountMinor, currency: route.currency,
      email: row.account_email, returnUrl: this.returnUrl(row), expiresAt: row.expires_at, now: this.s.now(),
    };
  }

  /** The collection's checkout (as the operator sees it too); null when the customer never opened one. */
  /** The checkouts of these collections (one read for a whole page of the operator's list). */
  async viewsOf(collectionIds: bigint[]): Promise<Map<bigint, CheckoutView>> {
    if (collectionIds.length === 0) return new Map();
    const rows = await this.s.db.any<CheckoutView & { collection_id: bigint }>(CHECKOUT_VIEWS_OF_SQL, { ids: collectionIds });
    return new Map(rows.map(({ collection_id, ...view }) => [collection_id, view]));
  }

  async viewOf(collectionId: bigint): Promise<CheckoutView | null> {
    return (await this.viewsOf([collectionId])).get(collectionId) ?? null;
  }

  /**
   * The lease on talking to the processor for this collection, with the attempt it starts; null when
   * another opening holds it or a checkout is already there.
   */
  private async claim(collectionId: bigint): Promise<number | null> {
    const now = this.s.now();
    // two calls at the most (BTCPay looks its invoice up, then makes it), with their deadlines
    const until = new Date(now.getTime() + 3 * this.s.config.processors.timeoutMs);
    const r = await this.s.db.oneOrNone<{ attempts: number }>(
      `INSERT INTO checkouts (collection_id, attempts, claimed_until, created_at, updated_at) VALUES ($1, 1, $2, $3, $3)
       ON CONFLICT (collection_id) DO UPDATE SET attempts = checkouts.attempts + 1, claimed_until = $2, updated_at = $3
         WHERE checkouts.url IS NULL AND checkouts.vendor_reference IS NULL AND (checkouts.claimed_until IS NULL OR checkouts.claimed_until < $3)
       RETURNING attempts`,
      [collectionId, until, now],
    );
    return r?.attempts ?? null;
  }

  /**
   * The processor has the payment (`vendorReference`): keep where the customer goes, and hand the
   * request to reconciliation (state sent, first status query on its schedule). One statement.
   */
  private async started(row: CollectionRow, vendorReference: string, url: string | null, checkNow: boolean): Promise<void> {
    const now = this.s.now();
    const first = checkNow ? now : new Date(Math.min(now.getTime() + this.s.config.processors.checkScheduleMs[0], row.expires_at.getTime()));
    await this.s.db.none(
      `WITH kept AS (UPDATE checkouts SET vendor_reference = $2, url = $3, claimed_until = NULL, updated_at = $4 WHERE collection_id = $1)
       UPDATE processor_requests SET state = 'sent', vendor_reference = $2, next_send_at = NULL, next_check_at = $5, checks = 0, updated_at = $4
       WHERE collection_id = $1 AND state = 'queued'`,
      [row.id, vendorReference, url, now, first],
    );
    if (checkNow) this.s.kick('collection-checks');
  }

  private async release(collectionId: bigint): Promise<void> {
    await this.s.db.none('UPDATE checkouts SET claimed_until = NULL, updated_at = $2 WHERE collection_id = $1', [collectionId, this.s.now()]);
  }

  /** The processor refused: the collection fails with its words, and its request is done. */
  private async refused(row: CollectionRow, r: { message: string; detail: string }): Promise<CollectionRow> {
    this.s.log.warn('processor refused the checkout', { gateway_reference: row.gateway_reference, detail: r.detail });
    await this.s.db.none(`UPDATE processor_requests SET state = 'settled', next_send_at = NULL, last_error = $2, updated_at = $3 WHERE collection_id = $1`, [
      row.id,
      r.detail,
      this.s.now(),
    ]);
    await this.release(row.id);
    return (await this.s.collections.applyOutcome(row.id, 'FAILED', r.message)) ?? (await this.s.collections.get(row.gateway_reference, null));
  }

  /** payment_url opened for a PENDING collection of a hosted processor. */
  async open(row: CollectionRow, route: Route): Promise<Opened> {
    const existing = await this.viewOf(row.id);
    if (existing?.url) return { kind: 'redirect', url: existing.url };
    if (existing?.vendor_reference || row.card_masked) return { kind: 'confirm' };
    // Each claim is a new attempt: an attempt whose answer was lost is never asked for again.
    const attempt = await this.claim(row.id);
    if (attempt === null) {
      const now = await this.viewOf(row.id);
      return now?.url ? { kind: 'redirect', url: now.url } : { kind: 'busy' };
    }
    const r = await route.processor.checkout.start(route.ctx, this.order(row, route, attempt));
    if (r.kind === 'redirect') {
      await this.started(row, r.vendorReference, r.url, false);
      return { kind: 'redirect', url: r.url };
    }
    if (r.kind === 'refused') return { kind: 'final', row: await this.refused(row, r) };
    // unreachable, or the attempt's reference already taken: the next opening is the next attempt
    this.s.log.warn('checkout not started while the customer waits', { gateway_reference: row.gateway_reference, detail: r.kind === 'unreachable' ? r.detail : r.kind });
    await this.release(row.id);
    return { kind: 'unreachable' };
  }

  /**
   * Direct card, while request-to-pay runs: one charge; its 3-D Secure page becomes where payment_url
   * leads. A refusal, a decline, or an answer that surely never left, fails the collection in this answer
   * (the card is not kept to try again); an answer lost on the way leaves it to reconciliation.
   */
  async chargeCard(row: CollectionRow, card: CardDetails): Promise<CollectionRow> {
    const route = await this.route(row);
    const charge = route?.processor.checkout.chargeCard;
    if (!route || !charge) throw new Error(`processor of MID ${row.mid_id} takes no direct card`);
    const attempt = await this.claim(row.id);
    if (attempt === null) return row;
    const r: CheckoutStart = await charge(route.ctx, this.order(row, route, attempt), card);
    switch (r.kind) {
      case 'redirect':
        await this.started(row, r.vendorReference, r.url, false);
        return row;
      case 'charged':
        // decided at once (declined, or paid with no further step): the merchant gets the outcome in this
        // answer, read back from the processor by the reconciliation's own query (amount checked as always)
        await this.started(row, r.vendorReference, null, false);
        return this.confirm(row);
      case 'refused':
        return this.refused(row, r);
      case 'unreachable':
        if (r.sent && r.vendorReference) {
          await this.started(row, r.vendorReference, null, true);
          return row;
        }
        return this.refused(row, { message: 'The card processor could not be reached; nothing was charged', detail: r.detail });
      case 'taken':
        return this.refused(row, { message: 'The card processor already holds this payment', detail: 'reference taken on a first charge' });
    }
  }

  /** Ask the processor now (the customer is back, or waits on our page); the collection as it then is. */
  async confirm(row: CollectionRow): Promise<CollectionRow> {
    if (!isFinal(row.status)) await this.s.processorRequests.checkNow(row.id);
    return this.s.collections.get(row.gateway_reference, null);
  }

  /**
   * A webhook on a MID's route: verified with that MID's credentials (else UNAUTHORIZED, nothing
   * changes), then a prompt to query the payment it names. One it does not name is acknowledged.
   */
  async webhook(serviceType: string, midId: number, rawBody: Buffer, header: (name: string) => string | undefined): Promise<void> {
    const mid = await this.s.db.oneOrNone<{ service_type: string; credentials_enc: string | null }>('SELECT service_type, credentials_enc FROM mids WHERE id = $1', [midId]);
    const processor = mid && mid.service_type === serviceType && this.s.processors.has(serviceType) ? this.s.processors.get(serviceType) : null;
    if (!mid || !processor || !hasOwnCheckout(processor)) throw new AppError('NOT_FOUND', 'No such webhook endpoint');
    const note = processor.checkout.webhook({ midId, credentials: openCredentials(masterKeys(this.s.config), mid.credentials_enc) }, rawBody, header);
    if (!note) {
      this.s.log.warn('processor webhook refused: signature does not hold', { service_type: serviceType, mid_id: midId });
      throw new AppError('UNAUTHORIZED', 'The webhook signature does not hold');
    }
    // a dispute event: the dispute is asked for and recorded (src/disputes/), nothing else is prompted
    if (await this.s.disputes.prompt(serviceType, midId, rawBody)) return;
    // Any MID of this processor: MIDs sharing one processor account share its one webhook URL. A prompt
    // only makes the service ask that collection's own processor with its own MID's credentials.
    const target = await this.s.db.oneOrNone<{ callback_token: string }>(
      `SELECT p.callback_token FROM processor_requests p JOIN collections c ON c.id = p.collection_id
       WHERE p.service_type = $1 AND (p.vendor_reference = $2 OR c.gateway_reference = $3) LIMIT 1`,
      [serviceType, note.vendorReference, note.gatewayReference],
    );
    if (target) await this.s.processorRequests.prompt(serviceType, target.callback_token, null);
    // the same signed route carries refund and transfer events (src/refunds/, src/disbursements/): prompts to ask about them
    else if ((await this.s.refunds.promptByPayment(serviceType, rawBody)) === 0) await this.s.disbursements.promptByReference(serviceType, rawBody);
  }
}
