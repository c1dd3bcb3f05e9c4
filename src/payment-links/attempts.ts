// A customer's attempt on a payment link's page: a slot of the link's completed_limit reserved while the
// link's row is locked (so customers paying at once never take more slots than the limit), then an ordinary
// collection made through request-to-pay under the API token that made the link, then the attempt given its
// collection. When request-to-pay refuses, the attempt is deleted and its slot is free again.
import type { Base } from '../base';
import { linkUrl } from '../api-records/payment-link';
import type { PaymentLinkRow } from '../api-records/payment-link';
import { sqlFile } from '../db';
import type { CollectionRow, PaymentMethod } from '../domain/collection';
import { toApi } from '../domain/money';
import type { Principal } from '../merchants/access-tokens';
import type { RequestToPayBody } from '../collections/request-to-pay';
import { unavailable } from './index';
import type { Unavailable } from './index';


/** An attempt with no collection after this long is taken to have died: its slot is free. */
const MAKING_SECONDS = 300;

const HELD = sqlFile(__dirname, 'held-slots.sql');

/** What the customer chose and filled in on the link's page, checked by the page. */
export interface AttemptInput {
  method: PaymentMethod;
  amountMinor: bigint;
  phone: string | null;
  name: string | null;
  email: string | null;
  customValues: Record<string, string>;
}

export interface AttemptParts {
  requestToPay: (p: Principal, body: RequestToPayBody) => Promise<{ row: CollectionRow }>;
}

export class LinkAttempts {
  constructor(private readonly s: Base & AttemptParts) {}

  private since(): Date {
    return new Date(this.s.now().getTime() - MAKING_SECONDS * 1000);
  }

  /** Why the link takes no payment now, or null. */
  async unavailable(link: PaymentLinkRow): Promise<Unavailable | null> {
    if (link.completed_limit === null) return unavailable(link, 0, this.s.now());
    const { held } = await this.s.db.one<{ held: number }>(HELD, { linkId: link.id, since: this.since() });
    return unavailable(link, held, this.s.now());
  }

  /**
   * The attempt's collection, or why the link takes no payment (then nothing is written). Errors of
   * request-to-pay (NO_ROUTE, VALIDATION_ERROR...) are thrown once the reserved slot is freed.
   */
  async start(link: PaymentLinkRow, input: AttemptInput): Promise<{ collection: CollectionRow } | { gone: Unavailable }> {
    const reserved = await this.s.db.tx(async (t): Promise<{ gone: Unavailable } | { id: bigint; apiTokenId: number }> => {
      const locked = await t.one<PaymentLinkRow>('SELECT * FROM payment_links WHERE id = $1 FOR UPDATE', [link.id]);
      const { held } = await t.one<{ held: number }>(HELD, { linkId: link.id, since: this.since() });
      const gone = unavailable(locked, held, this.s.now());
      // unavailable() refuses a link without an API token, so one is set here
      if (gone || locked.api_token_id === null) return { gone: gone ?? { reason: 'deactivated', message: null } };
      const { id } = await t.one<{ id: bigint }>(
        'INSERT INTO payment_link_attempts (link_id, custom_values, created_at) VALUES ($1, $2, $3) RETURNING id',
        [link.id, JSON.stringify(input.customValues), this.s.now()],
      );
      return { id, apiTokenId: locked.api_token_id };
    });
    if ('gone' in reserved) return { gone: reserved.gone };
    try {
      const { row } = await this.s.requestToPay({ businessId: link.business_id, apiTokenId: reserved.apiTokenId }, this.body(link, reserved.id, input));
      await this.s.db.none('UPDATE payment_link_attempts SET collection_id = $2 WHERE id = $1', [reserved.id, row.id]);
      return { collection: row };
    } finally {
      await this.s.db.none('DELETE FROM payment_link_attempts WHERE id = $1 AND collection_id IS NULL', [reserved.id]);
    }
  }

  /** One of the link's collections by its gateway_reference, or null. */
  collectionOf(link: PaymentLinkRow, gatewayReference: string): Promise<Pick<CollectionRow, 'gateway_reference' | 'status'> | null> {
    return this.s.db.oneOrNone(
      'SELECT c.gateway_reference, c.status FROM payment_link_attempts a JOIN collections c ON c.id = a.collection_id WHERE a.link_id = $1 AND c.gateway_reference = $2',
      [link.id, gatewayReference],
    );
  }

  /**
   * The request-to-pay of an attempt: the customer's browser comes back to the link's own end page. Its
   * merchant_reference is the link's id and the attempt's id in base 36 (at most 27 + 1 + 8 of the 36 characters
   * a reference may have), so the merchant reads on every collection which link it came from, and it is unique.
   */
  private body(link: PaymentLinkRow, attemptId: bigint, input: AttemptInput): RequestToPayBody {
    return {
      payment_method: input.method,
      amount: toApi(input.amountMinor),
      currency: link.currency,
      merchant_reference: attemptReference(link.link_id, attemptId),
      narration: `Payment link: ${link.title}`.slice(0, 64),
      redirect_url: `${linkUrl(this.s.config.publicBaseUrl, link.link_id)}/done`,
      ...(input.phone ? { account_number: input.phone } : {}),
      ...(input.name ? { account_name: input.name } : {}),
      ...(input.email ? { account_email: input.email } : {}),
    } as RequestToPayBody;
  }
}

/** A link's collection's merchant_reference: `pl_...-` and the attempt's id in base 36. */
export function attemptReference(linkId: string, attemptId: bigint): string {
  return `${linkId}-${attemptId.toString(36)}`;
}
